"""Launch argument slots: 64 bits each (the kernel ABI, ge_kernel.h)."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ge.graph.types import DataType

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


def element_bits(value: float, data_type: DataType, name: str = "value") -> int:
    """``value`` as the bits of one element of ``data_type``, for a kernel
    scalar that fills or pads with it. float16 rounds to nearest; for an
    integer dtype ``value`` must be a whole number in range (ValueError,
    naming it ``name``)."""
    from ge.graph._numpy import to_numpy_dtype

    dtype = to_numpy_dtype(data_type)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        if not float(value).is_integer() or not info.min <= value <= info.max:
            raise ValueError(
                f"{name} {value} is not a whole number in {data_type.spec_name}'s range"
            )
    with np.errstate(over="ignore"):
        element = np.array([value], dtype=dtype)
    return int(element.view(f"u{dtype.itemsize}")[0])
