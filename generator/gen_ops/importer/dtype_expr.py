"""Type expressions: the dtype argument of an element, and DATATYPE's range.

GE's grammar (docs/ge-compat.md, "REG_OP"): an input's or output's type is a quoted
type variable (``"T"``), ``TensorType({DT_A, ...})``, ``TensorType(DT_A)``
or a named set ``TensorType::NumberType()``; DATATYPE's range is one of the
last three, ``ListTensorType(<one of them>)`` or ``Promote({"x1", "x2"})``.

Note [Odd type expressions]: the element macros only stringify their type
argument, so C++ never evaluates it and real headers hold forms that mean
something only to a reader. Each is imported with its evident meaning and
one I301 warning that says what was read and why:

- a named set written without ``TensorType::`` and ``()``,
  ``{FloatingDataType, DT_BF16}``: the set; a named set alone stays a named
  set, and with dtypes (GE's own ``TensorType({BasicType(), DT_BOOL})``,
  which needs no warning) their union, ``[BasicType, bool]``;
- ``TensorType(DT_A, DT_B)`` without braces, ``TensorType{DT_A}`` without
  parentheses, a bare ``DT_A`` or a bare ``{DT_A, DT_B}``: that list;
- braces that do not balance inside the expression: the list they hold;
- a repeated dtype: once;
- an unquoted type variable ``T``: the variable.

A full-width comma is read as a comma by ``preprocess`` (I308). Names that
are not enumerators are I202 (``dtype_names`` says what they likely mean),
a quoted name no DATATYPE declares is I204, and anything else that does not
read is I203; an op with any of them is not imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ge_ir.types import NAMED_TENSOR_TYPES, DataType
from gen_ops.importer import dtype_names
from gen_ops.importer.model import (
    DtypeList,
    DtypeRef,
    ListOf,
    NamedSet,
    Promote,
    Range,
    VarRef,
)
from gen_ops.importer.reporting import OpReporter
from gen_ops.importer.syntax import ID, PUNCT, STR, Token, spell


@dataclass
class _Reader:
    """Reads one expression; ``notes`` collects what was normalised."""

    report: OpReporter
    what: str  # "input 'x'", for messages
    fix_dtypes: bool
    tokens: tuple[Token, ...]
    notes: list[str] = field(default_factory=list)
    ok: bool = True

    @property
    def offset(self) -> int:
        return self.tokens[0].offset if self.tokens else 0

    def fail(self, code: str, offset: int, message: str, hint: str) -> None:
        self.report(code, offset, f"{self.what}: {message}", hint)
        self.ok = False

    def unreadable(self, why: str, hint: str | None = None) -> None:
        self.fail(
            "I203",
            self.offset,
            f"cannot read the type expression {spell(self.tokens)}: {why}",
            hint
            or 'write a quoted type variable ("T"), TensorType({DT_A, DT_B}) or '
            "TensorType::NumberType()",
        )

    # -- a list of items -------------------------------------------------------

    def items(
        self, tokens: tuple[Token, ...], braced: bool
    ) -> DtypeList | NamedSet | None:
        """The dtypes and named sets between (or without) braces."""
        parts: list[list[Token]] = [[]]
        depth = 0
        saw_braces = False
        extra_close = False
        for token in tokens:
            if token.kind == PUNCT and token.text == "{":
                depth += 1
                saw_braces = True
            elif token.kind == PUNCT and token.text == "}":
                if depth == 0:
                    extra_close = True
                else:
                    depth -= 1
            elif token.is_comma:
                parts.append([])
            else:
                parts[-1].append(token)
        if depth or extra_close:
            self.notes.append(
                "its braces do not balance (a '}' is "
                + ("missing" if depth else "extra")
                + ")"
            )
        if saw_braces and not braced and not self.notes:
            self.notes.append("written as a brace list without TensorType(...)")
        items = [part for part in parts if part]
        if len(items) < len(parts) - (1 if parts and not parts[-1] else 0):
            self.notes.append("an empty item between commas")
        if not items:
            self.unreadable("it names no dtype")
            return None
        dtypes: list[DataType] = []
        sets: list[str] = []
        ordered: list[str] = []  # spec names of the items, in header order
        for item in items:
            read = self.item(tuple(item), inside=len(items) > 1)
            if isinstance(read, str):
                sets.append(read)
                ordered.append(read)
            elif read is not None:
                dtypes.append(read)
                ordered.append(dtype_names.spec_name(read))
        if not self.ok:
            return None
        if len(sets) == 1 and not dtypes:
            return NamedSet(sets[0])
        if sets:
            self.notes.append(
                "a named set in a list with other types, which C++ cannot "
                "evaluate (GE's TensorType is made of DataType values only, and "
                "has no union of a set and dtypes): read as their union"
            )
        repeated = [dt for dt in dict.fromkeys(dtypes) if dtypes.count(dt) > 1]
        if repeated:
            self.notes.append(
                "repeated " + ", ".join(dt.name for dt in repeated) + " (read once)"
            )
        return DtypeList(tuple(dict.fromkeys(ordered)))

    def item(self, item: tuple[Token, ...], inside: bool) -> DataType | str | None:
        """One item: a dtype, or a named set's name."""
        rest = list(item)
        if len(rest) >= 3 and rest[0].text == "ge" and rest[1].is_punct("::"):
            rest = rest[2:]
        qualified = False
        if len(rest) >= 3 and rest[0].text == "TensorType" and rest[1].is_punct("::"):
            rest = rest[2:]
            qualified = True
        if not rest or rest[0].kind != ID:
            self.unreadable(f"'{spell(item)}' is not a dtype")
            return None
        name = rest[0].text
        called = len(rest) == 3 and rest[1].is_punct("(") and rest[2].is_punct(")")
        if len(rest) != 1 and not called:
            self.unreadable(f"'{spell(item)}' is not a dtype")
            return None
        reading = dtype_names.read(name)
        if reading.named_set is not None:
            if not called or not (qualified or inside):
                self.notes.append(
                    f"the named set {name} written without "
                    + ("TensorType::" if not qualified else "")
                    + (" and " if not qualified and not called else "")
                    + ("()" if not called else "")
                )
            return name
        if called or qualified:
            meant = dtype_names.named_set_suggestion(name)
            self.unreadable(
                f"'{spell(item)}' is not a named set",
                (
                    f"did you mean TensorType::{meant}()? (named sets are "
                    "case-sensitive)"
                    if meant
                    else None
                ),
            )
            return None
        if reading.dtype is not None:
            if reading.dtype in dtype_names.MARKERS:
                self.fail(
                    "I202",
                    rest[0].offset,
                    f"{name} is a marker of GE's DataType, not a type",
                    "remove it from the list",
                )
                return None
            return reading.dtype
        self.unknown(rest[0], reading)
        if reading.alias is not None and self.fix_dtypes:
            return reading.alias
        return None

    def unknown(self, token: Token, reading: dtype_names.Reading) -> None:
        name = token.text
        if reading.alias is not None and self.fix_dtypes:
            self.report(
                "I302",
                token.offset,
                f"{self.what}: {name} read as {dtype_names.describe(reading.alias.name)}, "
                "as GE's string table reads it",
                f"write {reading.alias.name} in the header",
            )
            return
        if reading.alias is not None:
            hint = (
                f"GE's string table reads it as {reading.alias.name}: pass "
                f"--fix-dtypes to import it as {reading.alias.spec_name}, or write "
                f"{reading.alias.name}"
            )
        elif reading.suggestion is not None:
            hint = f"did you mean {dtype_names.describe(reading.suggestion)}?"
        else:
            hint = "write a DataType enumerator (DT_FLOAT, ...) or a named set"
        self.fail(
            "I202",
            token.offset,
            f"{name} is not a DataType enumerator or named set (the macros only "
            "stringify it, so GE never notices)",
            hint,
        )

    # -- the forms ---------------------------------------------------------------

    def tensor_type(self, tokens: tuple[Token, ...]) -> DtypeList | NamedSet | None:
        """``TensorType(...)``, ``TensorType{...}``, ``TensorType::X()``, or
        a bare list; ``ge::`` allowed in front."""
        if len(tokens) >= 2 and tokens[0].text == "ge" and tokens[1].is_punct("::"):
            tokens = tokens[2:]
        if tokens and tokens[0].kind == ID and tokens[0].text == "TensorType":
            if len(tokens) >= 2 and tokens[1].is_punct("::"):
                return self.items(tokens, braced=False)
            if (
                len(tokens) >= 3
                and tokens[1].is_punct("(")
                and tokens[-1].is_punct(")")
            ):
                inner = tokens[2:-1]
                if inner and inner[0].is_punct("{"):
                    return self.items(inner, braced=True)
                before = len(self.notes)
                found = self.items(inner, braced=False)
                commas = sum(1 for t in inner if t.is_comma)
                if found is not None and len(self.notes) == before and commas:
                    self.notes.append("written without braces")
                return found
            if len(tokens) >= 3 and tokens[1].is_punct("{"):
                self.notes.append("written without parentheses around the braces")
                return self.items(tokens[1:], braced=True)
            self.unreadable("TensorType must be followed by (...) or ::Set()")
            return None
        if not tokens:
            self.unreadable("it is empty")
            return None
        before = len(self.notes)
        found = self.items(tokens, braced=False)
        if found is not None and len(self.notes) == before:
            self.notes.append("written without TensorType(...)")
        return found

    def finish(self, value: DtypeRef | Range | None) -> DtypeRef | Range | None:
        if not self.ok:
            return None
        if self.notes and value is not None:
            self.report(
                "I301",
                self.offset,
                f"{self.what}: read {spell(self.tokens)} as {describe(value)}: "
                + "; ".join(self.notes),
                _hint(value),
            )
        return value


