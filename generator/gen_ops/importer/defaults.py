"""ATTR defaults: C++ text to the spec's value, per attr type.

What each spelling becomes (docs/importing.md has the table):

- Int: an integer expression (``-1``, ``0x10``, ``(-9223372036854775807 -
  1)``); a DataType enumerator (``DT_INT32``) is the number GE stores (3),
  and the YAML names it in a comment (I304).
- Float: the literal as spelled, suffix dropped (``1e-5f`` is ``1e-5``,
  ``0.0001`` stays); ``std::numeric_limits<float>::infinity()`` and
  ``quiet_NaN()`` are ``.inf`` and ``.nan``.
- Bool ``true``/``false``; String: adjacent literals, every escape decoded.
- Type: ``DT_X`` is its spec name; ``DT_UNDEFINED`` is ``undefined``.
- Tensor ``Tensor()`` and NamedAttrs ``NamedAttrs()`` are the empty default
  (null); their list types and every other list take ``{...}``.
- Bytes: ``{0x00, 0x01}``.

Forms C++ evaluates, imported as the value C++ gives them, each with a
warning that says what was normalised:

- a Bool written as an integer (``0``, ``1``): C++ converts 0 to false and
  any other integer to true (I309);
- a Float (or a ListFloat item) written as a constant expression of
  numeric literals (``1.f / 4``): its value as C++ computes it, written in
  full (I310; ``c_literals.FloatExpression``);
- one of GE's named constants of ``graph/types.h`` (``ge::UNKNOWN_RANK``,
  ``UNKNOWN_DIM``, ...; ``GE_INT_CONSTANTS``, ``GE_LIST_INT_CONSTANTS``):
  its value, and the YAML names it in a comment (I311).

A default that does not read (``ge::DataType(-1)``, a macro, a value that
does not fit the type) is dropped with a warning (I305): the attr is
imported without a default and the YAML says what was dropped. A name that
is not a DataType enumerator is I202, as in a type expression.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ge_ir.attrs import AttrType, check_attr_value
from ge_ir.types import UNDEFINED_DTYPE_NAME
from gen_ops.importer import dtype_names
from gen_ops.importer.c_literals import (
    FloatExpression,
    IntExpression,
    NotALiteral,
    TooDeep,
    float_spelling,
    string_literal,
)
from gen_ops.importer.model import Default, Number, Value
from gen_ops.importer.reporting import OpReporter
from gen_ops.importer.syntax import ID, NUM, PUNCT, Token, shortened, spell

# The spec's default of a Type attr set to DT_UNDEFINED (ge_ir's word).
UNDEFINED = UNDEFINED_DTYPE_NAME

# GE's named constants of graph/types.h an attr default may name (with or
# without ge::), by the attr type they fit: the Int ones, and the ListInt
# ones (docs/ge-compat.md, "Named constants").
GE_INT_CONSTANTS: Mapping[str, int] = MappingProxyType(
    {"UNKNOWN_DIM": -1, "UNKNOWN_DIM_NUM": -2}
)
GE_LIST_INT_CONSTANTS: Mapping[str, tuple[int, ...]] = MappingProxyType(
    {"UNKNOWN_SHAPE": (-1,), "UNKNOWN_RANK": (-2,), "DUMMY_SHAPE": (-3,)}
)


class _Invalid(Exception):
    """A name that is not a DataType enumerator (already reported, I202)."""


class _Reader:
    def __init__(
        self, attr: str, fix_dtypes: bool, report: OpReporter, tokens: Sequence[Token]
    ) -> None:
        self.attr = attr
        self.fix_dtypes = fix_dtypes
        self.report = report
        self.tokens = tokens
        self.names: list[str] = []
        # What C++ evaluated and the importer normalised, for the warnings:
        # (the code, where, the C++ text, what it became).
        self.normalised: list[tuple[str, int, str, str]] = []

    # -- names ---------------------------------------------------------------

    def enumerator(self, token: Token) -> int | None:
        """The value of a DataType enumerator (or an alias GE's string table
        reads, with --fix-dtypes); reports I202 for other DT-like names."""
        reading = dtype_names.read(token.text)
        if reading.dtype is not None:
            return int(reading.dtype)
        if (
            reading.alias is not None or reading.suggestion is not None
        ) and token.text.upper().startswith("DT"):
            self.unknown(token, reading)
            return int(reading.alias) if reading.alias is not None else None
        return None

    def unknown(self, token: Token, reading: dtype_names.Reading) -> None:
        where = f"attr '{self.attr}'"
        if reading.alias is not None and self.fix_dtypes:
            self.report(
                "I302",
                token.offset,
                f"{where}: {token.text} read as {reading.alias.name}, as GE's "
                "string table reads it",
                f"write {reading.alias.name} in the header",
            )
            return
        hint = (
            f"GE's string table reads it as {reading.alias.name}: pass --fix-dtypes "
            f"to import it as {reading.alias.spec_name}, or write {reading.alias.name}"
            if reading.alias is not None
            else (
                f"did you mean {dtype_names.describe(reading.suggestion)}?"
                if reading.suggestion
                else "write a DataType enumerator"
            )
        )
        self.report(
            "I202",
            token.offset,
            f"{where}: {token.text} is not a DataType enumerator",
            hint,
        )
        raise _Invalid

    # -- values ----------------------------------------------------------------

    def int_value(self, tokens: Sequence[Token]) -> int:
        expression = IntExpression(tokens, self.resolve)
        value = expression.value()
        self.names += expression.names
        return value

    def resolve(self, name: str) -> int | None:
        token = next(t for t in self.tokens if t.text == name)
        if name in GE_INT_CONSTANTS:
            value = GE_INT_CONSTANTS[name]
            self.normalised.append(("I311", token.offset, name, str(value)))
            return value
        return self.enumerator(token)

    def bool_value(self, tokens: Sequence[Token]) -> bool:
        text = spell(tokens)
        if text in ("true", "false"):
            return text == "true"
        try:
            number = IntExpression(tokens, lambda name: None).value()
        except TooDeep:
            raise
        except NotALiteral:
            raise NotALiteral(f"{shortened(text)} is not true or false") from None
        value = number != 0  # C++'s conversion of an integer to bool
        became = "true" if value else "false"
        self.normalised.append(("I309", tokens[0].offset, text, became))
        return value

    def list_constant(self, kind: AttrType, tokens: Sequence[Token]) -> Value:
        """A list default that is one of GE's named list constants, or
        NotALiteral."""
        rest = list(tokens)
        if len(rest) == 3 and rest[0].text == "ge" and rest[1].is_punct("::"):
            rest = rest[2:]
        name = rest[0].text if len(rest) == 1 and rest[0].kind == ID else ""
        if kind is not AttrType.LIST_INT or name not in GE_LIST_INT_CONSTANTS:
            raise NotALiteral(f"{spell(tokens)} is not a brace list")
        value = GE_LIST_INT_CONSTANTS[name]
        became = "[" + ", ".join(map(str, value)) + "]"
        self.normalised.append(("I311", tokens[0].offset, name, became))
        return value

    def float_value(self, tokens: Sequence[Token]) -> Number:
        sign = ""
        rest = list(tokens)
        while rest and rest[0].kind == PUNCT and rest[0].text in "+-":
            if rest[0].text == "-":
                sign = "" if sign else "-"
            rest = rest[1:]
        text = "".join(t.text for t in rest)
        if text.startswith("ge::"):
            text = text[4:]
        special = {
            "std::numeric_limits<float>::infinity()": ".inf",
            "numeric_limits<float>::infinity()": ".inf",
            "std::numeric_limits<float>::quiet_NaN()": ".nan",
            "numeric_limits<float>::quiet_NaN()": ".nan",
            "std::numeric_limits<float>::signaling_NaN()": ".nan",
            "INFINITY": ".inf",
            "NAN": ".nan",
        }
        if text in special:
            spelled = special[text]
            return Number(sign + spelled if spelled == ".inf" else spelled)
        if len(rest) == 1 and rest[0].kind == NUM:
            return Number(sign + float_spelling(rest[0].text))
        try:
            number = FloatExpression(tokens).value()
        except NotALiteral as exc:
            raise NotALiteral(
                f"{shortened(spell(tokens))} is not a float literal nor a constant "
                f"expression of numbers ({exc})"
            ) from None
        written = repr(number)
        self.normalised.append(("I310", tokens[0].offset, spell(tokens), written))
        return Number(written)

    def scalar(self, kind: AttrType, tokens: Sequence[Token]) -> Value:
        if kind is AttrType.INT:
            return self.int_value(tokens)
        if kind is AttrType.FLOAT:
            return self.float_value(tokens)
        if kind is AttrType.BOOL:
            return self.bool_value(tokens)
        if kind is AttrType.STR:
            return string_literal(tokens)
        if kind is AttrType.DTYPE:
            return self.dtype(tokens)
        if kind in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
            text = spell(tokens).removeprefix("ge::")
            if text in (f"{kind.ir_name}()", "{}"):
                return None
            raise NotALiteral(f"the only default of {kind.ir_name} is {kind.ir_name}()")
        raise AssertionError(kind)

    def dtype(self, tokens: Sequence[Token]) -> str:
        rest = list(tokens)
        if len(rest) == 3 and rest[0].text == "ge" and rest[1].is_punct("::"):
            rest = rest[2:]
        if len(rest) != 1 or rest[0].kind != ID:
            raise NotALiteral(f"{spell(tokens)} is not a DataType enumerator")
        reading = dtype_names.read(rest[0].text)
        if reading.dtype is not None:
            if reading.dtype.name == "DT_UNDEFINED":
                return UNDEFINED
            if reading.dtype in dtype_names.MARKERS:
                raise NotALiteral(f"{reading.dtype.name} is a marker, not a type")
            return reading.dtype.spec_name
        if reading.alias is None and reading.suggestion is None:
            raise NotALiteral(f"{rest[0].text} is not a DataType enumerator")
        self.unknown(rest[0], reading)
        assert reading.alias is not None  # unknown() raised otherwise
        return reading.alias.spec_name

    def brace_items(self, tokens: Sequence[Token]) -> list[list[Token]]:
        """The items of ``{a, b, ...}``; ``std::vector<T>{...}`` and
        ``std::vector<T>({...})`` too."""
        rest = _strip_vector(list(tokens))
        if len(rest) < 2 or not rest[0].is_punct("{") or not rest[-1].is_punct("}"):
            raise NotALiteral(f"{spell(tokens)} is not a brace list")
        items: list[list[Token]] = [[]]
        depth = 0
        for token in rest[1:-1]:
            if token.kind == PUNCT and token.text in "({[":
                depth += 1
            elif token.kind == PUNCT and token.text in ")}]":
                depth -= 1
                if depth < 0:
                    raise NotALiteral("its braces do not balance")
            elif token.is_comma and depth == 0:
                items.append([])
                continue
            items[-1].append(token)
        if depth:
            raise NotALiteral("its braces do not balance")
        if items[-1] == [] and len(items) > 1:
            items.pop()  # a trailing comma
        if items == [[]]:
            return []
        if any(not item for item in items):
            raise NotALiteral("it has an empty item")
        return items

    def value(self, kind: AttrType, tokens: Sequence[Token]) -> Value:
        if kind is AttrType.BYTES:
            data = [self.int_value(item) for item in self.brace_items(tokens)]
            if any(not 0 <= b <= 255 for b in data):
                raise NotALiteral("a byte is out of 0..255")
            return bytes(data)
        element = kind.element
        if element is None:
            return self.scalar(kind, tokens)
        if tokens and not _strip_vector(list(tokens))[0].is_punct("{"):
            return self.list_constant(kind, tokens)
        return tuple(self.value(element, item) for item in self.brace_items(tokens))


def _strip_vector(tokens: list[Token]) -> list[Token]:
    if len(tokens) < 5 or tokens[0].text != "std":
        return tokens
    text = [t.text for t in tokens]
    if text[:3] != ["std", "::", "vector"]:
        return tokens
    try:
        close = text.index(">", 3)
    except ValueError:
        return tokens
    rest = tokens[close + 1 :]
    if len(rest) >= 2 and rest[0].is_punct("(") and rest[-1].is_punct(")"):
        rest = rest[1:-1]
    return rest


def _checked(kind: AttrType, value: Value) -> None:
    """The value must fit the type as ``ge_ir`` checks it (the one check)."""
    if kind is AttrType.DTYPE or kind in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
        return  # spec names and the empty default are checked above
    if kind is AttrType.LIST_DTYPE:
        if UNDEFINED in value:  # type: ignore[operator]
            raise ValueError("DT_UNDEFINED is not a type")
        return
    check_attr_value(kind, _plain(value))


def _plain(value: Value) -> object:
    if isinstance(value, Number):
        text = value.text
        return float(text.replace(".inf", "inf").replace(".nan", "nan"))
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def read_default(
    kind: AttrType,
    tokens: tuple[Token, ...],
    attr: str,
    fix_dtypes: bool,
    report: OpReporter,
) -> tuple[Default | None, str | None]:
    """(the default, None), or (None, the C++ text) for a default that was
    dropped (I305). After an I202 the op has failed (``report.failed``)."""
    reader = _Reader(attr, fix_dtypes, report, tokens)
    text = spell(tokens)
    shown = shortened(text)
    try:
        value = reader.value(kind, tokens)
        _checked(kind, value)
    except _Invalid:
        return None, None
    except (NotALiteral, ValueError, TypeError) as exc:
        report(
            "I305",
            tokens[0].offset if tokens else 0,
            f"attr '{attr}': the default {shown} of this {kind.ir_name} attr is not "
            f"imported ({exc}); the spec's attr has no default",
            "give the attr a default in the spec, or write one GE can print",
        )
        return None, text
    for code, offset, spelled, became in reader.normalised:
        report(code, offset, *_normalised(code, attr, kind, spelled, became))
    if _known(reader.names):
        report(
            "I304",
            tokens[0].offset,
            f"attr '{attr}': the {kind.ir_name} default {text} is imported as the "
            "number GE stores ("
            + ", ".join(
                f"{n} = {dtype_names.ENUMERATORS[n].value}"
                for n in dict.fromkeys(_known(reader.names))
            )
            + "), named in a YAML comment",
            "make the attr a Type attr if it holds a dtype",
        )
    constants = tuple(
        dict.fromkeys(s for code, _, s, _ in reader.normalised if code == "I311")
    )
    evaluated = text if any(n[0] == "I310" for n in reader.normalised) else None
    return (
        Default(value, tuple(_known(reader.names)) + constants, evaluated),
        None,
    )


def _normalised(
    code: str, attr: str, kind: AttrType, spelled: str, became: str
) -> tuple[str, str]:
    """The message and hint of a warning for a default C++ evaluates."""
    where = f"attr '{attr}'"
    if code == "I309":
        rule = (
            ""
            if spelled in ("0", "1")
            else " (C++ converts any nonzero integer to true)"
        )
        return (
            f"{where}: the Bool default {spelled} is imported as {became}{rule}",
            f"write {became} in the header",
        )
    if code == "I310":
        return (
            f"{where}: the {kind.ir_name} default {spelled} is a constant "
            f"expression, imported as its value {became}, as C++ computes it",
            f"write {became} in the header, or keep the expression: the spec "
            "keeps the value",
        )
    return (
        f"{where}: the {kind.ir_name} default names GE's constant {spelled} "
        f"(graph/types.h), imported as its value {became} and named in a YAML "
        "comment",
        f"nothing to do; write {became} in the header to silence this",
    )


def _known(names: list[str]) -> list[str]:
    """Enumerator names as GE spells them (an alias becomes its target)."""
    out = []
    for name in names:
        reading = dtype_names.read(name)
        target = reading.dtype if reading.dtype is not None else reading.alias
        if target is not None:
            out.append(target.name)
    return out
