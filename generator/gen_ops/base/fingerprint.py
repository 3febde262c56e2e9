"""The fingerprint of gen-ops' own code: its sources, templates and JSON
Schema, the vocabulary package it shares with the runtime (``ge_ir``) and
black's version. What every cache between runs is keyed on (the no-change
fast path and the render cache in ``state``, the spec cache)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import ge_ir
from gen_ops import __version__
from gen_ops.base.resources import template_dir


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Hash of gen-ops' sources, templates and the whole vocabulary package
    it shares with the runtime (ge_ir)."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    shared = Path(ge_ir.__file__).resolve().parent
    sources = sorted(package.rglob("*.py")) + sorted(package.rglob("*.json"))
    sources += sorted(p for p in template_dir().rglob("*") if p.is_file())
    sources += sorted(shared.rglob("*.py"))
    for path in sources:
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    digest.update(_black_version().encode())
    return digest.hexdigest()


def _black_version() -> str:
    """black's version ("" without black): from the one-line module black's
    build writes, which costs nothing to import; from its distribution's
    metadata (30 ms to import) if that module is not there."""
    try:
        from _black_version import version  # type: ignore[import-untyped,unused-ignore]

        return str(version)
    except ImportError:
        pass
    from importlib import metadata

    try:
        return metadata.version("black")
    except metadata.PackageNotFoundError:
        return ""
