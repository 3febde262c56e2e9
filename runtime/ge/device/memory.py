"""Device memory: real, aligned host memory whose addresses kernels dereference.

Every live allocation is registered, so a launch can check that a pointer
argument lies inside device memory and that the span a kernel declares fits.
"""

from __future__ import annotations

import bisect
import threading

import numpy as np

# Every device allocation starts on a 64-byte boundary (a cache line; enough
# for any vector load a kernel may use).
ALIGNMENT = 64

_lock = threading.Lock()
_starts: list[int] = []  # sorted start addresses of live allocations
_sizes: dict[int, int] = {}


def _register(addr: int, size: int) -> None:
    with _lock:
        bisect.insort(_starts, addr)
        _sizes[addr] = size


def _unregister(addr: int) -> None:
    with _lock:
        index = bisect.bisect_left(_starts, addr)
        if index < len(_starts) and _starts[index] == addr:
            _starts.pop(index)
            _sizes.pop(addr, None)


def region_of(addr: int) -> tuple[int, int] | None:
    """(start, size) of the live allocation that holds ``addr``, if any."""
    with _lock:
        index = bisect.bisect_right(_starts, addr) - 1
        if index < 0:
            return None
        start = _starts[index]
        size = _sizes[start]
        return (start, size) if addr < start + max(size, 1) else None


class DeviceBuffer:
    """An owned, aligned, zero-initialised block of device memory.

    ``array`` is a uint8 numpy view of exactly ``size`` bytes; ``addr`` is its
    address. The block lives as long as this object.
    """

    __slots__ = ("_raw", "array", "addr", "size", "__weakref__")

    def __init__(self, size: int) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(
                f"device allocation size must be an int >= 0, got {size!r}"
            )
        raw = np.zeros(size + ALIGNMENT, dtype=np.uint8)
        base = raw.__array_interface__["data"][0]  # cheaper than .ctypes
        offset = (-base) % ALIGNMENT
        self._raw = raw
        self.array = raw[offset : offset + size]
        self.addr = base + offset
        self.size = size
        _register(self.addr, size)

    def __del__(self) -> None:
        # Unregistered when the memory goes (a __del__ costs far less per
        # allocation than a weakref.finalize).
        try:
            _unregister(self.addr)
        except (AttributeError, TypeError):  # half-built, or interpreter exit
            pass

    def __repr__(self) -> str:
        return f"DeviceBuffer(addr=0x{self.addr:x}, size={self.size})"
