"""Two imported declarations of one op, compared by meaning: the header's,
and the one read back from the header gen-ops renders from its spec
(``gen-ops roundtrip``, docs/importing.md section 14).

Compared, each kind of element in IR order: type variables, inputs,
outputs, attrs and graphs by name; then an input's kind (required, optional,
dynamic), an output's and a graph's (static, dynamic), every dtype (a type
variable by name, a named set by name, a list of dtypes as a set, a named
set in a list by its members, Promote and ListTensorType by what they hold), an attr's type and its default as a
value (``1e-5`` and ``0.00001`` are one float, NaN is NaN, an int default
spelled ``DT_INT32`` is 3). Docs and spellings are not compared. A default
the importer could not read (I305) differs from everything: the header had
one, and its value is unknown.

Each difference names the element's place in both headers; an element one
side lacks is placed at the other side's ``REG_OP`` name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gen_ops.base.diagnostics import Span
from gen_ops.importer.dtype_expr import members
from gen_ops.importer.model import (
    Attr,
    DtypeList,
    DtypeRef,
    Graph,
    ImportedOp,
    ListOf,
    NamedSet,
    Number,
    Promote,
    Range,
    Slot,
    TypeVar,
    Value,
    VarRef,
)
from gen_ops.importer.yaml_writer import value as yaml_value
from gen_ops.lowering.reg_op import UNDECLARABLE_ATTR_TYPES

THERE = "in the rendered header"
# Why each kind of difference arises, and what to do.
_BUG = "gen-ops renders this faithfully, so it is a bug: please report it"
HINTS = {
    "R201": "gen-ops declares every element REG_OP can declare; one it leaves out "
    "is warning W905 of the imported spec (docs/importing.md section 14)",
    "R202": _BUG,
    "R203": _BUG,
    "R204": _BUG,
    "R205": _BUG,
}
UNREAD_DEFAULT_HINT = (
    "the import could not read the default (I305), so the spec has none: write "
    "it as a literal in the header, or add it to the spec by hand"
)


@dataclass(frozen=True)
class Difference:
    code: str
    here: Span  # in the original header
    there: Span  # in the rendered header
    message: str  # naming ``there``; without the op's name
    hint: str


Element = TypeVar | Slot | Attr | Graph


@dataclass(frozen=True)
class _Role:
    name: str  # as Place.role has it
    plural: str
    items: Callable[[ImportedOp], Sequence[Element]]


_ROLES = (
    _Role("type variable", "type variables", lambda op: op.shape.type_vars),
    _Role("input", "inputs", lambda op: op.shape.inputs),
    _Role("output", "outputs", lambda op: op.shape.outputs),
    _Role("attr", "attrs", lambda op: op.shape.attrs),
    _Role("graph", "graphs", lambda op: op.shape.graphs),
)


def describe_dtype(dtype: DtypeRef | Range) -> str:
    if isinstance(dtype, VarRef):
        return f"type variable {dtype.name}"
    if isinstance(dtype, NamedSet):
        return dtype.name
    if isinstance(dtype, DtypeList):
        return "[" + ", ".join(dtype.names) + "]"
    if isinstance(dtype, Promote):
        return "Promote(" + ", ".join(dtype.vars) + ")"
    return "a list of " + describe_dtype(dtype.inner)


def dtype_meaning(dtype: DtypeRef | Range) -> Any:
    """What a dtype means: a list of dtypes is a set, and a named set in a
    list (a union) is its members (gen-ops renders a union so)."""
    if isinstance(dtype, DtypeList):
        return ("dtypes", frozenset(members(dtype.names)))
    if isinstance(dtype, ListOf):
        return ("list of", dtype_meaning(dtype.inner))
    return dtype


def value_meaning(value: Value) -> Any:
    """A default as a value: floats by number (NaN equal to NaN), bools
    apart from ints, lists item by item."""
    if isinstance(value, Number):
        number = float(value.text.replace(".inf", "inf").replace(".nan", "nan"))
        return ("float", "nan" if math.isnan(number) else number)
    if isinstance(value, tuple):
        return ("list", tuple(value_meaning(item) for item in value))
    return (type(value).__name__, value)


def _default(attr: Attr) -> tuple[Any, str]:
    """The meaning of an attr's default, and how a message shows it."""
    if attr.dropped is not None:
        return (("unread", id(attr)), f"default {attr.dropped} (not imported)")
    if attr.default is None:
        return (None, "no default (REQUIRED_ATTR)")
    return (
        value_meaning(attr.default.value),
        f"default {yaml_value(attr.default.value)}",
    )


