"""Importing again into specs the team has edited: a three-way merge.

Note [Import record]: ``gen-ops import`` keeps, at the root of ``--out``, a
record of what it last wrote there (``.gen-ops-import.json``): for each spec
file (its path relative to ``--out``), the text the import gave and that
text's sha256. The record is written in the same transaction as the specs
(Note [One transaction]), so it always says what the import last wrote, and
the next import reads it under the same tree lock (Note [Tree lock]).

Anyone with write access to the tree can replace the record, so it is read
as an untrusted file (Note [Untrusted files]): a regular file, not a
symlink, at most ``RECORD_LIMIT`` bytes, JSON with bounded numbers, every
entry's path two plain components and its text matching its sha256. A
record that fails any of these is I210 at its line and column, and nothing
is imported (writing without it would bring back the specs the team
deleted).

Note [Three-way re-import]: for each spec the import gives (``theirs``),
with ``base`` the text the record holds for that file and ``ours`` the file
on disk:

- ours is theirs: nothing to do;
- no file, and the record has the path: the team deleted it; it is not
  written again unless ``--restore-deleted``;
- ours is base (the team did not touch it): theirs replaces it;
- theirs is base (the header did not change): ours stays;
- both changed: ``merge`` below, at the level of YAML keys; a field both
  changed differently is a conflict (I209), and the file is left as it is.

A file the record does not name (specs written before records existed, or
by hand) is refused as before (I207) unless ``--overwrite`` (take the
import) or ``--adopt`` (keep the file, record the import as its base).

The merge works on values, then writes the result into the team's text:
top-level keys, and the entries of ``inputs``, ``outputs``, ``attrs`` and
``graphs`` (by name), and the keys of a top-level mapping (``dtypes``) and
of an entry, each keep the team's lines when the team's value is the one
kept, and take the import's lines (re-indented) when the import's is. Only
a mapping whose keys come from both sides is rewritten key by key, and then
only the keys that change. The result is read back and must hold exactly
the merged values, or the merge is refused (I209) rather than written.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gen_ops.base import untrusted
from gen_ops.base.diagnostics import Sink
from gen_ops.importer.yaml_writer import scalar
from gen_ops.importer.yaml_writer import value as flow_value
from gen_ops.spec.discovery import display
from gen_ops.spec.source import LoadedSpec, load_spec_text

RECORD = ".gen-ops-import.json"
RECORD_FORMAT = 1
# The record holds the text of every imported spec: 800 specs of a large op
# library are a few megabytes.
RECORD_LIMIT = untrusted.JSON_LIMIT
# Lists whose entries are matched by name.
NAMED_LISTS = frozenset({"inputs", "outputs", "attrs", "graphs"})

_PATH = re.compile(r"[^/\\\x00-\x1f.][^/\\\x00-\x1f]*/[^/\\\x00-\x1f.][^/\\\x00-\x1f]*")
_SHA = re.compile(r"[0-9a-f]{64}")


# -- the record ----------------------------------------------------------------


class RecordRefused(Exception):
    """The record cannot be used: where (``display``, ``line``, ``col``) and
    why (``reason``)."""

    def __init__(self, display: str, reason: str, line: int = 1, col: int = 1) -> None:
        super().__init__(f"{display}:{line}:{col}: {reason}")
        self.display = display
        self.reason = reason
        self.line = line
        self.col = col


@dataclass(frozen=True)
class Record:
    """What the last import wrote: spec path (relative to ``--out``) to
    text; ``found`` says whether there was a record at all."""

    found: bool
    specs: Mapping[str, str] = field(default_factory=dict)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_text(specs: Mapping[str, str]) -> str:
    """The record of ``specs`` (path to the text the import wrote): the
    same specs, the same bytes."""
    import json

    body = {
        "format": RECORD_FORMAT,
        "written_by": "gen-ops import",
        "specs": {
            path: {"sha256": sha256(text), "text": text}
            for path, text in sorted(specs.items())
        },
    }
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def _where(text: str, needle: str) -> tuple[int, int]:
    offset = max(text.find(needle), 0)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def read_record(out: Path) -> Record:
    """The record in ``out`` (Note [Import record]); ``Record(False)`` when
    there is none; ``RecordRefused`` when it cannot be used."""
    import json

    path = out / RECORD
    name = display(path)
    try:
        text = untrusted.read_text(path, limit=RECORD_LIMIT, display=name, follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return Record(False)
    except untrusted.UntrustedFileError as exc:
        raise RecordRefused(name, exc.reason, exc.line, exc.col) from None
    try:
        data = untrusted.load_json(text, name)
    except untrusted.UntrustedFileError as exc:
        raise RecordRefused(name, exc.reason, exc.line, exc.col) from None
    if not isinstance(data, dict) or not isinstance(data.get("specs"), dict):
        raise RecordRefused(
            name, 'it is not an import record: an object with "specs" is expected'
        )
    if data.get("format") != RECORD_FORMAT or type(data.get("format")) is not int:
        line, col = _where(text, '"format"')
        raise RecordRefused(
            name,
            f"it is not an import record of format {RECORD_FORMAT} (a newer "
            "gen-ops wrote it?)",
            line,
            col,
        )
    specs: dict[str, str] = {}
    for key, entry in data["specs"].items():
        line, col = _where(text, json.dumps(key, ensure_ascii=False))
        if not _PATH.fullmatch(key) or not key.endswith(".yaml"):
            raise RecordRefused(
                name,
                f"entry {key!r} is not the path of a spec gen-ops import writes "
                "(<module>/<file>.yaml)",
                line,
                col,
            )
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("text"), str)
            or not isinstance(entry.get("sha256"), str)
            or not _SHA.fullmatch(entry["sha256"])
        ):
            raise RecordRefused(
                name,
                f"entry {key!r} must be an object with the spec's text and its "
                "sha256 (64 hexadecimal digits)",
                line,
                col,
            )
        if len(entry["text"]) > untrusted.SPEC_LIMIT:
            raise RecordRefused(
                name, f"entry {key!r} holds more text than a spec may", line, col
            )
        if sha256(entry["text"]) != entry["sha256"]:
            raise RecordRefused(
                name,
                f"entry {key!r}: its text does not have its sha256 (edited by "
                "hand?)",
                line,
                col,
            )
        specs[key] = entry["text"]
    return Record(True, specs)


# -- values --------------------------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def canon(value: Any) -> Any:
    """A value to compare: ``true`` is not ``1``, NaN is NaN, and the order
    of a mapping's keys does not count."""
    if value is MISSING:
        return ("missing",)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value)
    if isinstance(value, float):
        return ("f", "nan" if math.isnan(value) else value)
    if isinstance(value, (str, bytes)) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, list):
        return ("l", tuple(canon(item) for item in value))
    if isinstance(value, dict):
        return ("d", tuple(sorted((k, canon(v)) for k, v in value.items())))
    return ("?", repr(value))


