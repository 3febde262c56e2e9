"""PadCustom: pads x with a constant.

``paddings`` holds one [before, after] pair of non-negative ints per dim of
x (rank up to 8; a scalar takes []); ``mode`` must be "constant". The pad
value is ``pad_value`` converted to x's dtype: float16 rounds to nearest,
and for int32 it must be a whole number in range. infer_meta raises
ValueError for anything else. kernels/pad_custom.c writes y row by row.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.pad_custom import PadCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType
from ge.graph.numpy_dtypes import encode_element
from ge.runtime import Tensor, TensorDesc

SOURCE = Path(__file__).resolve().parent / "kernels/pad_custom.c"
PER_BLOCK = 4096  # elements per block (whole rows)
MAX_RANK = 8  # the kernel's dims slots
# The kernel copies bits: an unsigned type of each dtype's width.
C_TYPES = {
    DataType.DT_FLOAT: "uint32_t",
    DataType.DT_FLOAT16: "uint16_t",
    DataType.DT_INT32: "uint32_t",
}


def padded_shape(dims: list[int], paddings: list[list[int]], mode: str) -> list[int]:
    """y's shape (ValueError for a bad mode or bad paddings)."""
    if mode != "constant":
        raise ValueError(f'mode {mode!r} is not supported; only "constant" is')
    if len(dims) > MAX_RANK:
        raise ValueError(f"x has rank {len(dims)}; PadCustom supports up to {MAX_RANK}")
    if len(paddings) != len(dims) or any(
        len(pair) != 2 or min(pair) < 0 for pair in paddings
    ):
        raise ValueError(
            f"paddings {paddings} must be {len(dims)} [before, after] pairs of "
            f"ints >= 0, one per dim of x {dims}"
        )
    return [d + before + after for d, (before, after) in zip(dims, paddings)]


@register_op_impl(op_type=PadCustomBase.OP_TYPE)
class PadCustom(PadCustomBase):
    """y = x with constant padding around each dim."""

    @staticmethod
    def infer_meta(
        x: TensorDesc, *, paddings: list[list[int]], mode: str, pad_value: float
    ) -> TensorDesc:
        out = padded_shape(x.shape.origin_shape.dims, paddings, mode)
        encode_element(pad_value, x.data_type, "pad_value")
        return TensorDesc(out, x.data_type)

    def execute(
        self, x: Tensor, *, paddings: list[list[int]], mode: str, pad_value: float
    ) -> None:
        ctx = get_execute_ctx()
        dims = x.storage_shape.dims
        out = padded_shape(dims, paddings, mode)
        y = ctx.malloc_output_tensor(0, out, x.format, x.data_type)
        if math.prod(out) == 0:
            return
        befores = [before for before, _ in paddings]
        if not dims:  # a scalar: one dim of 1, no padding
            dims, befores, out = [1], [0], [1]
        unused = [0] * (MAX_RANK - len(dims))
        rows = math.prod(out[:-1])
        blocks = max(
            1, min(rows, rt.MAX_BLOCK_DIM, math.ceil(math.prod(out) / PER_BLOCK))
        )
        rt.launch(
            load_kernel(
                SOURCE,
                "pad_custom",
                defines={"T": C_TYPES[x.data_type]},
                name="pad_custom",
            ),
            blocks,
            ctx.get_stream(),
            [x.addr, y.addr, x.shape_size, math.prod(out)]
            + [encode_element(pad_value, x.data_type, "pad_value"), len(dims)]
            + (dims + unused)
            + (befores + unused)
            + (out + unused),
        )
