"""``ge.allocator``: external allocators for a session's graph memory.

GE's classes: ``MemBlock(addr, size)`` and the abstract ``Allocator`` with
``malloc(size) -> MemBlock`` and ``free(block)``. A subclass is registered
with ``Session.register_external_allocator(stream, allocator)``; runs on
that stream (``run_graph_with_stream_async``) then take their graph memory
from it (Note [External allocators] in ``ge.session.allocators``).

``RangeAllocator`` is ours: blocks carved from one range of device memory
the caller hands over. Memory an allocator gives must lie inside memory
from ``ge.device.rt.malloc`` (GE's allocators give ``acl.rt.malloc``
memory), so that nothing a graph runs on can be memory the process cannot
read.
"""

from __future__ import annotations

import bisect
import threading
from abc import ABC, abstractmethod

from ge.device import rt
from ge.device.memory import ALIGNMENT, DeviceBuffer

__all__ = ["Allocator", "AllocatorError", "MemBlock", "RangeAllocator"]


def _check_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"{what} must be an int >= 0, got {value!r}")
    return value


class MemBlock:
    """A block of device memory an allocator gave: its address and size in
    bytes."""

    __slots__ = ("_addr", "_size")

    def __init__(self, addr: int, size: int) -> None:
        self._addr = _check_int(addr, "MemBlock addr")
        self._size = _check_int(size, "MemBlock size")

    @property
    def addr(self) -> int:
        return self._addr

    @property
    def size(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"MemBlock(addr=0x{self._addr:x}, size={self._size})"


class Allocator(ABC):
    """An external allocator: subclass it and implement both methods.

    ``malloc`` returns a block of at least ``size`` bytes of device memory,
    64-byte aligned, inside memory from ``ge.device.rt.malloc`` (or raises,
    MemoryError when it has none); ``free`` takes back a block ``malloc``
    gave. A session calls ``free`` for every block it was given, at the
    latest when the allocator is unregistered or the session is closed.
    """

    @abstractmethod
    def malloc(self, size: int) -> MemBlock:
        """A block of at least ``size`` bytes."""

    @abstractmethod
    def free(self, block: MemBlock) -> None:
        """Take back ``block``."""


class AllocatorError(RuntimeError):
    """An external allocator failed, or gave memory a run cannot use (the
    message names the allocator, the request and what is wrong)."""


def _aligned(size: int) -> int:
    return (size + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


class RangeAllocator(Allocator):
    """Blocks carved from ``size`` bytes at ``addr``, device memory from
    ``ge.device.rt.malloc``: first fit, each block 64-byte aligned, a freed
    block merged with free neighbours. ``malloc`` raises MemoryError when no
    free run is large enough. Safe to use from several threads."""

    def __init__(self, addr: int, size: int) -> None:
        _check_int(addr, "RangeAllocator addr")
        _check_int(size, "RangeAllocator size")
        owner = rt.allocation(addr, size) if size else None
        if owner is None:
            raise ValueError(
                f"RangeAllocator: {size} bytes at 0x{addr:x} are not device memory "
                "from ge.device.rt.malloc (give a range inside one rt.malloc block)"
            )
        self._owner: DeviceBuffer = owner  # the memory lives while we do
        self._addr = addr
        self._size = size
        start = _aligned(addr)
        self._runs: list[tuple[int, int]] = (
            [(start, addr + size)] if start < addr + size else []
        )  # free (start, end), sorted
        self._blocks: dict[int, int] = {}  # start -> bytes, of live blocks
        self._lock = threading.Lock()

    @property
    def addr(self) -> int:
        return self._addr

    @property
    def size(self) -> int:
        return self._size

    @property
    def used(self) -> int:
        """Bytes in live blocks (each rounded up to 64)."""
        with self._lock:
            return sum(self._blocks.values())

    @property
    def live_blocks(self) -> int:
        with self._lock:
            return len(self._blocks)

    def malloc(self, size: int) -> MemBlock:
        _check_int(size, "malloc size")
        need = _aligned(max(size, 1))
        with self._lock:
            for i, (start, end) in enumerate(self._runs):
                if end - start >= need:
                    if end - start == need:
                        del self._runs[i]
                    else:
                        self._runs[i] = (start + need, end)
                    self._blocks[start] = need
                    return MemBlock(start, size)
            free = sum(end - start for start, end in self._runs)
            largest = max((end - start for start, end in self._runs), default=0)
        raise MemoryError(
            f"{self!r}: no free run of {need} bytes for a request of {size} "
            f"({free} bytes free, the largest run {largest}); give a larger range"
        )

    def free(self, block: MemBlock) -> None:
        if not isinstance(block, MemBlock):
            raise TypeError(f"free takes a MemBlock, got {type(block).__name__}")
        with self._lock:
            size = self._blocks.pop(block.addr, None)
            if size is None:
                raise ValueError(
                    f"{block!r} is not a live block of {self!r} (freed already?)"
                )
            start, end = block.addr, block.addr + size
            i = bisect.bisect_left(self._runs, (start, end))
            if i < len(self._runs) and self._runs[i][0] == end:  # merge right
                end = self._runs.pop(i)[1]
            if i > 0 and self._runs[i - 1][1] == start:  # merge left
                start = self._runs.pop(i - 1)[0]
                i -= 1
            self._runs.insert(i, (start, end))

    def __repr__(self) -> str:
        return f"RangeAllocator(addr=0x{self._addr:x}, size={self._size})"