def same(a: Any, b: Any) -> bool:
    return bool(canon(a) == canon(b))


@dataclass(frozen=True)
class Conflict:
    """A field both the team and the header changed, differently."""

    path: tuple[str, ...]  # ("inputs", "x", "dtype"): keys and entry names
    base: Any
    ours: Any
    theirs: Any

    @property
    def name(self) -> str:
        """``inputs[x].dtype``, ``doc``."""
        text = self.path[0]
        if len(self.path) > 1:
            text += (
                f"[{self.path[1]}]"
                if self.path[0] in NAMED_LISTS
                else f".{self.path[1]}"
            )
        for part in self.path[2:]:
            text += f".{part}"
        return text


def _named(value: Any) -> bool:
    if value is MISSING:
        return True
    if not isinstance(value, list):
        return False
    names = [item.get("name") if isinstance(item, dict) else None for item in value]
    return all(isinstance(n, str) for n in names) and len(set(names)) == len(names)


def _entries(value: Any) -> dict[str, dict[str, Any]]:
    return {} if value is MISSING else {item["name"]: item for item in value}


def _ordered(primary: list[str], secondary: list[str], keep: set[str]) -> list[str]:
    """``primary``'s names that are kept, with those only ``secondary`` has
    inserted after their predecessor there."""
    result = [n for n in primary if n in keep]
    for i, n in enumerate(secondary):
        if n in keep and n not in result:
            before = [m for m in secondary[:i] if m in result]
            result.insert(result.index(before[-1]) + 1 if before else 0, n)
    for n in sorted(keep - set(result)):
        result.append(n)
    return result


def merge_values(base: Any, ours: Any, theirs: Any) -> tuple[Any, list[Conflict]]:
    """The three-way merge of two spec documents' values (Note [Three-way
    re-import]): the merged document and its conflicts."""
    conflicts: list[Conflict] = []
    merged = _merge(base, ours, theirs, (), conflicts)
    return merged, conflicts


