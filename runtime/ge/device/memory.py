"""Device memory: real, aligned host memory whose addresses kernels dereference.

Every live allocation is registered, so a launch can check that a pointer
argument lies inside device memory and that the span a kernel declares fits.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable

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
        return f"{type(self).__name__}(addr=0x{self.addr:x}, size={self.size})"


class DeviceView(DeviceBuffer):
    """``size`` bytes at ``addr`` inside ``owner`` (a block an external
    allocator gave): no memory of its own. It keeps ``owner`` alive, and so
    does every numpy view of ``array``, so its bytes stay readable however
    long anyone holds them. ``tag`` is the owner's name for the block;
    ``on_release``, if set, is called once when the view goes (it must not
    raise and may run on any thread, at any time)."""

    __slots__ = ("owner", "tag", "on_release")

    def __init__(
        self,
        owner: DeviceBuffer,
        addr: int,
        size: int,
        tag: object = None,
        on_release: Callable[[], object] | None = None,
    ) -> None:
        offset = addr - owner.addr
        if offset < 0 or size < 0 or offset + size > owner.size:
            raise ValueError(f"{size} bytes at 0x{addr:x} do not lie inside {owner!r}")
        self._raw = owner.array
        self.array = owner.array[offset : offset + size]
        self.addr = addr
        self.size = size
        self.owner = owner
        self.tag = tag
        self.on_release = on_release

    def __del__(self) -> None:
        # Not registered, so nothing to unregister (the owner is).
        release = getattr(self, "on_release", None)
        if release is not None:
            self.on_release = None
            release()
