"""Building C into shared objects with the system compiler, with a cache.

``build_shared(source)`` returns the bytes of a shared object compiled from C
source by gcc (``$CC`` if set). Results are cached on disk by a hash of the
source, the flags and the compiler's version, in ``$GE_CPU_CACHE_DIR`` or
``~/.cache/ge-cpu``; a cache file that fails to read is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
# Shared objects for the device: position independent, no C runtime start
# files (so no initializer runs when a binary is loaded), only exported
# symbols visible.
BASE_FLAGS = (
    "-shared",
    "-fPIC",
    "-O2",
    "-nostartfiles",
    "-fvisibility=hidden",
    "-std=gnu11",
)


class BuildError(RuntimeError):
    """The compiler rejected a source; the message carries its diagnostics."""


def cache_dir() -> Path:
    configured = os.environ.get("GE_CPU_CACHE_DIR")
    base = Path(configured) if configured else Path.home() / ".cache" / "ge-cpu"
    return base


def compiler() -> str:
    name = os.environ.get("CC", "gcc")
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"no C compiler: {name!r} is not on PATH (set CC)")
    return path


@lru_cache(maxsize=4)
def _compiler_version(path: str) -> str:
    result = subprocess.run(
        [path, "--version"], capture_output=True, text=True, check=False
    )
    return result.stdout.splitlines()[0] if result.stdout else path


@lru_cache(maxsize=1)
def _header_text() -> str:
    return (INCLUDE_DIR / "ge_kernel.h").read_text()


def build_shared(
    source: str,
    *,
    defines: Mapping[str, str | int | None] | None = None,
    flags: Sequence[str] = (),
    libs: Sequence[str] = (),
    name: str = "kernel",
) -> bytes:
    """Compile C ``source`` into a shared object linked with ``libs``
    (``"m"`` for ``-lm``) and return its bytes."""
    cc = compiler()
    define_flags = [
        f"-D{key}" if value is None else f"-D{key}={value}"
        for key, value in sorted((defines or {}).items())
    ]
    all_flags = list(BASE_FLAGS) + [f"-I{INCLUDE_DIR}"] + define_flags + list(flags)
    digest = hashlib.sha256()
    for part in (
        source,
        "\0".join(all_flags),
        "\0".join(libs),
        _compiler_version(cc),
        _header_text(),
    ):
        digest.update(part.encode("utf-8") + b"\0")
    key = digest.hexdigest()
    cached = cache_dir() / f"{key}.so"
    try:
        data = cached.read_bytes()
        if data.startswith(b"\x7fELF"):
            return data
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="ge-cpu-build-") as tmp:
        src = Path(tmp) / f"{name}.c"
        out = Path(tmp) / f"{name}.so"
        src.write_text(source, encoding="utf-8")
        result = subprocess.run(
            [cc, *all_flags, "-o", str(out), str(src), *(f"-l{lib}" for lib in libs)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise BuildError(f"{cc} could not build {name}:\n{result.stderr.strip()}")
        data = out.read_bytes()
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=cached.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, cached)
    except OSError:
        pass  # the cache is an optimisation
    return data
