"""The fast run path: hotpath.c, a CPython extension, when it can be had.

Note [Fast run path]: a run of a compiled graph of launches only is one
native call (Note [Packed run state] in native.c), so what a run costs on
top of its kernels is the Python around that call: the session's checks,
taking a run state, checking each tensor's dtype and shape and writing its
address. In Python that is about a microsecond per run (a ctypes call alone
costs half of one); hotpath.c does the same in C for a tenth of that. It
handles only what cannot fail: a live stream, inputs and outputs that are
exactly tensors of the graph's dtypes and shapes (or, for a model,
DeviceBuffers big enough), a run state free in the pool. Anything else it
leaves untouched and returns None, and the caller takes the Python path
(``CompiledGraph.run``), which does the same run or raises the error that
names what is wrong, as before. So every message comes from one place and
the extension can be absent: where it cannot be had, a Python function with
the same contract takes its place (``CompiledGraph._python_runner``: the
same results, about a microsecond more per run).

Like the native launcher (Note [Prebuilt launcher] in ge.device.native),
the build backend compiles hotpath.c into ``_hotpath.abi3.so`` beside this
file (limited API: one binary serves every CPython from 3.11), and the
binary is used only when it records the SHA-256 of hotpath.c. Otherwise it
is built with the system C compiler against this Python's headers, imported
from a private temporary copy and, where the package directory is writable
(a checkout), put in place of the stale binary. Not in the kernel cache:
an extension is imported by the system's loader, which runs its
initializers, so only the package directory (whose writer can run code
anyway) may hold one, never a cache. Without a
compiler or headers (or with ``GE_CPU_FAST_PATH=0``, or
``set_enabled(False)``), runs take the Python runner.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sysconfig
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from types import ModuleType

# ge.device.toolchain is imported where it is used: the build backend loads
# this file on its own to build the extension (hatch_build.py), with the
# package not installed.

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "hotpath.c"
PREBUILT = HERE / "_hotpath.abi3.so"
MODULE = "ge.engine._hotpath"
ENV = "GE_CPU_FAST_PATH"
MARKER = b"ge-hotpath-source:"

_enabled = os.environ.get(ENV, "1").strip() not in ("0", "off", "false", "no")
_lock = threading.Lock()


def set_enabled(on: bool) -> bool:
    """Make fast runners with the extension (True) or in Python (False)
    from now on: a session makes a graph's on its first run, a model when
    it is loaded. Returns the previous setting."""
    global _enabled
    with _lock:
        previous, _enabled = _enabled, bool(on)
    return previous


def enabled() -> bool:
    return _enabled


def digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def build_flags(source_digest: str) -> list[str]:
    """The compile line's flags (the build backend uses them too)."""
    include = sysconfig.get_paths()["include"]
    return [
        "-shared",
        "-fPIC",
        "-O2",
        "-fvisibility=hidden",
        f"-I{include}",
        f'-DGE_HOTPATH_SOURCE="{source_digest}"',
    ]


def build(source: Path, source_digest: str, cc: str | None = None) -> bytes:
    """hotpath.c compiled into an extension module's bytes (BuildError when
    there is no compiler or no Python headers)."""
    from ge.device.toolchain import compile_uncached

    text = source.read_text(encoding="utf-8")
    return compile_uncached(
        text, flags=build_flags(source_digest), name=source.stem, cc=cc
    )


def _import(path: Path) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _built(source_digest: str) -> ModuleType:
    """The extension built for this source, imported from a private
    temporary copy; also put in place of the stale prebuilt binary when its
    directory is writable (a checkout), so the next process imports that."""
    data = build(SOURCE, source_digest)
    with tempfile.TemporaryDirectory(prefix="ge-hotpath-") as tmp:
        path = Path(tmp) / "_hotpath.abi3.so"
        path.write_bytes(data)
        module = _import(path)
    try:
        handle, temp = tempfile.mkstemp(dir=PREBUILT.parent, prefix=".hotpath-")
    except OSError:  # an installed, read-only package: built again next time
        return module
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temp, PREBUILT)
    except OSError:
        Path(temp).unlink(missing_ok=True)
    return module


@lru_cache(maxsize=1)
def module() -> ModuleType | None:
    """The extension, or None when it cannot be had (Note [Fast run path])."""
    from ge.device.toolchain import BuildError

    source_digest = digest()
    try:
        prebuilt = PREBUILT.read_bytes()
    except OSError:
        prebuilt = b""
    try:
        if MARKER + source_digest.encode("ascii") in prebuilt:
            return _import(PREBUILT)
        return _built(source_digest)
    except (BuildError, ImportError, OSError):
        return None
