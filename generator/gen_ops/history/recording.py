"""``gen-ops release``: the current specs recorded as a release, in GE's
registry layout (docs/releases.md, "Recording a release").

The release's ``operators.json`` is the history export of the specs
(``lower_history.history``, the one place that decides its form);
``metadata.json`` holds the version and the branch; ``index.json`` lists
the releases by date. The three files are written as one transaction
(Note [One transaction] in transaction.py), the index renamed last, so a
reader never sees a release the index lists before its files are there. A
version the index lists already is refused (H201); entries of the index GE's
reader would skip are dropped, as GE's writer drops them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base.diagnostics import Sink
from gen_ops.emit import locking, transaction
from gen_ops.emit.literals import json_text
from gen_ops.history.dates import ReleaseDate
from gen_ops.history.registry import (
    INDEX,
    INDEX_VERSION,
    METADATA,
    OPERATORS,
    RELEASES_DIR,
    Index,
    Release,
    read_index,
)
from gen_ops.lowering.lower_history import history
from gen_ops.spec.model import OpSpec


@dataclass(frozen=True)
class Recorded:
    release: Release
    index: Index  # the index as written
    dropped: int  # entries of the old index GE's reader skips, left out
    repaired: int  # files an interrupted release left, put in place first


def current_index(root: Path, sink: Sink) -> Index | None:
    """The registry's index, an empty one for a registry not made yet, or
    None after H101."""
    if not (root / INDEX).exists():
        return Index(root, INDEX_VERSION, ())
    return read_index(root, sink)


def files(
    index: Index, release: Release, specs: Sequence[OpSpec]
) -> list[tuple[str, str]]:
    """The release's files and the new index, relative to the registry,
    in the order they are renamed into place (the index last)."""
    base = f"{RELEASES_DIR}/{release.version}"
    metadata = {"release_version": release.version} | (
        {"branch_name": release.branch} if release.branch is not None else {}
    )
    entries = sorted((*index.releases, release), key=lambda r: r.date)
    listed = {
        "version": index.version,
        "releases": [
            {"release_version": r.version, "release_date": r.date.text} for r in entries
        ],
    }
    return [
        (f"{base}/{METADATA}", json_text(metadata)),
        (f"{base}/{OPERATORS}", json_text(history(specs))),
        (INDEX, json_text(listed)),
    ]


def record(
    root: Path,
    version: str,
    date: ReleaseDate,
    branch: str | None,
    specs: Sequence[OpSpec],
    sink: Sink,
    lock_timeout: float = locking.DEFAULT_TIMEOUT,
) -> Recorded | None:
    """Record ``specs`` as release ``version``; None after a diagnostic.
    ``transaction.WriteError`` when a file cannot be written (the registry
    is then as it was). An earlier release that was stopped after its commit
    point is finished first. The registry's lock is held throughout, so the
    index is read and written by one run at a time (Note [Tree lock] in
    ``locking``; ``LockTimeout``)."""
    with locking.hold(root, "gen-ops release", lock_timeout):
        return _record(root, version, date, branch, specs, sink)


def _record(
    root: Path,
    version: str,
    date: ReleaseDate,
    branch: str | None,
    specs: Sequence[OpSpec],
    sink: Sink,
) -> Recorded | None:
    repaired = transaction.recover(root)
    index = current_index(root, sink)
    if index is None:
        return None
    known = index.find(version)
    if known is not None:
        sink.emit(
            "H201",
            index.span(("releases", known.entry, "release_version")),
            f"releases[{known.entry}]: release {version} is recorded already "
            f"(dated {known.date}); a release is recorded once",
            "record the specs under a new version",
        )
        return None
    release = Release(version, date, len(index.releases), branch)
    dropped = index.listed - len(index.releases)
    transaction.apply(root, transaction.Change(files(index, release, specs), ()))
    entries = tuple(sorted((*index.releases, release), key=lambda r: r.date))
    return Recorded(release, Index(root, index.version, entries), dropped, repaired)
