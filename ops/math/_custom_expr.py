"""A custom op's element-wise expression (its spec's ``elementwise:``) as
the C function a fused kernel calls for its node (Note [Element-wise
expressions] in ``ge_ir.elementwise``; docs/compiler.md).

The function takes the present inputs' elements already converted to the
compute type ``C`` of the output's dtype and returns the value in ``C``;
the caller rounds it to the output's storage once (``store``). Attrs and
numbers are converted to ``C`` where they appear (a float attr is a
double, converted once, as a kernel reading ``(float)alpha`` does); every
operation is C's on ``C``, and the kernel is built with
``-ffp-contract=off``, so nothing is contracted or reassociated.
"""

from __future__ import annotations

from ge.graph import DataType
from ge_ir.elementwise import Binary, Call, Cond, Expr, Neg, Num, Ref

from ._exprs import C_TYPES, _f

_INT64_MIN = -(2**63)


def _number(value: float | int | bool) -> str:
    if isinstance(value, bool):
        return "(C)1" if value else "(C)0"
    if isinstance(value, int):
        if value == _INT64_MIN:
            return "(C)(-9223372036854775807LL - 1)"
        return f"(C)({value}LL)"
    return f"(C)({_f(value)})"


def expression_function(
    index: int,
    expr: Expr,
    dtype: DataType,
    inputs: tuple[str, ...],
    attrs: dict[str, float | int],
) -> str:
    """``ge_op_<index>(C a0, ...)``: ``expr`` over the present ``inputs``
    (in argument order) and ``attrs``, on ``dtype``'s compute type."""
    _, ctype, _, kind = C_TYPES[dtype]
    if kind != "f":
        raise ValueError(f"an element-wise expression does not compute in {dtype.name}")
    sfx = "f" if ctype == "float" else ""
    present = frozenset(inputs)

    def c(e: Expr) -> str:
        if isinstance(e, Ref):
            if e.name in present:
                return f"a{inputs.index(e.name)}"
            return _number(attrs[e.name])
        if isinstance(e, Num):
            return _number(e.value)
        if isinstance(e, Neg):
            return f"(-{c(e.operand)})"
        if isinstance(e, Binary):
            return f"({c(e.left)} {e.op} {c(e.right)})"
        if isinstance(e, Call):
            name = "fabs" if e.function == "abs" else e.function
            return f"{name}{sfx}({c(e.argument)})"
        assert isinstance(e, Cond)
        return c(e.present if e.name in present else e.absent)

    params = ", ".join(f"C a{k}" for k in range(len(inputs))) or "void"
    return (
        f"#define C {ctype}\n"
        f"static inline C ge_op_{index}({params}) {{ return (C)({c(expr)}); }}\n"
        "#undef C\n"
    )


__all__ = ["expression_function"]
