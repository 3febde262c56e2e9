"""FillCustom: a tensor of attr ``shape`` and ``dtype`` filled with ``value``.

It has no inputs. ``value`` is converted to ``dtype``: float16 rounds to
nearest, and for int32/int64 it must be a whole number in range (execute
raises ValueError otherwise). kernels/fill_custom.c stores the value's bits.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import Kernel, build_kernel
from ge.graph import DataType, Format
from ge.graph._numpy import to_numpy_dtype
from ge_impl.custom.fill_custom import FillCustomBase

SOURCE = (Path(__file__).resolve().parent / "kernels/fill_custom.c").read_text()
PER_BLOCK = 4096  # elements per block
# The kernel stores bits: an unsigned type of each dtype's width.
C_TYPES = {
    DataType.DT_FLOAT: "uint32_t",
    DataType.DT_FLOAT16: "uint16_t",
    DataType.DT_INT32: "uint32_t",
    DataType.DT_INT64: "uint64_t",
}


@functools.cache
def kernel(c_type: str) -> Kernel:
    """The kernel for elements of ``c_type`` (built once, then cached)."""
    binary = build_kernel(SOURCE, defines={"T": c_type}, name="fill_custom")
    return rt.binary_load(binary).get_function("fill_custom")


def value_bits(value: float, data_type: DataType) -> int:
    """``value`` as the bits of one element of ``data_type`` (ValueError for
    an integer dtype when it is not a whole number in range)."""
    dtype = to_numpy_dtype(data_type)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        if not float(value).is_integer() or not info.min <= value <= info.max:
            raise ValueError(
                f"value {value} is not a whole number in {data_type.spec_name}'s range"
            )
    with np.errstate(over="ignore"):
        element = np.array([value], dtype=dtype)
    return int(element.view(f"u{dtype.itemsize}")[0])


@register_op_impl(op_type=FillCustomBase.OP_TYPE)
class FillCustom(FillCustomBase):
    """y = value everywhere."""

    def execute(self, *, shape: list[int], dtype: DataType, value: float) -> None:
        if dtype not in C_TYPES:
            raise ValueError(
                f"dtype {dtype.spec_name} is not one of "
                + ", ".join(t.spec_name for t in C_TYPES)
            )
        bits = value_bits(value, dtype)
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, shape, Format.FORMAT_ND, dtype)
        n = y.shape_size
        if n:
            blocks = max(1, min(rt.MAX_BLOCK_DIM, math.ceil(n / PER_BLOCK)))
            rt.launch(
                kernel(C_TYPES[dtype]), blocks, ctx.get_stream(), [y.addr, n, bits]
            )
