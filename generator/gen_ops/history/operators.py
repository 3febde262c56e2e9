"""A release's ``operators.json``, read as GE's reader reads it
(docs/ge-compat.md, "History registry"): a file that cannot be read skips
the release (H107); an entry GE's reader would not take skips that op in
that release (H108), and so does an op listed a second time (the first
entry is kept). Entries are checked when an op is first looked up, so what
an entry shares with one already read costs only the comparison (Note
[Shared records] in records).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen_ops.base.diagnostics import Sink
from gen_ops.history import jsonfile
from gen_ops.history.jsonfile import JsonFile, JsonPath
from gen_ops.history.records import Invalid, Known, OpRecord, parse
from gen_ops.history.registry import OPERATORS, Release, release_dir
from gen_ops.spec.discovery import display


@dataclass(frozen=True)
class RawOp:
    """One op's entry in a release's operators.json, not yet checked."""

    entry: Any
    where: JsonPath  # ("operators", i)
    file: JsonFile


@dataclass
class Operators:
    """A release's operators.json: entries by op type (the first of an op
    listed twice); each entry is checked when it is first read, through
    ``record``, and a bad one is skipped with H108."""

    release: Release
    raw: dict[str, RawOp]
    _records: dict[str, OpRecord | None]

    def record(self, op_type: str, sink: Sink, known: Known = ()) -> OpRecord | None:
        """The op's record (None: not listed, or H108); ``known``: entries
        read before, whose records it may share (Note [Shared records])."""
        if op_type in self._records:
            return self._records[op_type]
        raw = self.raw.get(op_type)
        record = None if raw is None else _check(self.release, raw, sink, known)
        self._records[op_type] = record
        return record


def _check(
    release: Release, raw: RawOp, sink: Sink, known: Known = ()
) -> OpRecord | None:
    parsed = parse(raw.entry, raw.where, known)
    if isinstance(parsed, Invalid):
        sink.emit(
            "H108",
            raw.file.span(parsed.path),
            f"{jsonfile.describe(parsed.path)}: {parsed.reason}; GE's reader "
            f"skips this op in release {release.version}",
            "correct the entry, or take the op out of the release's operators.json",
        )
        return None
    return parsed


def read(root: Path, release: Release, sink: Sink) -> Operators | None:
    """The release's ops, or None after H107."""
    path = release_dir(root, release.version) / OPERATORS
    shown = display(path)
    hint = f'restore {shown} (a file of the form {{"operators": [...]}})'
    try:
        file = jsonfile.load(path, shown)
    except jsonfile.Unreadable as exc:
        sink.emit(
            "H107",
            exc.span,
            f"release {release.version}: its operators cannot be read: "
            f"{exc.reason}; the release is skipped",
            hint,
        )
        return None
    data = file.data
    if not isinstance(data, dict) or not isinstance(data.get("operators"), list):
        where: JsonPath = (
            ("operators",) if isinstance(data, dict) and "operators" in data else ()
        )
        sink.emit(
            "H107",
            file.span(where),
            f"release {release.version}: {jsonfile.describe(where)}: there is "
            "no operators list; the release is skipped",
            hint,
        )
        return None
    raw: dict[str, RawOp] = {}
    for i, entry in enumerate(data["operators"]):
        op_type = entry.get("op_type") if isinstance(entry, dict) else None
        item = RawOp(entry, ("operators", i), file)
        if not isinstance(op_type, str) or not op_type:
            _check(release, item, sink)  # reports what is wrong (H108)
        elif op_type in raw:
            first = raw[op_type].where[1]
            sink.emit(
                "H108",
                file.span(item.where + ("op_type",)),
                f"operators[{i}].op_type: {op_type} is listed before, at "
                f"operators[{first}]; this entry is skipped in release "
                f"{release.version}",
                "list each op once in a release",
            )
        else:
            raw[op_type] = item
    return Operators(release, raw, {})
