"""One op as a release recorded it: the entry of ``operators.json``, read
and checked as GE's reader checks it (docs/ge-compat.md, "History
registry").

The records keep each parameter list in IR order with its kind, so that what
a caller of a release could pass is known: inputs bind by position (a
required input must be given, an optional one may be None, a dynamic one
takes a list), attrs by keyword (required ones must be given) and subgraphs
by position after the inputs (docs/ge-compat.md, "Builder calling
convention"). The current specs become records through the same export
(``lower_history.history_op``), so a release and the specs are compared in one
form.

Note [Shared records]: most entries of a registry repeat the op as the specs
or the release before recorded it, whole or all but a doc. ``parse`` is
given such entries already read (``known``, valid ones, with their
records): a parameter list equal to the same list of one of them is not
checked again but taken from its record, and a record equal to one of
theirs is that record. So an entry that differs in a doc only costs the
comparison of its lists, and ``diff.compare`` passes over a list the two
records share (the same tuple) at once. Equal is Python's ``==`` on the
JSON values, which takes ``1`` for ``true``: only ``required`` holds a
JSON boolean, so an attrs list is shared only when its flags are booleans.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gen_ops.history.jsonfile import JsonPath
from gen_ops.lowering.lower_history import history_op
from gen_ops.spec.model import OpSpec

INPUT_TYPES = ("INPUT", "OPTIONAL_INPUT", "DYNAMIC_INPUT")
OUTPUT_TYPES = ("OUTPUT", "DYNAMIC_OUTPUT")
SUBGRAPH_TYPES = ("STATIC", "DYNAMIC")


@dataclass(frozen=True, slots=True)
class Element:
    """An input, output or subgraph. ``type`` is GE's: an input's REG_OP
    macro, an output's likewise, a subgraph's STATIC or DYNAMIC."""

    name: str
    type: str
    dtype: str | None  # the dtype symbol (inputs and outputs), when recorded
    doc: str
    former: tuple[str, ...] = ()  # earlier names kept as aliases (ours)
    deprecated: str | None = None  # the release that deprecated it (ours)

    @property
    def optional(self) -> bool:
        return self.type == "OPTIONAL_INPUT"

    @property
    def dynamic(self) -> bool:
        return self.type.startswith("DYNAMIC")


@dataclass(frozen=True, slots=True)
class AttrRecord:
    name: str
    type: str  # GE's IR type name: Int, ListFloat, ...
    required: bool
    default: str | None  # default_value: a JSON literal stored in a string
    doc: str
    former: tuple[str, ...] = ()  # earlier names kept as aliases (ours)
    deprecated: str | None = None  # the release that deprecated it (ours)


@dataclass(frozen=True, slots=True)
class OpRecord:
    op_type: str
    inputs: tuple[Element, ...]
    outputs: tuple[Element, ...]
    attrs: tuple[AttrRecord, ...]
    subgraphs: tuple[Element, ...]
    doc: str | None  # None: the release records no docs (GE's registries)
    deprecated: str | None  # the version that deprecated the op (ours)


# Valid entries read before, each with its record (Note [Shared records]).
Known = Sequence[tuple[dict[str, Any], "OpRecord"]]


@dataclass(frozen=True)
class Invalid:
    """Why an entry is not an op GE reads: the value at ``path`` (from the
    entry) and what is wrong with it."""

    path: JsonPath
    reason: str


class _Refused(Exception):
    def __init__(self, path: JsonPath, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def _string(value: Any, path: JsonPath, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise _Refused(path, f"{what} must be a non-empty string, not {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else "a string"
    return "a list" if isinstance(value, list) else "an object"


def _extra(entry: dict[str, Any], key: str) -> str:
    """An added field (a doc): a string, or absent; anything else is
    ignored, as GE ignores fields it does not know."""
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def _evolution(raw: dict[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """Added fields of a parameter (ours; GE's reader passes over them): its
    earlier names and the release that deprecated it. Anything malformed
    is ignored, as GE ignores fields it does not know."""
    if "renamed_from" not in raw and "deprecated" not in raw:
        return (), None  # the common case
    former = raw.get("renamed_from")
    names: tuple[str, ...] = ()
    if type(former) is list:
        names = tuple(
            f["name"] for f in former if type(f) is dict and type(f.get("name")) is str
        )
    deprecated = raw.get("deprecated")
    return names, deprecated if type(deprecated) is str and deprecated else None


def _object(value: Any, path: JsonPath) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Refused(path, f"must be an object, not {_kind(value)}")
    return value


def _field(entry: dict[str, Any], key: str, path: JsonPath) -> Any:
    if key not in entry:
        raise _Refused(path, f"has no '{key}'")
    return entry[key]


def _flags(attrs: list[dict[str, Any]]) -> bool:
    """Whether the ``required`` flags of attrs equal to valid ones are
    booleans, as GE's reader wants (1 == true in Python)."""
    for attr in attrs:  # a loop: this runs for most entries of a registry
        if type(attr["required"]) is not bool:
            return False
    return True


def _same(entry: dict[str, Any], known: Known) -> OpRecord | None:
    """The record of an entry of ``known`` equal to ``entry``, if any."""
    for seen, record in known:
        if seen == entry and _flags(entry["attrs"]):
            return record
    return None


def _shared(items: Any, key: str, known: Known) -> Any:
    """The list ``key`` of the first record of ``known`` whose entry has an
    equal list there (Note [Shared records]); None if none has."""
    for entry, record in known:
        if entry[key] == items and (key != "attrs" or _flags(items)):
            return getattr(record, key)
    return None


def _elements(
    entry: dict[str, Any],
    key: str,
    types: tuple[str, ...],
    path: JsonPath,
    known: Known,
) -> tuple[Element, ...]:
    items = _field(entry, key, path)
    shared: tuple[Element, ...] | None = _shared(items, key, known)
    if shared is not None:
        return shared
    if not isinstance(items, list):
        raise _Refused(path + (key,), f"must be a list, not {_kind(items)}")
    found = tuple(_element(raw, types, path, key, i) for i, raw in enumerate(items))
    _unique([e.name for e in found], path + (key,))
    return found


def _element(
    raw: Any, types: tuple[str, ...], path: JsonPath, key: str, i: int
) -> Element:
    """One input, output or subgraph; the checks run at once for a valid
    one (a registry holds many), one by one to say what is wrong."""
    if type(raw) is dict:
        name, kind, dtype = raw.get("name"), raw.get("type"), raw.get("dtype")
        if (
            type(name) is str
            and name
            and type(kind) is str
            and kind in types
            and (dtype is None or type(dtype) is str)
        ):
            doc = raw.get("doc", "")
            former, deprecated = _evolution(raw)
            return Element(
                name, kind, dtype, doc if type(doc) is str else "", former, deprecated
            )
    where = path + (key, i)
    item = _object(raw, where)
    _string(_field(item, "name", where), where + ("name",), "name")
    kind = _field(item, "type", where)
    if kind not in types:
        raise _Refused(
            where + ("type",), f"type must be one of {', '.join(types)}, not {kind!r}"
        )
    raise _Refused(
        where + ("dtype",), f"dtype must be a string, not {_kind(item.get('dtype'))}"
    )


def _attrs(
    entry: dict[str, Any], path: JsonPath, known: Known
) -> tuple[AttrRecord, ...]:
    items = _field(entry, "attrs", path)
    shared: tuple[AttrRecord, ...] | None = _shared(items, "attrs", known)
    if shared is not None:
        return shared
    if not isinstance(items, list):
        raise _Refused(path + ("attrs",), f"must be a list, not {_kind(items)}")
    found = tuple(_attr(raw, path, i) for i, raw in enumerate(items))
    _unique([a.name for a in found], path + ("attrs",))
    return found


def _attr(raw: Any, path: JsonPath, i: int) -> AttrRecord:
    """One attr, checked as ``_element`` checks an element."""
    if type(raw) is dict:
        name, kind, required = raw.get("name"), raw.get("type"), raw.get("required")
        default = raw.get("default_value")
        if (
            type(name) is str
            and name
            and type(kind) is str
            and kind
            and type(required) is bool
            and (default is None or type(default) is str)
        ):
            doc = raw.get("doc", "")
            former, deprecated = _evolution(raw)
            return AttrRecord(
                name,
                kind,
                required,
                None if required else default,
                doc if type(doc) is str else "",
                former,
                deprecated,
            )
    where = path + ("attrs", i)
    item = _object(raw, where)
    _string(_field(item, "name", where), where + ("name",), "name")
    _string(_field(item, "type", where), where + ("type",), "type")
    required = _field(item, "required", where)
    if not isinstance(required, bool):
        raise _Refused(
            where + ("required",),
            f"required must be true or false, not {_kind(required)}",
        )
    raise _Refused(
        where + ("default_value",),
        "default_value must be a JSON literal in a string, not "
        f"{_kind(item.get('default_value'))}",
    )


def _unique(names: list[str], path: JsonPath) -> None:
    if len(set(names)) == len(names):
        return
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise _Refused(path + (i, "name"), f"names '{name}' a second time")
        seen.add(name)


def parse(entry: Any, path: JsonPath = (), known: Known = ()) -> OpRecord | Invalid:
    """The op of one ``operators`` entry (``path`` is where the entry is),
    or why GE's reader would skip it: a field missing or of the wrong type,
    an element type GE does not have, a name used twice in one list. What
    ``known`` holds is shared, not read again (Note [Shared records])."""
    same = _same(entry, known)
    if same is not None:
        return same
    try:
        item = _object(entry, path)
        op_type = _string(_field(item, "op_type", path), path + ("op_type",), "op_type")
        inputs = _elements(item, "inputs", INPUT_TYPES, path, known)
        outputs = _elements(item, "outputs", OUTPUT_TYPES, path, known)
        attrs = _attrs(item, path, known)
        subgraphs = _elements(item, "subgraphs", SUBGRAPH_TYPES, path, known)
    except _Refused as exc:
        return Invalid(exc.path, exc.reason)
    deprecated = _extra(item, "deprecated") or None
    doc = item.get("doc")
    record = OpRecord(
        op_type,
        inputs,
        outputs,
        attrs,
        subgraphs,
        doc if isinstance(doc, str) else None,
        deprecated,
    )
    for _, same in known:
        if same == record:
            return same
    return record


def of_spec(op: OpSpec) -> tuple[dict[str, Any], OpRecord]:
    """The current op's operators.json entry (the export's, byte for byte)
    and its record."""
    entry = history_op(op)
    record = parse(entry)
    assert isinstance(record, OpRecord), record  # the export is valid by construction
    return entry, record