def _merge(b: Any, o: Any, t: Any, path: tuple[str, ...], out: list[Conflict]) -> Any:
    if same(o, t) or same(b, t):
        return o
    if same(b, o):
        return t
    depth = len(path)
    mappings = all(isinstance(v, dict) or v is MISSING for v in (b, o, t))
    if depth == 1 and path[0] in NAMED_LISTS and all(_named(v) for v in (b, o, t)):
        return _merge_entries(b, o, t, path, out)
    # the document, a top-level mapping (dtypes) and an entry (inputs[x]):
    # key by key, when both sides have one
    entry = depth == 2 and path[0] in NAMED_LISTS
    if mappings and o is not MISSING and t is not MISSING and (depth <= 1 or entry):
        return _merge_keys({} if b is MISSING else b, o, t, path, out)
    out.append(Conflict(path, b, o, t))
    return o


def _merge_keys(
    b: dict[str, Any],
    o: dict[str, Any],
    t: dict[str, Any],
    path: tuple[str, ...],
    out: list[Conflict],
) -> dict[str, Any]:
    keys = _ordered(list(o), list(t), set(o) | set(t))
    result = {}
    for key in keys:
        value = _merge(
            b.get(key, MISSING),
            o.get(key, MISSING),
            t.get(key, MISSING),
            path + (key,),
            out,
        )
        if value is not MISSING:
            result[key] = value
    return result


def _merge_entries(
    b: Any, o: Any, t: Any, path: tuple[str, ...], out: list[Conflict]
) -> Any:
    eb, eo, et = _entries(b), _entries(o), _entries(t)
    merged: dict[str, Any] = {}
    for name in list(eo) + [n for n in et if n not in eo]:
        value = _merge(
            eb.get(name, MISSING),
            eo.get(name, MISSING),
            et.get(name, MISSING),
            path + (name,),
            out,
        )
        if value is not MISSING:
            merged[name] = value
    keep = set(merged)
    common = [n for n in eb if n in eo and n in et and n in keep]
    order_o = [n for n in eo if n in common]
    order_t = [n for n in et if n in common]
    if order_o == common:  # the team kept the order: the header's
        names = _ordered(list(et), list(eo), keep)
    elif order_t == common or order_o == order_t:  # the header kept it
        names = _ordered(list(eo), list(et), keep)
    else:
        out.append(Conflict(path, b, o, t))
        return o
    if not names and o is MISSING:
        return MISSING
    return [merged[n] for n in names]


# -- text ----------------------------------------------------------------------

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"


