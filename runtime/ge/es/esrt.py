"""The ES runtime library: GE's ES base API in C and C++ over this runtime's
graph files (docs/es-c-cpp.md, "The ES runtime library").

The headers and sources ship in the package (``ge/es/native``). The library,
``libge_es.so``, is built from them with the system C++ compiler (``$CXX``,
default ``g++``) on first use and kept in the kernel cache directory (Note
[Kernel cache] in ``ge.device.toolchain``: ``$GE_CPU_CACHE_DIR`` or the
user cache directory) under ``esrt/<key>/``, where the key hashes the
sources, the flags and the compiler's version, so a changed source or
compiler builds a new library. The directory must pass the cache's
ownership checks; otherwise the library is built in a private temporary
directory for the process. ``python -m ge.es --includes`` and ``--libs``
print the flags to build against it (building it if needed).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from ge.device import toolchain

NATIVE_DIR = Path(__file__).resolve().parent / "native"
INCLUDE_DIR = NATIVE_DIR / "include"
SOURCE_DIR = NATIVE_DIR / "src"
LIBRARY_NAME = "ge_es"
LIBRARY_FILE = f"lib{LIBRARY_NAME}.so"
CXX_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-Wall", "-Werror")
LAYOUT = "esrt"

_lock = threading.Lock()


class BuildError(RuntimeError):
    """The C++ compiler failed to build the ES runtime library."""


def include_dirs() -> list[Path]:
    """The directories to put on the include path: GE's graph headers
    (``graph/``, ``ge/``, ``utils/``) and the ES base API's ``c`` and
    ``cpp`` directories, as GE installs them."""
    builder = INCLUDE_DIR / "eager_style_graph_builder"
    return [INCLUDE_DIR, builder / "c", builder / "cpp"]


def cxx() -> str:
    """The C++ compiler: ``$CXX``, default ``g++``."""
    name = os.environ.get("CXX", "g++")
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"no C++ compiler: {name!r} is not on PATH (set CXX)")
    return path


def _sources() -> list[Path]:
    return sorted(SOURCE_DIR.glob("*.cpp"))


def _key(compiler: str) -> str:
    digest = hashlib.sha256()
    version = subprocess.run(
        [compiler, "--version"], capture_output=True, text=True, check=False
    ).stdout.splitlines()
    digest.update((version[0] if version else compiler).encode())
    digest.update(" ".join(CXX_FLAGS).encode())
    for path in sorted([*INCLUDE_DIR.rglob("*.h"), *SOURCE_DIR.glob("*")]):
        digest.update(str(path.relative_to(NATIVE_DIR)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _build(compiler: str, target: Path) -> None:
    """Compile the sources into ``target`` atomically (a temporary file in
    its directory, then a rename)."""
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".so")
    os.close(handle)
    command = [
        compiler,
        *CXX_FLAGS,
        "-shared",
        *(f"-I{d}" for d in include_dirs()),
        *map(str, _sources()),
        "-o",
        temp,
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise BuildError(
                "building the ES runtime library failed:\n"
                + shlex.join(command)
                + "\n"
                + result.stderr
            )
        os.chmod(temp, 0o755)
        os.replace(temp, target)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


@lru_cache(maxsize=1)
def _fallback_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="ge-esrt-"))


def library_dir() -> Path:
    """The directory holding ``libge_es.so``, built first if needed."""
    compiler = cxx()
    key = _key(compiler)
    with _lock:
        root = toolchain.private_dir(toolchain.cache_dir())
        directory = None
        if root is not None:
            directory = toolchain.private_dir(root / LAYOUT / key)
        if directory is None:
            directory = _fallback_dir()
        target = directory / LIBRARY_FILE
        if not target.is_file() or os.stat(target).st_uid != os.getuid():
            _build(compiler, target)
        return directory


def compile_flags() -> list[str]:
    """The compiler flags: the include directories and the C++ standard."""
    return ["-std=c++17", *(f"-I{d}" for d in include_dirs())]


def link_flags() -> list[str]:
    """The linker flags: the library, found at run time too (rpath)."""
    directory = library_dir()
    return [f"-L{directory}", f"-Wl,-rpath,{directory}", f"-l{LIBRARY_NAME}"]
