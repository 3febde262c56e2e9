"""An op's element-wise expression (the spec's ``elementwise:`` key;
docs/spec-reference.md, "elementwise"): what one output element is, as a
scalar expression over the same element of each input and the op's attrs.

Note [Element-wise expressions]: the grammar is a small part of Python's:
``+ - * /``, unary ``-`` and ``+``, parentheses, numbers, the names of the
op's inputs and of its int, float and bool attrs, the functions ``abs``,
``sqrt``, ``exp``, ``log`` and ``tanh``, and ``A if x is not None else B``
(or ``is None``) for an optional input ``x``, which is read only where it
is present. Every value is computed in the compute type of the output's
dtype (float for float16, bfloat16 and float32; double for float64): each
input element converted to it, each attr and number converted to it once,
every operation rounded to it (C's arithmetic on that type, no
contraction into FMAs), and the result rounded once to the output's
dtype. A kernel that computes otherwise (a float16 intermediate rounded to
float16, an FMA, a float32 attr read as float64) must not declare the
expression: the fused kernel would not give its bits. The parsing is here
so that gen-ops (which checks a spec) and the runtime (which registers the
prototype and fuses the nodes) read one grammar.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# The dtypes an element-wise expression computes in (spec names).
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
# Functions of one argument the expression may call.
FUNCTIONS = ("abs", "sqrt", "exp", "log", "tanh")
OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
# Attr types an expression may read (a bool reads as 0 or 1).
ATTR_TYPES = ("int", "float", "bool")


@dataclass(frozen=True)
class Ref:
    """An input's element or an attr's value."""

    name: str


@dataclass(frozen=True)
class Num:
    value: float | int


@dataclass(frozen=True)
class Neg:
    operand: Expr


@dataclass(frozen=True)
class Binary:
    op: str  # + - * /
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Call:
    function: str  # one of FUNCTIONS
    argument: Expr


@dataclass(frozen=True)
class Cond:
    """``present if name is not None else absent``."""

    name: str
    present: Expr
    absent: Expr


Expr = Ref | Num | Neg | Binary | Call | Cond


class ExpressionError(ValueError):
    """The text is not an element-wise expression; ``offset`` is the
    character of the text it is about."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.offset = offset


def _offset(text: str, node: ast.AST) -> int:
    lines = text.split("\n")
    line = getattr(node, "lineno", 1) - 1
    return sum(len(x) + 1 for x in lines[:line]) + getattr(node, "col_offset", 0)


def parse(text: str) -> Expr:
    """The expression ``text`` (ExpressionError when it is not one)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(
            f"not an expression: {exc.msg}", max(0, (exc.offset or 1) - 1)
        ) from None
    return _build(text.strip(), tree.body)


def _build(text: str, node: ast.AST) -> Expr:
    if isinstance(node, ast.Name):
        return Ref(node.id)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Num(node.value)
        raise ExpressionError(f"{node.value!r} is not a number", _offset(text, node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _build(text, node.operand)
        return Neg(operand) if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return Binary(
            OPERATORS[type(node.op)],
            _build(text, node.left),
            _build(text, node.right),
        )
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in FUNCTIONS:
            raise ExpressionError(
                f"calls {ast.unparse(node.func)}, which is not one of "
                f"{', '.join(FUNCTIONS)}",
                _offset(text, node),
            )
        if len(node.args) != 1 or node.keywords:
            raise ExpressionError(f"{name}() takes one argument", _offset(text, node))
        return Call(name, _build(text, node.args[0]))
    if isinstance(node, ast.IfExp):
        test = node.test
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            body, orelse = _build(text, node.body), _build(text, node.orelse)
            if isinstance(test.ops[0], ast.Is):
                body, orelse = orelse, body
            return Cond(test.left.id, body, orelse)
        raise ExpressionError(
            "a conditional tests only 'x is None' or 'x is not None' of an "
            "optional input",
            _offset(text, node),
        )
    what = type(node).__name__
    if isinstance(node, ast.BinOp):
        what = f"operator {type(node.op).__name__}"
    raise ExpressionError(
        f"{what} is not allowed (only + - * /, unary -, numbers, inputs, "
        f"attrs, {', '.join(FUNCTIONS)} and 'A if x is not None else B')",
        _offset(text, node),
    )


def names(expr: Expr, present: frozenset[str] | None = None) -> list[str]:
    """The names ``expr`` reads, in order (with ``present``, the optional
    inputs present: only the branches they choose)."""
    found: list[str] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Ref):
            if e.name not in found:
                found.append(e.name)
        elif isinstance(e, Neg):
            walk(e.operand)
        elif isinstance(e, Binary):
            walk(e.left)
            walk(e.right)
        elif isinstance(e, Call):
            walk(e.argument)
        elif isinstance(e, Cond):
            if present is None:
                walk(e.present)
                walk(e.absent)
            else:
                walk(e.present if e.name in present else e.absent)
        else:
            assert isinstance(e, Num)

    walk(expr)
    return found


def problems(
    expr: Expr, inputs: dict[str, bool], attrs: dict[str, str]
) -> list[tuple[str, str]]:
    """(message, hint) for each name ``expr`` must not read: ``inputs``
    maps each input to whether it is optional, ``attrs`` each attr to its
    spec type name."""
    found: list[tuple[str, str]] = []
    known = sorted(set(inputs) | {a for a, t in attrs.items() if t in ATTR_TYPES})

    def walk(e: Expr, guarded: frozenset[str]) -> None:
        if isinstance(e, Ref):
            if e.name in attrs and attrs[e.name] not in ATTR_TYPES:
                found.append(
                    (
                        f"reads attr '{e.name}' of type {attrs[e.name]}; an "
                        "element-wise expression reads int, float and bool attrs",
                        "compute with the op's inputs and numeric attrs",
                    )
                )
            elif e.name in inputs and inputs[e.name] and e.name not in guarded:
                found.append(
                    (
                        f"reads optional input '{e.name}' where it may be absent",
                        f"write 'A if {e.name} is not None else B'",
                    )
                )
            elif e.name not in inputs and e.name not in attrs:
                found.append(
                    (
                        f"reads '{e.name}', which is not an input or attr of the op",
                        "inputs and numeric attrs: " + (", ".join(known) or "none"),
                    )
                )
        elif isinstance(e, Neg):
            walk(e.operand, guarded)
        elif isinstance(e, Binary):
            walk(e.left, guarded)
            walk(e.right, guarded)
        elif isinstance(e, Call):
            walk(e.argument, guarded)
        elif isinstance(e, Cond):
            if not inputs.get(e.name, False):
                found.append(
                    (
                        f"tests '{e.name} is None', but '{e.name}' is not an "
                        "optional input",
                        "test only optional inputs",
                    )
                )
            walk(e.present, guarded | {e.name})
            walk(e.absent, guarded)

    walk(expr, frozenset())
    return found


__all__ = [
    "ATTR_TYPES",
    "Binary",
    "Call",
    "Cond",
    "Expr",
    "ExpressionError",
    "FLOAT_DTYPES",
    "FUNCTIONS",
    "Neg",
    "Num",
    "Ref",
    "names",
    "parse",
    "problems",
]
