"""The no-change fast path: skip a run whose inputs and outputs are as last time.

After a successful run, ``.gen-ops-state.json`` in the output directory records
a fingerprint of everything a run depends on (gen-ops' own code and
templates, the black version, the options, every spec's bytes) and the size
and modification time of every output and author module. A later run that
finds the same fingerprint and the same files returns at once. The file is a
cache: deleting it only costs one full run; it is not committed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from gen_ops import __version__
from gen_ops.resources import template_dir

STATE = ".gen-ops-state.json"


@lru_cache(maxsize=1)
def _code_digest() -> str:
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
    try:
        digest.update(metadata.version("black").encode())
    except metadata.PackageNotFoundError:
        pass
    return digest.hexdigest()


def fingerprint(spec_files: Sequence[Path], options: Sequence[str]) -> str | None:
    """Everything a run depends on; None if a spec cannot be read."""
    digest = hashlib.sha256(_code_digest().encode())
    digest.update("\0".join(options).encode())
    for path in spec_files:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        digest.update(str(path).encode() + b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _stat(path: Path) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def record(out: Path, fingerprint_: str, files: Iterable[Path]) -> None:
    stats = {str(p): _stat(p) for p in files}
    text = json.dumps({"fingerprint": fingerprint_, "files": stats}, sort_keys=True)
    try:
        (out / STATE).write_text(text, encoding="utf-8")
    except OSError:
        pass  # only a cache


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


def unchanged(out: Path, fingerprint_: str | None) -> bool:
    if fingerprint_ is None or _journal_present(out):
        return False  # an interrupted commit is never "up to date"
    try:
        data = json.loads((out / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint_:
        return False
    files = data.get("files")
    if not isinstance(files, dict):
        return False
    return all(_stat(Path(path)) == stat for path, stat in files.items())
