"""The native launcher (native.c): built once per machine, cached, and
loaded by the device's own loader like any kernel binary (Note [Our own
loader] in ``ge.device.elf``), never from a path on disk."""

from __future__ import annotations

import ctypes
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ge.device.kernels import load_binary
from ge.device.toolchain import BuildError, build_shared, cache_lookup, cache_store

KERNEL_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)


class Task(ctypes.Structure):
    """One launch of a compiled graph (``ge_task`` in native.c)."""

    _fields_ = [
        ("fn", ctypes.c_void_p),
        ("args", ctypes.c_void_p),
        ("block_dim", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


_u32, _vp = ctypes.c_uint32, ctypes.c_void_p
# The launcher's functions. ctypes releases the GIL around each call, so
# runs on several threads execute their kernels in parallel.
_SIGNATURES = {
    "ge_launch": ctypes.CFUNCTYPE(None, _vp, _u32, _vp),
    "ge_run": ctypes.CFUNCTYPE(None, _vp, _vp, _vp, _vp, _u32, _vp, _vp, _u32),
    "ge_replay": ctypes.CFUNCTYPE(None, _vp, _u32),
}


@dataclass(frozen=True)
class Launcher:
    """The launcher's functions, called through ctypes."""

    ge_launch: Callable[..., None]
    ge_run: Callable[..., None]
    ge_replay: Callable[..., None]


def _launcher_binary(source: str) -> bytes:
    """native.c built by the C compiler; on a machine without one (where
    only model files run), the last build of this very source that the
    kernel cache holds, under a key of the source alone."""
    key = "ge-native-" + hashlib.sha256(source.encode("utf-8")).hexdigest()
    try:
        data = build_shared(source, name="ge_native")
    except BuildError as exc:
        cached = cache_lookup(key)
        if cached is None:
            raise BuildError(
                f"{exc}; the native launcher is not in the kernel cache either: run "
                "any graph or model once on this machine with a C compiler, or set "
                "GE_CPU_CACHE_DIR to a cache that holds it"
            ) from None
        return cached
    if cache_lookup(key) != data:
        cache_store(key, data)
    return data


@lru_cache(maxsize=1)
def library() -> Launcher:
    source = (Path(__file__).resolve().parent / "native.c").read_text(encoding="utf-8")
    binary = load_binary(_launcher_binary(source))
    functions = {}
    for name, prototype in _SIGNATURES.items():
        address = binary.symbol(name)
        if address is None:
            raise RuntimeError(f"the native launcher has no function {name}")
        functions[name] = prototype(address)
    return Launcher(**functions)
