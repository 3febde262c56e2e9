"""What changed between two records of one op, each change under its rule
(``rules.py``).

Elements are compared as GE's planner compares them, by position in IR
order: an element at the same index under another name is renamed; one
whose name is gone is removed; one the new op puts before an element the
old op had is moved (a positional caller would bind it to the wrong
parameter). Dtype symbols are compared as sets (``TensorType({DT_A, DT_B})``
and ``TensorType({DT_B,DT_A})`` are the same), defaults as JSON values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gen_ops.history.records import AttrRecord, Element, OpRecord
from gen_ops.history.rules import Rule

Param = Element | AttrRecord


@dataclass(frozen=True)
class Change:
    """One change. ``template`` words it with ``{0}``, ``{1}``, ... for
    ``names`` (which the reader quotes); ``element`` is the element of the
    newer op it is about, as ``(family, name)``, or None for the op itself
    (a removed element is about the op)."""

    rule: Rule
    template: str
    names: tuple[str, ...]
    element: tuple[str, str] | None = None

    def text(self, quote: Callable[[str], str]) -> str:
        return self.template.format(*(quote(n) for n in self.names))

    def hint(self, quote: Callable[[str], str]) -> str:
        return self.rule.hint(tuple(quote(n) for n in self.names), self.names)


@dataclass(frozen=True)
class _Family:
    """How one parameter list is compared: its word and its rules."""

    word: str
    removed: Rule
    renamed: Rule
    moved: Rule
    kind: Rule  # the type changed
    needed: Rule  # a new one callers must pass
    optional: Rule | None  # a new one callers may leave out (None: never)


_INPUTS = _Family(
    "input",
    Rule.INPUT_REMOVED,
    Rule.INPUT_RENAMED,
    Rule.INPUT_MOVED,
    Rule.INPUT_KIND,
    Rule.INPUT_NEEDED,
    Rule.NEW_OPTIONAL_INPUT,
)
_ATTRS = _Family(
    "attr",
    Rule.ATTR_REMOVED,
    Rule.ATTR_RENAMED,
    Rule.ATTR_MOVED,
    Rule.ATTR_TYPE,
    Rule.ATTR_NEEDED,
    Rule.NEW_OPTIONAL_ATTR,
)
_OUTPUTS = _Family(
    "output", Rule.OUTPUTS, Rule.OUTPUTS, Rule.OUTPUTS, Rule.OUTPUTS, Rule.OUTPUTS, None
)
_SUBGRAPHS = _Family(
    "subgraph",
    Rule.SUBGRAPHS,
    Rule.SUBGRAPHS,
    Rule.SUBGRAPHS,
    Rule.SUBGRAPHS,
    Rule.SUBGRAPHS,
    None,
)


def _lit(text: str) -> str:
    """``text`` written into a template as it is (not a quoted name)."""
    return text.replace("{", "{{").replace("}", "}}")


_TENSOR_TYPE = re.compile(r"TensorType\(\{(.*)\}\)")


@lru_cache(maxsize=4096)
def dtype_key(symbol: str | None) -> str | None:
    """A dtype symbol without spaces, a listed set in one order."""
    if symbol is None:
        return None
    compact = "".join(symbol.split())
    match = _TENSOR_TYPE.fullmatch(compact)
    if match is None:
        return compact
    items = sorted({item for item in match.group(1).split(",") if item})
    return "TensorType({" + ",".join(items) + "})"


def default_key(text: str | None) -> Any:
    """A default_value as the JSON value it holds (its text if none)."""
    if text is None:
        return None
    try:
        return ("value", json.loads(text))
    except ValueError:
        return ("text", text)


def _optional(param: Param) -> bool:
    if isinstance(param, AttrRecord):
        return not param.required
    return param.optional


def _params(
    family: _Family, old: Sequence[Param], new: Sequence[Param]
) -> list[Change]:
    """Removed, renamed, moved, retyped and new elements of one list."""
    if [(p.name, p.type) for p in old] == [(p.name, p.type) for p in new]:
        return []  # the common case: the same names and kinds in the same order
    word = family.word
    old_at = {p.name: i for i, p in enumerate(old)}
    new_at = {p.name: i for i, p in enumerate(new)}
    gone = {old_at[p.name]: p for p in old if p.name not in new_at}
    pairs: list[tuple[Param, Param]] = []  # (old, new) kept or renamed, new order
    added: list[Param] = []
    changes: list[Change] = []
    for i, param in enumerate(new):
        kept_as = next(
            (n for n in param.former if n in old_at and n not in new_at), None
        )
        if param.name in old_at:
            pairs.append((old[old_at[param.name]], param))
        elif kept_as is not None and family.optional is not None:
            # renamed_from: the builder keeps the old name as an alias
            was = gone.pop(old_at[kept_as])
            pairs.append((was, param))
            changes.append(
                Change(
                    Rule.RENAMED_WITH_ALIAS,
                    f"{word} {{0}} renamed to {{1}}, the old name kept as an alias",
                    (was.name, param.name),
                    (word, param.name),
                )
            )
        elif i in gone:  # another name at the same index
            was = gone.pop(i)
            pairs.append((was, param))
            changes.append(
                Change(
                    family.renamed,
                    f"{word} {{0}} renamed to {{1}}",
                    (was.name, param.name),
                    (word, param.name),
                )
            )
        else:
            added.append(param)
    changes += [
        Change(family.removed, f"{word} {{0}} removed", (was.name,))
        for was in gone.values()
    ]
    changes += _moved(family, pairs, old_at, new_at)
    for param in added:
        changes.append(_added(family, param, pairs, new_at))
    what = "type changed" if family is _ATTRS else "changed"
    for was, now in pairs:
        if was.type != now.type:
            changes.append(
                Change(
                    family.kind,
                    f"{word} {{0}} {what} from {_lit(was.type)} to {_lit(now.type)}",
                    (now.name, was.type),
                    (word, now.name),
                )
            )
    return changes


def _moved(
    family: _Family,
    pairs: list[tuple[Param, Param]],
    old_at: dict[str, int],
    new_at: dict[str, int],
) -> list[Change]:
    """Kept elements whose order among themselves changed."""
    by_old = sorted(pairs, key=lambda pair: old_at[pair[0].name])
    return [
        Change(
            family.moved,
            f"{family.word} {{0}} moved from position {old_at[was.name] + 1} to "
            f"{new_at[now.name] + 1}",
            (now.name,),
            (family.word, now.name),
        )
        for (was, now), (_, first) in zip(pairs, by_old)
        if first is not now
    ]


def _added(
    family: _Family,
    param: Param,
    pairs: list[tuple[Param, Param]],
    new_at: dict[str, int],
) -> Change:
    """A new element: one callers must pass, one put before an element of
    the release, or a new optional one."""
    word, where = family.word, (family.word, param.name)
    if family.optional is None:
        return Change(family.needed, f"new {word} {{0}}", (param.name,), where)
    if not _optional(param):
        if isinstance(param, AttrRecord):
            return Change(
                family.needed, "new attr {0} is required", (param.name,), where
            )
        return Change(
            family.needed,
            f"new {word} {{0}} is {_lit(param.type)}, not OPTIONAL_INPUT",
            (param.name,),
            where,
        )
    at = new_at[param.name]
    later = [now for _, now in pairs if new_at[now.name] > at]
    if later:
        return Change(
            family.moved,
            f"new {word} {{0}} comes before {word} {{1}} of the release",
            (param.name, later[0].name),
            where,
        )
    return Change(family.optional, f"new optional {word} {{0}}", (param.name,), where)


def _same_kept(old: Sequence[Param], new: Sequence[Param]) -> list[tuple[Param, Param]]:
    """The elements kept under their names (or an earlier name the new one
    keeps as an alias), as (old, new)."""
    old_by_name = {p.name: p for p in old}
    if not any(p.former for p in new):  # the common case: no earlier names
        return [(old_by_name[p.name], p) for p in new if p.name in old_by_name]
    kept = []
    for p in new:
        name = next((n for n in (p.name, *p.former) if n in old_by_name), None)
        if name is not None:
            kept.append((old_by_name[name], p))
    return kept


def _deprecations(
    word: str, old: Sequence[Param], new: Sequence[Param]
) -> list[Change]:
    """Parameters whose deprecated: is new."""
    if not any(p.deprecated for p in new):
        return []
    return [
        Change(
            Rule.PARAM_DEPRECATED,
            f"{word} {{0}} deprecated in {_lit(now.deprecated)}",
            (now.name,),
            (word, now.name),
        )
        for was, now in _same_kept(old, new)
        if now.deprecated and not was.deprecated
    ]


def _dtypes(
    word: str, rule: Rule, old: Sequence[Element], new: Sequence[Element]
) -> list[Change]:
    """Inputs (or outputs) kept under their names whose dtype symbol names
    another set; a symbol a release did not record is no change."""
    if [p.dtype for p in old] == [p.dtype for p in new]:
        return []
    changes = []
    for was, now in _same_kept(old, new):
        assert isinstance(was, Element) and isinstance(now, Element)
        before, after = dtype_key(was.dtype), dtype_key(now.dtype)
        if before is not None and after is not None and before != after:
            changes.append(
                Change(
                    rule,
                    f"{word} {{0}} dtype changed from {{1}} to {{2}}",
                    (now.name, str(was.dtype), str(now.dtype)),
                    (word, now.name),
                )
            )
    return changes


def _inputs(old: OpRecord, new: OpRecord) -> list[Change]:
    changes = _params(_INPUTS, old.inputs, new.inputs)
    changes += _deprecations("input", old.inputs, new.inputs)
    return changes + _dtypes("input", Rule.INPUT_DTYPE, old.inputs, new.inputs)


def _attrs(old: OpRecord, new: OpRecord) -> list[Change]:
    changes = _params(_ATTRS, old.attrs, new.attrs)
    changes += _deprecations("attr", old.attrs, new.attrs)
    if [(a.required, a.default) for a in old.attrs] == [
        (a.required, a.default) for a in new.attrs
    ]:
        return changes  # no flag or default changed (renames are in changes)
    for was, now in _same_kept(old.attrs, new.attrs):
        assert isinstance(was, AttrRecord) and isinstance(now, AttrRecord)
        where = ("attr", now.name)
        if was.required != now.required:
            before, after = "required", "optional"
            if not was.required:
                before, after = after, before
            changes.append(
                Change(
                    Rule.ATTR_REQUIRED,
                    f"attr {{0}} changed from {before} to {after}",
                    (now.name, before),
                    where,
                )
            )
        elif (
            was.default != now.default
            and not now.required
            and was.type == now.type
            and default_key(was.default) != default_key(now.default)
        ):
            changes.append(
                Change(
                    Rule.ATTR_DEFAULT,
                    "attr {0} default changed from {1} to {2}",
                    (now.name, str(was.default), str(now.default)),
                    where,
                )
            )
    return changes


def _outputs(old: OpRecord, new: OpRecord) -> list[Change]:
    changes = _params(_OUTPUTS, old.outputs, new.outputs)
    return changes + _dtypes("output", Rule.OUTPUTS, old.outputs, new.outputs)


def _docs(old: OpRecord, new: OpRecord) -> list[Change]:
    """Doc changes, where both records keep docs (GE's registries keep
    none: then an absent doc is no change)."""
    if old.doc is None or new.doc is None:
        return []
    changes = []
    if old.doc != new.doc:
        changes.append(Change(Rule.DOC, "doc of the op changed", ()))
    families = (
        ("input", old.inputs, new.inputs),
        ("output", old.outputs, new.outputs),
        ("attr", old.attrs, new.attrs),
        ("subgraph", old.subgraphs, new.subgraphs),
    )
    for word, before, after in families:
        if before is after or [p.doc for p in before] == [p.doc for p in after]:
            continue
        docs = {p.name: p.doc for p in before}
        changes += [
            Change(Rule.DOC, f"doc of {word} {{0}} changed", (p.name,), (word, p.name))
            for p in after
            if p.name in docs and docs[p.name] != p.doc
        ]
    return changes


def compare(old: OpRecord, new: OpRecord) -> list[Change]:
    """Every change from ``old`` to ``new`` (records of one op). A list the
    two share (Note [Shared records] in records) has none."""
    if old == new:
        return []
    changes = []
    if old.inputs is not new.inputs:
        changes += _inputs(old, new)
    if old.attrs is not new.attrs:
        changes += _attrs(old, new)
    if old.outputs is not new.outputs:
        changes += _outputs(old, new)
    if old.subgraphs is not new.subgraphs:
        changes += _params(_SUBGRAPHS, old.subgraphs, new.subgraphs)
    if new.deprecated and not old.deprecated:
        changes.append(
            Change(Rule.DEPRECATED, f"op deprecated in {_lit(new.deprecated)}", ())
        )
    return changes + _docs(old, new)
