"""FillCustom: a tensor of attr ``shape`` and ``dtype`` filled with ``value``.

It has no inputs. ``value`` is converted to ``dtype``: float16 rounds to
nearest, and for int32/int64 it must be a whole number in range (execute
raises ValueError otherwise). kernels/fill_custom.c stores the value's bits.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.fill_custom import FillCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType, Format
from ge.graph.numpy_dtypes import encode_element

SOURCE = Path(__file__).resolve().parent / "kernels/fill_custom.c"
PER_BLOCK = 4096  # elements per block
# The kernel stores bits: an unsigned type of each dtype's width.
C_TYPES = {
    DataType.DT_FLOAT: "uint32_t",
    DataType.DT_FLOAT16: "uint16_t",
    DataType.DT_INT32: "uint32_t",
    DataType.DT_INT64: "uint64_t",
}


@register_op_impl(op_type=FillCustomBase.OP_TYPE)
class FillCustom(FillCustomBase):
    """y = value everywhere."""

    def execute(self, *, shape: list[int], dtype: DataType, value: float) -> None:
        if dtype not in C_TYPES:
            raise ValueError(
                f"dtype {dtype.spec_name} is not one of "
                + ", ".join(t.spec_name for t in C_TYPES)
            )
        bits = encode_element(value, dtype)
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, shape, Format.FORMAT_ND, dtype)
        n = y.shape_size
        if n:
            blocks = max(1, min(rt.MAX_BLOCK_DIM, math.ceil(n / PER_BLOCK)))
            kernel = load_kernel(
                SOURCE, "fill_custom", defines={"T": C_TYPES[dtype]}, name="fill_custom"
            )
            rt.launch(kernel, blocks, ctx.get_stream(), [y.addr, n, bits])
