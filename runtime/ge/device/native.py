"""The native launcher (native.c): built once per machine, cached, and
loaded by the device's own loader like any kernel binary (Note [Our own
loader] in ``ge.device.elf``), never from a path on disk."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ge.device.kernels import load_binary
from ge.device.toolchain import build_shared

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


@lru_cache(maxsize=1)
def library() -> Launcher:
    source = (Path(__file__).resolve().parent / "native.c").read_text(encoding="utf-8")
    binary = load_binary(build_shared(source, name="ge_native"))
    functions = {}
    for name, prototype in _SIGNATURES.items():
        address = binary.symbol(name)
        if address is None:
            raise RuntimeError(f"the native launcher has no function {name}")
        functions[name] = prototype(address)
    return Launcher(**functions)
