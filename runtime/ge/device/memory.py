"""Device memory: real, aligned host memory whose addresses kernels dereference."""

from __future__ import annotations

import numpy as np

# Every device allocation starts on a 64-byte boundary (a cache line; enough
# for any vector load a kernel may use).
ALIGNMENT = 64


class DeviceBuffer:
    """An owned, aligned, zero-initialised block of device memory.

    ``array`` is a uint8 numpy view of exactly ``size`` bytes; ``addr`` is its
    address. The block lives as long as this object.
    """

    __slots__ = ("_raw", "array", "addr", "size")

    def __init__(self, size: int) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(
                f"device allocation size must be an int >= 0, got {size!r}"
            )
        raw = np.zeros(size + ALIGNMENT, dtype=np.uint8)
        offset = (-raw.ctypes.data) % ALIGNMENT
        self._raw = raw
        self.array = raw[offset : offset + size]
        self.addr = int(raw.ctypes.data) + offset
        self.size = size

    def __repr__(self) -> str:
        return f"DeviceBuffer(addr=0x{self.addr:x}, size={self.size})"