def _hint(value: DtypeRef | Range) -> str:
    spelled = cpp_spelling(value)
    if len(spelled) <= 60:
        return f"write {spelled}"
    inner = value.inner if isinstance(value, ListOf) else value
    if isinstance(inner, DtypeList) and any(
        n in NAMED_TENSOR_TYPES for n in inner.names
    ):
        return (
            "write the members of the union as GE's TensorType takes them, "
            "TensorType({DT_A, DT_B, ...}) (gen-ops renders the spec's union so)"
        )
    return "write the list in GE's grammar, TensorType({DT_A, DT_B, ...})"


def members(names: tuple[str, ...]) -> tuple[str, ...]:
    """The spec names of the dtypes a list of dtypes and named sets holds:
    each named set's members in DataType order, each dtype where it stands;
    each once (as gen-ops' ``DtypeSet.dtypes``)."""
    out: list[str] = []
    for name in names:
        if name in NAMED_TENSOR_TYPES:
            out += [dt.spec_name for dt in sorted(NAMED_TENSOR_TYPES[name].types)]
        else:
            out.append(name)
    return tuple(dict.fromkeys(out))


def describe(value: DtypeRef | Range) -> str:
    """A spec-side spelling for messages: ``[float32, bool]``."""
    if isinstance(value, VarRef):
        return f"type variable {value.name}"
    if isinstance(value, NamedSet):
        return value.name
    if isinstance(value, DtypeList):
        return "[" + ", ".join(value.names) + "]"
    if isinstance(value, Promote):
        return "promote [" + ", ".join(value.vars) + "]"
    return "list of " + describe(value.inner)


