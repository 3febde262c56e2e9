"""An op declared more than once: import it once, or say why not.

Note [Duplicates]: real header sets declare many ops in several headers
(an op's own ``<op>_proto.h`` and a family header, say). Declarations are
compared by their shape (``model.OpShape``: everything REG_OP declares; docs
and positions aside):

- all the same (a list of dtypes compared as a set: declarations that
  differ only in the order of a list, ``{DT_FLOAT16, DT_FLOAT}`` here and
  ``{DT_FLOAT, DT_FLOAT16}`` there, are the same op): the op is imported once, from the first declaration (in
  the order the headers were given, a directory's headers sorted), or the
  one ``--prefer`` picks; its doc comes from that declaration;
- different: each declaration that differs from the first is reported with
  both places and what differs. Without ``--prefer`` that is an error
  (I206) and the op is not imported; with a ``--prefer`` rule that picks
  one, it is a warning (I306) and the picked declaration is imported.

``--prefer`` may be given several times and is tried in order: a header
path (or a directory holding it) picks the declaration from that header;
FIRST and LAST pick by order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path

from gen_ops.base.diagnostics import Diagnostic, Sink
from gen_ops.importer.dtype_expr import describe, members
from gen_ops.importer.headers import resolved
from gen_ops.importer.model import (
    Attr,
    Default,
    DtypeList,
    ImportedOp,
    ListOf,
    OpShape,
    Slot,
)
from gen_ops.importer.yaml_writer import value

FIRST, LAST = "FIRST", "LAST"


@dataclass(frozen=True)
class Found:
    """A declaration that converted, the header it is in (resolved), and
    its spec text (written in the worker that read the header)."""

    op: ImportedOp
    header: Path
    text: str = ""
    # gen-ops' own errors on the spec (driver.check_spec; I208)
    refusal: tuple[Diagnostic, ...] = dataclass_field(default=(), compare=False)


@dataclass(frozen=True)
class Outcome:
    chosen: tuple[Found, ...]
    merged: int  # declarations that were the same as one imported
    rejected: tuple[str, ...]  # op types not imported (I206)


def _picks(rule: str, header: Path) -> bool:
    path = resolved(Path(rule))
    return header == path or path in header.parents


def choose(candidates: Sequence[Found], prefer: Sequence[str]) -> Found | None:
    """The declaration ``--prefer`` picks, or None when no rule applies."""
    for rule in prefer:
        if rule.upper() == FIRST:
            return candidates[0]
        if rule.upper() == LAST:
            return candidates[-1]
        picked = [c for c in candidates if _picks(rule, c.header)]
        if picked:
            return picked[0]
    return None


def _show(item: object) -> str:
    if item is None:
        return "none"
    if isinstance(item, Default):
        return value(item.value)
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str):
        return item
    if dataclasses.is_dataclass(item):
        try:
            return describe(item)  # type: ignore[arg-type]
        except (AssertionError, AttributeError):
            return str(item)
    return str(item)


_ROLES = {
    "type_vars": "type variable",
    "inputs": "input",
    "outputs": "output",
    "attrs": "attr",
    "graphs": "graph",
}


def difference(a: OpShape, b: OpShape) -> str:
    """What first differs between two shapes of one op, in words."""
    for field, role in _ROLES.items():
        left, right = getattr(a, field), getattr(b, field)
        if left == right:
            continue
        if len(left) != len(right):
            return f"{len(left)} {role}(s) there, {len(right)} here"
        for one, other in zip(left, right):
            if one == other:
                continue
            if one.name != other.name:
                return f"{role} '{one.name}' there, '{other.name}' here"
            for part in dataclasses.fields(one):
                mine, theirs = getattr(one, part.name), getattr(other, part.name)
                if _unordered(mine) != _unordered(theirs):
                    label = "dtypes" if part.name == "range" else part.name
                    if isinstance(one, Attr) and part.name == "dropped":
                        label = "default"
                    return (
                        f"{role} '{one.name}': {label} {_show(mine)} there, "
                        f"{_show(theirs)} here"
                    )
    return "the declarations differ"


def _unordered(dtype: object) -> object:
    if isinstance(dtype, DtypeList):
        return frozenset(members(dtype.names))
    if isinstance(dtype, ListOf):
        return ("list of", _unordered(dtype.inner))
    return dtype


def _slot_meaning(slot: Slot) -> object:
    """A slot with its dtype as the set of its members (not a Slot: the set
    is no dtype expression)."""
    return (slot.name, _unordered(slot.dtype), slot.optional, slot.dynamic)


def meaning(shape: OpShape) -> object:
    """What ``shape`` declares, a list of dtypes as the set of its members:
    two declarations with equal meanings are one op (Note [Duplicates])."""
    return (
        shape.op_type,
        tuple((v.name, _unordered(v.range)) for v in shape.type_vars),
        tuple(_slot_meaning(s) for s in shape.inputs),
        tuple(_slot_meaning(s) for s in shape.outputs),
        shape.attrs,
        shape.graphs,
    )


def merge(found: Sequence[Found], prefer: Sequence[str], sink: Sink) -> Outcome:
    """One op per op type, in the order found; reports I206 and I306."""
    by_type: dict[str, list[Found]] = {}
    for item in found:
        by_type.setdefault(item.op.op_type, []).append(item)
    chosen: list[Found] = []
    merged = 0
    rejected: list[str] = []
    for op_type, candidates in by_type.items():
        first = candidates[0]
        same = meaning(first.op.shape)
        differing = [c for c in candidates if meaning(c.op.shape) != same]
        picked = choose(candidates, prefer)
        if not differing:
            chosen.append(picked or first)
            merged += len(candidates) - 1
            continue
        if picked is None:
            for other in differing:
                _report(sink, "I206", other, first, None)
            rejected.append(op_type)
            continue
        wanted = meaning(picked.op.shape)
        for other in candidates:
            if meaning(other.op.shape) != wanted:
                _report(sink, "I306", other, picked, picked)
        chosen.append(picked)
        merged += sum(1 for c in candidates if meaning(c.op.shape) == wanted) - 1
    return Outcome(tuple(chosen), merged, tuple(rejected))


def _report(
    sink: Sink, code: str, here: Found, there: Found, picked: Found | None
) -> None:
    """At ``here``: how it differs from the declaration ``there``."""
    message = (
        f"{here.op.op_type}: this declaration differs from the one at "
        f"{there.op.span} ({difference(there.op.shape, here.op.shape)})"
    )
    if picked is None:
        sink.emit(
            code,
            here.op.span,
            message + "; the op is not imported",
            "make the declarations agree, or choose one with --prefer FIRST, "
            "--prefer LAST or --prefer <header>",
        )
    else:
        sink.emit(
            code,
            here.op.span,
            message + "; --prefer imports that one",
            "make the declarations agree",
        )
