"""CastCustom: converts x to ``dst_type`` (float32, float16, int32, int64).

Float to int: ``truncate`` true rounds toward zero; false (the default)
rounds to the nearest integer, ties to even (numpy's rint). NaN becomes 0
and values beyond the int type's range saturate to its min/max. Every other
conversion is numpy's astype: floats round to nearest even (float32 to
float16 overflows to inf) and int64 to int32 wraps around; ``truncate``
does not affect them. kernels/cast_custom.c is built once per
(source, destination) pair.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.cast_custom import CastCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import Kernel, load_kernel
from ge.graph import DataType
from ge.runtime import Tensor

SOURCE = Path(__file__).resolve().parent / "kernels/cast_custom.c"
PER_BLOCK = 4096  # elements per block
C_TYPES = {
    DataType.DT_FLOAT: "float",
    DataType.DT_FLOAT16: "_Float16",
    DataType.DT_INT32: "int32_t",
    DataType.DT_INT64: "int64_t",
}
INT_LIMITS = {
    DataType.DT_INT32: ("INT32_MIN", "INT32_MAX"),
    DataType.DT_INT64: ("INT64_MIN", "INT64_MAX"),
}


def kernel(src: DataType, dst: DataType) -> Kernel:
    """The kernel converting ``src`` to ``dst`` (built once, then cached)."""
    defines: dict[str, str | int | None] = {"SRC": C_TYPES[src], "DST": C_TYPES[dst]}
    if src not in INT_LIMITS and dst in INT_LIMITS:
        low, high = INT_LIMITS[dst]
        defines.update(FLOAT_TO_INT=1, DST_MIN=low, DST_MAX=high)
    return load_kernel(SOURCE, "cast_custom", defines=defines, name="cast_custom")


@register_op_impl(op_type=CastCustomBase.OP_TYPE)
class CastCustom(CastCustomBase):
    """y = x converted to dst_type."""

    def execute(
        self, x: Tensor, *, dst_type: DataType, src_type: DataType, truncate: bool
    ) -> None:
        for role, dtype in (("x", x.data_type), ("dst_type", dst_type)):
            if dtype not in C_TYPES:
                raise ValueError(
                    f"{role} is {dtype.spec_name}; CastCustom converts between "
                    + ", ".join(t.spec_name for t in C_TYPES)
                )
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, x.shape, x.format, dst_type)
        n = x.shape_size
        if n:
            blocks = max(1, min(rt.MAX_BLOCK_DIM, math.ceil(n / PER_BLOCK)))
            rt.launch(
                kernel(x.data_type, dst_type),
                blocks,
                ctx.get_stream(),
                [x.addr, y.addr, n, bool(truncate)],
            )
