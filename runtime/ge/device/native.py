"""The native launcher library (native.c), built once per machine and cached."""

from __future__ import annotations

import ctypes
import hashlib
from functools import lru_cache
from pathlib import Path

from ge.device.toolchain import build_shared, cache_dir

KERNEL_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)


class Task(ctypes.Structure):
    """One launch of a compiled graph (``ge_task`` in native.c)."""

    _fields_ = [
        ("fn", ctypes.c_void_p),
        ("args", ctypes.c_void_p),
        ("block_dim", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


@lru_cache(maxsize=1)
def library() -> ctypes.CDLL:
    source = (Path(__file__).resolve().parent / "native.c").read_text(encoding="utf-8")
    data = build_shared(source, name="ge_native")
    path = cache_dir() / "libge_native" / f"{hashlib.sha256(data).hexdigest()[:16]}.so"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    lib = ctypes.CDLL(str(path))
    u32, vp = ctypes.c_uint32, ctypes.c_void_p
    lib.ge_launch.argtypes = [vp, u32, vp]
    lib.ge_launch.restype = None
    lib.ge_run.argtypes = [vp, vp, vp, vp, u32, vp, vp, u32]
    lib.ge_run.restype = None
    lib.ge_replay.argtypes = [vp, u32]
    lib.ge_replay.restype = None
    return lib
