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
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base import untrusted
from gen_ops.base.fingerprint import code_digest

STATE = ".gen-ops-state.json"


def context(options: Sequence[str]) -> str:
    """What every output depends on but the specs: gen-ops' code and
    templates, black, the options."""
    digest = hashlib.sha256(code_digest().encode())
    digest.update("\0".join(options).encode())
    return digest.hexdigest()


def spec_digests(spec_files: Sequence[Path]) -> list[str] | None:
    """The sha256 of each spec's bytes; None if a spec cannot be read."""
    return Hasher({}).digests(spec_files)


# Note [Known digests]: hashing every spec (and every registry file) is a
# large part of a run that finds little or nothing changed. So the state
# keeps, for each file it hashed, its digest with the file's size,
# modification and change times and inode; a later run whose ``stat`` of the
# file gives the same four takes the digest without reading the file. A
# change to the file's bytes moves its modification time, or its change
# time when the modification time is set back by hand (a change time
# cannot be set). Timestamps are coarse (a clock tick; two seconds on FAT),
# so a file changed in the same tick as the run read it could keep both:
# a digest is kept only for a file whose times were at least ``SETTLED_NS``
# old when the run looked at it, as git does for its index.
SETTLED_NS = 2_000_000_000


class Hasher:
    """The sha256 of files' bytes, taking the digests the last run recorded
    (``known``) for files that are as it saw them (Note [Known digests]);
    ``seen`` is what the next state records."""

    def __init__(self, known: Mapping[str, object]) -> None:
        self.known = known
        self.seen: dict[str, list[object]] = {}

    def digests(self, paths: Sequence[Path]) -> list[str] | None:
        """The digest of each file; None if one cannot be read."""
        out = []
        for path in paths:
            name = str(path)
            try:
                now = time.time_ns()
                info = os.stat(name)
                stamp: list[object] = [
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                    info.st_ino,
                ]
                old = self.known.get(name)
                if isinstance(old, list) and old[:4] == stamp and _digest(old[4:]):
                    digest = str(old[4])
                else:
                    # A spec that is not a regular file, or too large, is
                    # no fingerprint: the full path reports it (E101).
                    raw = untrusted.read_bytes(name, limit=untrusted.SPEC_LIMIT)
                    digest = hashlib.sha256(raw).hexdigest()
            except (OSError, untrusted.UntrustedFileError):
                return None
            if max(info.st_mtime_ns, info.st_ctime_ns) < now - SETTLED_NS:
                self.seen[name] = stamp + [digest]
            out.append(digest)
        return out


def _digest(rest: list[object]) -> bool:
    """A recorded digest: one string of 64 hex digits."""
    return len(rest) == 1 and isinstance(rest[0], str) and len(rest[0]) == 64


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
    hashes: Mapping[str, object] | None = None,
) -> None:
    """Write the state file: the fingerprint, the files' stats and the
    digests to keep (``Hasher.seen``), then ``cache`` (the render cache's
    text). ``known``: stats already taken in this run of files it did not
    write."""
    known = known or {}
    stats = {}
    for p in files:
        name = str(p)
        stats[name] = known[name] if name in known else stat_of(p)
    first = {"fingerprint": fingerprint_, "files": stats, "hashes": hashes or {}}
    text = json.dumps(first) + "\n" + cache + "\n"
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
    hashes: dict[str, object]  # Note [Known digests]


def read(out: Path) -> Recorded | None:
    """The state file of ``out``; None if missing or unreadable.

    Note [A state file is only a cache]: anyone who can write the output
    directory can replace the state file, so it is read as a file a user did
    not write (Note [Untrusted files]): a regular file of at most
    ``untrusted.JSON_LIMIT`` bytes. Whatever it holds (a FIFO, a device, a
    huge file, bytes that are not UTF-8 or not JSON, a 5,000-digit integer,
    nesting deeper than the interpreter's limit) means "no state": a full
    run, which writes a good one. It is never an error, since deleting the
    file is never one either. Its JSON is parsed by ``json.loads`` itself, not
    ``untrusted.load_json``: an integer of more than the interpreter's 4,300
    digits is already a ValueError, a shorter one only a mismatch, and a
    Python call per integer would slow the fast path, which reads thousands.
    """
    try:
        content = untrusted.read_text(out / STATE, limit=untrusted.JSON_LIMIT)
        first, _, rest = content.partition("\n")
        data = json.loads(first)
    except (OSError, ValueError, RecursionError, untrusted.UntrustedFileError):
        return None  # Note [A state file is only a cache]
    if not isinstance(data, dict):
        return None
    fingerprint_ = data.get("fingerprint")
    files = data.get("files")
    hashes = data.get("hashes", {})
    if not isinstance(fingerprint_, str) or not isinstance(files, dict):
        return None
    if not isinstance(hashes, dict):
        return None
    return Recorded(fingerprint_, files, rest.removesuffix("\n"), hashes)


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