def _kind(item: Element) -> str:
    if isinstance(item, Slot):
        if item.dynamic:
            return "dynamic"
        return "optional" if item.optional else "required"
    if isinstance(item, Graph):
        return "dynamic" if item.dynamic else "static"
    return ""


def _by_name(items: Sequence[Element]) -> dict[str, Element]:
    """The first element of each name, in order."""
    found: dict[str, Element] = {}
    for item in items:
        found.setdefault(item.name, item)
    return found


class _Comparison:
    def __init__(self, original: ImportedOp, rendered: ImportedOp) -> None:
        self.original = original
        self.rendered = rendered
        self.found: list[Difference] = []

    def at(self, op: ImportedOp, role: str, name: str, field: str) -> Span:
        place = op.place(role, name)
        if place is None:
            return op.span
        if field == "type":
            return place.type_at
        if field == "default":
            return place.default_at or place.at
        return place.at

    def add(
        self,
        code: str,
        place: tuple[str, str, str],
        subject: str,
        mine: str,
        theirs: str,
        hint: str | None = None,
    ) -> None:
        """``subject: <mine> here, <theirs> in the rendered header <place>``,
        at the element's ``place`` (role, name, field) in both headers."""
        here = self.at(self.original, *place)
        there = self.at(self.rendered, *place)
        message = f"{subject}: {mine} here, {theirs} {THERE} {there}"
        self.found.append(Difference(code, here, there, message, hint or HINTS[code]))

    def one_side(self, role: str, name: str, original_has_it: bool) -> None:
        """R201 for an element only one side has, placed at the other side's
        REG_OP name."""
        if original_has_it:
            here, there = self.at(self.original, role, name, "name"), self.rendered.span
            message = f"{role} '{name}' is not {THERE} (REG_OP at {there})"
            attr = next((a for a in self.original.shape.attrs if a.name == name), None)
            if role == "attr" and attr and attr.type in UNDECLARABLE_ATTR_TYPES:
                message += f": gen-ops leaves {attr.type.value} attrs out of REG_OP"
        else:
            here, there = self.original.span, self.at(self.rendered, role, name, "name")
            message = f"{role} '{name}' of the rendered header ({there}) is not here"
        self.found.append(Difference("R201", here, there, message, HINTS["R201"]))

    def role(self, role: _Role) -> None:
        mine = _by_name(role.items(self.original))
        theirs = _by_name(role.items(self.rendered))
        for name in mine:
            if name not in theirs:
                self.one_side(role.name, name, original_has_it=True)
        for name in theirs:
            if name not in mine:
                self.one_side(role.name, name, original_has_it=False)
        order = [name for name in mine if name in theirs]
        order_there = [name for name in theirs if name in mine]
        if order != order_there:
            self.add(
                "R201",
                (role.name, order[0], "name"),
                f"{role.plural} in another order",
                ", ".join(order),
                ", ".join(order_there),
            )
        for name, item in mine.items():
            if name in theirs:
                self.element(role.name, item, theirs[name])

    def element(self, role: str, mine: Element, theirs: Element) -> None:
        name = mine.name
        subject = f"{role} '{name}'"
        if _kind(mine) != _kind(theirs):
            self.add("R202", (role, name, "name"), subject, _kind(mine), _kind(theirs))
        if isinstance(mine, (Slot, TypeVar)):
            assert isinstance(theirs, (Slot, TypeVar))
            a = mine.dtype if isinstance(mine, Slot) else mine.range
            b = theirs.dtype if isinstance(theirs, Slot) else theirs.range
            if dtype_meaning(a) != dtype_meaning(b):
                self.add(
                    "R203",
                    (role, name, "type"),
                    subject,
                    describe_dtype(a),
                    describe_dtype(b),
                )
        if isinstance(mine, Attr):
            assert isinstance(theirs, Attr)
            self.attr(mine, theirs)

    def attr(self, mine: Attr, theirs: Attr) -> None:
        subject = f"attr '{mine.name}'"
        if mine.type is not theirs.type:
            self.add(
                "R204",
                ("attr", mine.name, "type"),
                subject,
                f"type {mine.type.ir_name}",
                f"type {theirs.type.ir_name}",
            )
            return  # its default means something else there
        meaning, shown = _default(mine)
        meaning_there, shown_there = _default(theirs)
        if meaning != meaning_there:
            self.add(
                "R205",
                ("attr", mine.name, "default"),
                subject,
                shown,
                shown_there,
                UNREAD_DEFAULT_HINT if mine.dropped is not None else None,
            )


def differences(original: ImportedOp, rendered: ImportedOp) -> list[Difference]:
    """Every difference in meaning between the two declarations of one op."""
    comparison = _Comparison(original, rendered)
    for role in _ROLES:
        comparison.role(role)
    return comparison.found
