"""The no-change fast path: skip a run whose inputs and outputs are as last time.

After a successful run, ``.gen-ops-state.json`` in the output directory records
a fingerprint of everything a run depends on (gen-ops' own code and
templates, the black version, the options, every spec's bytes) and the size
and modification time of every output and author module. A later run that
finds the same fingerprint and the same files returns at once. The file is a
cache: deleting it only costs one full run; it is not committed.

Its first line is that record, in JSON; the lines after it are the render
cache (Note [Render cache] in ``render_cache``), which a run reads only when
the fast path fails; the fast path parses the first line alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gen_ops import __version__
from gen_ops.resources import template_dir

STATE = ".gen-ops-state.json"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Hash of gen-ops' sources, templates and the whole vocabulary package
    it shares with the runtime (ge_ir)."""
    import ge_ir

    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    shared = Path(ge_ir.__file__).resolve().parent
    sources = sorted(package.rglob("*.py")) + sorted(package.rglob("*.json"))
    sources += sorted(p for p in template_dir().rglob("*") if p.is_file())
    sources += sorted(shared.rglob("*.py"))
    for path in sources:
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    from importlib import metadata  # only here: importing it costs 30 ms

    try:
        digest.update(metadata.version("black").encode())
    except metadata.PackageNotFoundError:
        pass
    return digest.hexdigest()


def context(options: Sequence[str]) -> str:
    """What every output depends on but the specs: gen-ops' code and
    templates, black, the options."""
    digest = hashlib.sha256(code_digest().encode())
    digest.update("\0".join(options).encode())
    return digest.hexdigest()


def spec_digests(spec_files: Sequence[Path]) -> list[str] | None:
    """The sha256 of each spec's bytes; None if a spec cannot be read."""
    digests = []
    for path in spec_files:
        try:
            digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
        except OSError:
            return None
    return digests


def fingerprint(
    spec_files: Sequence[Path],
    options: Sequence[str],
    digests: Sequence[str] | None = None,
) -> str | None:
    """Everything a run depends on; None if a spec cannot be read.
    ``digests``: the specs' ``spec_digests``, if known."""
    if digests is None:
        digests = spec_digests(spec_files)
        if digests is None:
            return None
    digest = hashlib.sha256(context(options).encode())
    for path, spec_digest in zip(spec_files, digests, strict=True):
        digest.update(str(path).encode() + b"\0")
        digest.update(bytes.fromhex(spec_digest))
    return digest.hexdigest()


def stat_of(path: Path | str) -> list[int] | None:
    """A file's size and modification time; None if it is not there."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def record(
    out: Path,
    fingerprint_: str,
    files: Iterable[Path | str],
    cache: str = "",
    known: Mapping[str, object] | None = None,
) -> None:
    """Write the state file: the fingerprint and the files' stats, then
    ``cache`` (the render cache's lines). ``known``: stats already taken in
    this run of files it did not write."""
    known = known or {}
    stats = {}
    for p in files:
        name = str(p)
        stats[name] = known[name] if name in known else stat_of(p)
    text = json.dumps({"fingerprint": fingerprint_, "files": stats}, sort_keys=True)
    text += "\n" + cache + "\n"
    try:
        (out / STATE).write_text(text, encoding="utf-8", newline="")
    except OSError:
        pass  # only a cache


@dataclass(frozen=True)
class Recorded:
    """The state file as read: the first line's fields, the lines after it
    unparsed (empty when there are none)."""

    fingerprint: str
    files: dict[str, object]
    cache_text: str


def read(out: Path) -> Recorded | None:
    """The state file of ``out``; None if missing or unreadable."""
    try:
        with open(out / STATE, encoding="utf-8", newline="") as stream:
            first, rest = stream.readline(), stream.read()
        data = json.loads(first)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    fingerprint_ = data.get("fingerprint")
    files = data.get("files")
    if not isinstance(fingerprint_, str) or not isinstance(files, dict):
        return None
    return Recorded(fingerprint_, files, rest.removesuffix("\n"))


def forget(out: Path) -> None:
    """Drop the recorded state, before a run changes anything: a run that
    stops halfway must not look up to date to the next one."""
    try:
        (out / STATE).unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass  # only a cache; unchanged() cannot match a state it cannot read


def _journal_present(out: Path) -> bool:
    """An interrupted commit is never "up to date" (transaction.JOURNAL;
    not imported, to keep the fast path's imports small)."""
    try:
        return (out / ".gen-ops-journal.json").exists()
    except OSError:
        return True  # cannot tell: take the full path, which reports it


def unchanged(
    out: Path, fingerprint_: str | None, recorded: Recorded | None = None
) -> bool:
    """Whether the last run's state (``recorded``, read if not given) says
    ``out`` is up to date for ``fingerprint_``."""
    if fingerprint_ is None or _journal_present(out):
        return False  # an interrupted commit is never "up to date"
    if recorded is None:
        recorded = read(out)
    if recorded is None or recorded.fingerprint != fingerprint_:
        return False
    return all(stat_of(path) == stat for path, stat in recorded.files.items())