def flow(data: Any, node: yaml.Node | None = None) -> str:
    """``data`` as a one-line YAML flow value; numbers keep their spelling
    in ``node`` (``1e-5``, ``0x10``) when it is given."""
    if (
        isinstance(node, yaml.ScalarNode)
        and node.tag in (_INT, _FLOAT)
        and not node.style
    ):
        spelled: str = node.value
        return spelled
    if isinstance(data, float):
        if math.isnan(data):
            return ".nan"
        if math.isinf(data):
            return ".inf" if data > 0 else "-.inf"
        return repr(data)
    if isinstance(data, list):
        items = node.value if isinstance(node, yaml.SequenceNode) else []
        return (
            "["
            + ", ".join(
                flow(item, items[i] if i < len(items) else None)
                for i, item in enumerate(data)
            )
            + "]"
        )
    if isinstance(data, dict):
        nodes = (
            {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
            if isinstance(node, yaml.MappingNode)
            else {}
        )
        return (
            "{"
            + ", ".join(
                f"{scalar(k)}: {flow(v, nodes.get(k))}" for k, v in data.items()
            )
            + "}"
        )
    return flow_value(data)


@dataclass
class _Doc:
    """A spec's text, its values and its YAML nodes."""

    text: str
    data: dict[str, Any]
    root: yaml.MappingNode
    lines: list[str]
    offsets: list[int]  # where each line starts in ``text``

    def keys(self) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        return {
            k.value: (k, v)
            for k, v in self.root.value
            if isinstance(k, yaml.ScalarNode)
        }


class _Layout(Exception):
    """The team's text is laid out in a way the merge cannot edit."""


def _load(text: str, name: str) -> tuple[_Doc | None, str, tuple[int, int]]:
    """The document, or None, why it cannot be read and where."""
    sink = Sink()
    loaded: LoadedSpec | None = load_spec_text(text.encode("utf-8"), name, sink)
    if loaded is None or sink.has_errors:
        first = next(iter(sink.items), None)
        if first is None:
            return None, "it holds no spec", (1, 1)
        where = (first.span.line, first.span.col)
        return None, f"{first.code} at line {where[0]}: {first.message}", where
    root = loaded.positions.values.get(())
    if not isinstance(loaded.data, dict) or not isinstance(root, yaml.MappingNode):
        return None, "it is not a mapping of keys", (1, 1)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return _Doc(text, loaded.data, root, lines, offsets), "", (1, 1)


def _trailing(lines: list[str], start: int, end: int) -> int:
    """The first of the lines at the end of ``[start, end)`` that are blank
    or a comment at column 0 (they stay where they are)."""
    while end > start + 1 and (
        not lines[end - 1].strip() or lines[end - 1].startswith("#")
    ):
        end -= 1
    return end


def _segments(doc: _Doc) -> tuple[list[str], dict[str, tuple[int, int, int]]]:
    """The lines before the first key, and each top-level key's lines:
    (first, end of its own, end with the blank and comment lines after)."""
    if doc.root.flow_style:
        raise _Layout("its top-level mapping is in flow style")
    starts = []
    for key, _ in doc.root.value:
        if key.start_mark.column != 0:
            raise _Layout("a top-level key does not start its line")
        starts.append((key.start_mark.line, key.value))
    if len({line for line, _ in starts}) != len(starts):
        raise _Layout("two top-level keys share a line")
    lines = doc.lines
    first = starts[0][0] if starts else len(lines)
    segments = {}
    for i, (line, key) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        segments[key] = (line, _trailing(lines, line, end), end)
    return lines[:first], segments


def _groups(doc: _Doc, nodes: list[yaml.Node], end: int) -> list[list[str]]:
    """The lines of each item of a block collection: from the line each of
    ``nodes`` starts on to the next one's (the last: to line ``end``)."""
    starts = [n.start_mark.line for n in nodes]
    if sorted(set(starts)) != starts:
        raise _Layout("two items of a list or keys of a mapping share a line")
    return [
        doc.lines[line : starts[i + 1] if i + 1 < len(starts) else end]
        for i, line in enumerate(starts)
    ]


def _indent(lines: list[str], delta: int) -> list[str]:
    if delta >= 0:
        return [(" " * delta + line) if line.strip() else line for line in lines]
    out = []
    for line in lines:
        cut = min(-delta, len(line) - len(line.lstrip(" ")))
        out.append(line[cut:])
    return out


def _dash(doc: _Doc, node: yaml.Node) -> int:
    """The column of the ``-`` before the list item ``node``."""
    line = doc.lines[node.start_mark.line]
    dash = line.rfind("-", 0, node.start_mark.column)
    if dash < 0 or line[:dash].strip():
        raise _Layout("a list item does not start its line with '-'")
    return dash


def _children(node: yaml.Node | None) -> dict[str, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _line_end(text: str) -> str:
    return "" if text.endswith("\n") else "\n"


class _Writer:
    """Writes the merged values into the team's text (Note [Three-way
    re-import])."""

    def __init__(self, base: _Doc, ours: _Doc, theirs: _Doc) -> None:
        self.base, self.ours, self.theirs = base, ours, theirs

    def text(self, merged: dict[str, Any]) -> str:
        ours, theirs = self.ours, self.theirs
        pre_o, seg_o = _segments(ours)
        pre_t, seg_t = _segments(theirs)
        try:
            pre_b: list[str] | None = _segments(self.base)[0]
        except _Layout:  # an old or odd base: the team's comments stay
            pre_b = None
        out = list(pre_t if pre_o == pre_b else pre_o)
        keys_o = ours.keys()
        t_values = {key: node for key, (_, node) in theirs.keys().items()}
        for key, value in merged.items():
            if key in seg_o:
                first, body, end = seg_o[key]
                own, trail = ours.lines[first:body], ours.lines[body:end]
            else:
                own, trail = [], []
            if key in ours.data and same(value, ours.data[key]):
                out += own + trail
                continue
            if key in theirs.data and same(value, theirs.data[key]):
                first, body, _ = seg_t[key]
                new = theirs.lines[first:body]
            elif key in NAMED_LISTS:
                new = self._list(key, value, own, keys_o[key], t_values.get(key))
            else:
                new = self._mapping_key(key, value, own, keys_o[key], t_values.get(key))
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
            out += new + trail
        return "".join(out)

    def _list(
        self,
        key: str,
        merged: list[dict[str, Any]],
        lines: list[str],
        node: tuple[yaml.Node, yaml.Node],
        t_seq: yaml.Node | None,
    ) -> list[str]:
        seq = node[1]
        if not isinstance(seq, yaml.SequenceNode) or seq.flow_style or not seq.value:
            raise _Layout(f"its '{key}' is not a block list")
        if t_seq is None:  # the header has no such list any more
            t_seq = yaml.SequenceNode("tag:yaml.org,2002:seq", [])
        if not isinstance(t_seq, yaml.SequenceNode) or t_seq.flow_style:
            raise _Layout(f"the import's '{key}' is not a block list")
        first_line = node[0].start_mark.line
        groups = _groups(self.ours, seq.value, first_line + len(lines))
        _, seg_t = _segments(self.theirs)
        t_groups = (
            _groups(self.theirs, t_seq.value, seg_t[key][1]) if t_seq.value else []
        )
        dash = _dash(self.ours, seq.value[0])
        t_dash = _dash(self.theirs, t_seq.value[0]) if t_seq.value else dash
        by_o = {e["name"]: i for i, e in enumerate(self.ours.data[key])}
        by_t = {e["name"]: i for i, e in enumerate(self.theirs.data.get(key) or [])}
        out = lines[: seq.value[0].start_mark.line - first_line]
        for entry in merged:
            name = entry["name"]
            i = by_o.get(name)
            j = by_t.get(name)
            if i is not None and same(entry, self.ours.data[key][i]):
                out += groups[i]
            elif j is not None and same(entry, self.theirs.data[key][j]):
                out += _indent(t_groups[j], dash - t_dash)
            else:
                assert i is not None  # a merged entry the team does not have is theirs
                out += self._mapping(
                    entry,
                    self.ours.data[key][i],
                    seq.value[i],
                    groups[i],
                    None if j is None else t_seq.value[j],
                )
        return out

    def _mapping_key(
        self,
        key: str,
        merged: dict[str, Any],
        lines: list[str],
        node: tuple[yaml.Node, yaml.Node],
        t_node: yaml.Node | None,
    ) -> list[str]:
        value = node[1]
        if not isinstance(value, yaml.MappingNode) or not value.value:
            raise _Layout(f"its '{key}' is not a mapping")
        head = value.start_mark.line - node[0].start_mark.line
        if value.flow_style:
            head = 0  # the flow mapping is on the key's line
        return lines[:head] + self._mapping(
            merged, self.ours.data[key], value, lines[head:], t_node
        )

    def _mapping(
        self,
        merged: dict[str, Any],
        data: dict[str, Any],
        node: yaml.Node,
        lines: list[str],
        t_node: yaml.Node | None,
    ) -> list[str]:
        """The lines ``lines`` of the team's mapping ``node`` (value
        ``data``) holding ``merged``: for each key, the team's text when its
        value stays, and the import's value written as a flow value when it
        does not."""
        if not isinstance(node, yaml.MappingNode) or not node.value:
            raise _Layout("an entry is not a mapping")
        theirs = _children(t_node)
        if node.flow_style:
            text = self.ours.text
            own = {k.value: (k, v) for k, v in node.value}
            parts = []
            for key, value in merged.items():
                if key in own and same(value, data.get(key, MISSING)):
                    k, v = own[key]
                    parts.append(text[k.start_mark.index : v.end_mark.index])
                else:
                    parts.append(f"{scalar(key)}: {flow(value, theirs.get(key))}")
            region = "".join(lines)
            at = self.ours.offsets[node.start_mark.line]
            start, end = node.start_mark.index - at, node.end_mark.index - at
            new = region[:start] + "{" + ", ".join(parts) + "}" + region[end:]
            return new.splitlines(keepends=True)
        keys = [k for k, _ in node.value]
        column = keys[0].start_mark.column
        if any(k.start_mark.column != column for k in keys):
            raise _Layout("the keys of a mapping are not aligned")
        first = keys[0].start_mark.line
        groups = _groups(self.ours, keys, first + len(lines))
        prefix = lines[0][:column]
        own_groups = {k.value: groups[i] for i, k in enumerate(keys)}
        out: list[list[str]] = []
        for key, value in merged.items():
            if key in own_groups and same(value, data.get(key, MISSING)):
                group = list(own_groups[key])
                group[-1] += _line_end(group[-1])
                out.append(group)
            else:
                new = f"{scalar(key)}: {flow(value, theirs.get(key))}\n"
                out.append([" " * column + new])
        result = [prefix + out[0][0][column:]] + out[0][1:]
        for group in out[1:]:
            result += [" " * column + group[0][column:]] + group[1:]
        return result


@dataclass(frozen=True)
class Merge:
    """The outcome of ``merge``: the merged text, or the conflicts, or why
    the texts could not be merged (``problem``, with the team's line)."""

    text: str | None
    conflicts: tuple[tuple[Conflict, int, int], ...] = ()  # with line, column
    problem: tuple[str, int, int] | None = None


def merge(base: str, ours: str, theirs: str, name: str) -> Merge:
    """Three-way merge of a spec (Note [Three-way re-import]); ``name`` is
    the file's name for messages."""
    bom = ours.startswith("\ufeff")
    docs = {}
    for role, text in (
        ("base", base),
        ("ours", ours[1:] if bom else ours),
        ("theirs", theirs),
    ):
        doc, why, (line, col) = _load(text, name)
        if doc is None:
            whose = {
                "base": "the text the record holds for it cannot be read",
                "ours": "the file cannot be read as a spec",
                "theirs": "the import cannot be read back",
            }[role]
            if role != "ours":  # the place is in another text
                line, col = 1, 1
            return Merge(None, problem=(f"{whose} ({why})", line, col))
        docs[role] = doc
    merged, conflicts = merge_values(
        docs["base"].data, docs["ours"].data, docs["theirs"].data
    )
    if conflicts:
        return Merge(
            None, conflicts=tuple((c, *_place(docs["ours"], c)) for c in conflicts)
        )
    try:
        text = _Writer(docs["base"], docs["ours"], docs["theirs"]).text(merged)
    except _Layout as exc:
        return Merge(None, problem=(f"its layout cannot be edited: {exc}", 1, 1))
    check, why, _ = _load(text, name)
    if check is None or not same(check.data, merged):
        return Merge(
            None,
            problem=(
                "the merge could not be written in its layout"
                + (f" ({why})" if why else ""),
                1,
                1,
            ),
        )
    return Merge(("\ufeff" if bom else "") + text)


def _place(doc: _Doc, conflict: Conflict) -> tuple[int, int]:
    """The line and column of the conflict's field in the team's file (or
    of the nearest enclosing one it has)."""
    node: yaml.Node = doc.root
    place = (1, 1)
    data: Any = doc.data
    for part in conflict.path:
        if isinstance(node, yaml.MappingNode) and isinstance(data, dict):
            pair = next(
                ((k, v) for k, v in node.value if getattr(k, "value", None) == part),
                None,
            )
            if pair is None:
                break
            place = (pair[0].start_mark.line + 1, pair[0].start_mark.column + 1)
            node, data = pair[1], data.get(part)
        elif isinstance(node, yaml.SequenceNode) and isinstance(data, list):
            index = next(
                (
                    i
                    for i, item in enumerate(data)
                    if isinstance(item, dict) and item.get("name") == part
                ),
                None,
            )
            if index is None or index >= len(node.value):
                break
            node, data = node.value[index], data[index]
            place = (node.start_mark.line + 1, node.start_mark.column + 1)
        else:
            break
    return place


def change(before: Any, after: Any) -> str:
    """``float32 to int8``, ``added as ...``, ``removed``: one side's
    change of a field, for a message."""
    if before is MISSING:
        return f"added as {short(after)}"
    if after is MISSING:
        return f"{short(before)} removed"
    return f"{short(before)} to {short(after)}"


def take(conflict: Conflict) -> str:
    """How to take the header's side of ``conflict``, for a hint."""
    if conflict.theirs is MISSING:
        return f"remove {conflict.name} from the file"
    return f"write {short(conflict.theirs)} as {conflict.name} in the file"


def short(value: Any, width: int = 60) -> str:
    """A value for a message: its flow YAML, shortened."""
    if value is MISSING:
        return "(none)"
    text = flow(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."