def cpp_spelling(value: DtypeRef | Range) -> str:
    """GE's own spelling of ``value``, for hints."""
    if isinstance(value, VarRef):
        return f'"{value.name}"'
    if isinstance(value, NamedSet):
        return f"TensorType::{value.name}()"
    if isinstance(value, DtypeList):
        by_spec = {
            dt.spec_name: dt.name for dt in DataType if dt not in dtype_names.MARKERS
        }
        return (
            "TensorType({" + ", ".join(by_spec[n] for n in members(value.names)) + "})"
        )
    if isinstance(value, Promote):
        return "Promote({" + ", ".join(f'"{n}"' for n in value.vars) + "})"
    return f"ListTensorType({cpp_spelling(value.inner)})"


def _identifier(text: str) -> bool:
    """A C identifier."""
    return text.isascii() and text.isidentifier()


def read_dtype(
    tokens: tuple[Token, ...],
    declared: frozenset[str],
    fix_dtypes: bool,
    report: OpReporter,
    what: str,
) -> DtypeRef | None:
    """The dtype of an input or output; None after an error (reported)."""
    reader = _Reader(report, what, fix_dtypes, tokens)
    if len(tokens) == 1 and tokens[0].kind == STR:
        name = tokens[0].text[1:-1]
        if not _identifier(name):
            reader.unreadable("a quoted dtype must be a type variable's name")
            return None
        if name not in declared:
            reader.fail(
                "I204",
                tokens[0].offset,
                f"type variable {name} is not declared by DATATYPE",
                f"add .DATATYPE({name}, TensorType({{...}})) to the op",
            )
            return None
        return VarRef(name)
    if len(tokens) == 1 and tokens[0].kind == ID and tokens[0].text in declared:
        reader.notes.append("a type variable without quotes")
        return reader.finish(VarRef(tokens[0].text))  # type: ignore[return-value]
    if len(tokens) == 1 and tokens[0].kind == ID:
        reading = dtype_names.read(tokens[0].text)
        if not reading.known and reading.alias is None and reading.suggestion is None:
            reader.fail(
                "I204",
                tokens[0].offset,
                f"{tokens[0].text} is neither a type variable declared by DATATYPE "
                "nor a DataType enumerator",
                f'declare it with .DATATYPE({tokens[0].text}, ...) and quote it: "{tokens[0].text}"',
            )
            return None
    if (
        tokens
        and tokens[0].kind == ID
        and tokens[0].text in ("ListTensorType", "Promote")
    ):
        reader.unreadable(
            f"{tokens[0].text} belongs in DATATYPE, not in an input or output"
        )
        return None
    return reader.finish(reader.tensor_type(tokens))  # type: ignore[return-value]


