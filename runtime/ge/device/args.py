"""Launch argument slots: 64 bits each (the kernel ABI, ge_kernel.h)."""

from __future__ import annotations

import struct
from typing import Any

MAX_BLOCK_DIM = 65535  # blocks of one launch


def scalar_bits(value: Any) -> int:
    """A scalar argument as its 64-bit slot: ints two's complement, floats as
    IEEE-754 double bits, bools 0/1, enums (DataType) by value."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):  # includes IntEnum members such as DataType
        if not -(1 << 63) <= value < (1 << 64):
            raise ValueError(f"scalar {value} does not fit in 64 bits")
        return int(value) & 0xFFFFFFFFFFFFFFFF
    if isinstance(value, float):
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    try:
        import numpy as np

        if isinstance(value, np.bool_):
            return int(bool(value))
        if isinstance(value, np.integer):
            return scalar_bits(int(value))
        if isinstance(value, np.floating):
            return scalar_bits(float(value))
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(
        f"a scalar argument is an int, float, bool or DataType, got {type(value).__name__}"
    )