def read_range(
    tokens: tuple[Token, ...],
    declared: frozenset[str],
    fix_dtypes: bool,
    report: OpReporter,
    what: str,
) -> Range | None:
    """DATATYPE's range; None after an error (reported). Promote lists type
    variables that DATATYPE declares (GE promotes symbols, not inputs: I204)."""
    reader = _Reader(report, what, fix_dtypes, tokens)
    if (
        len(tokens) >= 3
        and tokens[0].kind == ID
        and tokens[1].is_punct("(")
        and tokens[-1].is_punct(")")
    ):
        head = tokens[0].text
        inner = tokens[2:-1]
        if head == "Promote":
            names = [t for t in inner if t.kind == STR]
            others = [
                t
                for t in inner
                if t.kind != STR and not t.is_comma and t.text not in "{}"
            ]
            if not names or others:
                reader.unreadable(
                    'Promote takes a list of type variables, Promote({"T1", "T2"})'
                )
                return None
            for token in names:
                if token.text[1:-1] not in declared:
                    reader.fail(
                        "I204",
                        token.offset,
                        f"Promote names {token.text}, which no DATATYPE declares "
                        "(GE promotes type variables, not inputs)",
                        'list the type variables of the inputs: Promote({"T1", "T2"})',
                    )
            if not reader.ok:
                return None
            return reader.finish(Promote(tuple(t.text[1:-1] for t in names)))  # type: ignore[return-value]
        if head == "ListTensorType":
            inner_value = reader.tensor_type(inner)
            if inner_value is None:
                return None
            return reader.finish(ListOf(inner_value))  # type: ignore[return-value]
    return reader.finish(reader.tensor_type(tokens))  # type: ignore[return-value]
