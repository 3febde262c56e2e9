"""SplitCustom: splits x into ``num_split`` equal parts along ``split_dim``.

``split_dim`` may be negative (counted from the end); ``num_split`` must be
positive and divide that dim, else infer_meta raises ValueError. execute
launches kernels/split_custom.c once per output: each launch copies that
part's columns of x's rows.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.split_custom import SplitCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

SOURCE = Path(__file__).resolve().parent / "kernels/split_custom.c"
PER_BLOCK = 4096  # elements per block
# The kernel copies bits: an unsigned type of each dtype's width.
C_TYPES = {
    DataType.DT_FLOAT: "uint32_t",
    DataType.DT_FLOAT16: "uint16_t",
    DataType.DT_INT32: "uint32_t",
}


def part_shape(
    dims: list[int], num_split: int, split_dim: int
) -> tuple[int, list[int]]:
    """(the split axis, the shape of each part); ValueError for bad attrs."""
    rank = len(dims)
    if not -rank <= split_dim < rank:
        raise ValueError(
            f"split_dim {split_dim} is out of range for x of rank {rank}"
            + (f" (valid: {-rank}..{rank - 1})" if rank else "")
        )
    axis = split_dim % rank
    if num_split < 1 or dims[axis] % num_split:
        raise ValueError(
            f"num_split {num_split} does not divide dim {axis} of x {dims} "
            f"(size {dims[axis]}) into equal parts"
        )
    part = list(dims)
    part[axis] //= num_split
    return axis, part


@register_op_impl(op_type=SplitCustomBase.OP_TYPE)
class SplitCustom(SplitCustomBase):
    """y[0..num_split) = equal parts of x along split_dim, in order."""

    @staticmethod
    def infer_meta(
        x: TensorDesc, *, num_split: int, split_dim: int
    ) -> list[TensorDesc]:
        _, part = part_shape(x.shape.origin_shape.dims, num_split, split_dim)
        return [TensorDesc(part, x.data_type) for _ in range(num_split)]

    def execute(self, x: Tensor, *, num_split: int, split_dim: int) -> None:
        ctx = get_execute_ctx()
        dims = x.storage_shape.dims
        axis, part = part_shape(dims, num_split, split_dim)
        outer, x_row = math.prod(dims[:axis]), math.prod(dims[axis:])
        y_row = x_row // num_split
        count = outer * y_row
        launch = load_kernel(
            SOURCE,
            "split_custom",
            defines={"T": C_TYPES[x.data_type]},
            name="split_custom",
        )
        blocks = max(1, min(rt.MAX_BLOCK_DIM, math.ceil(count / PER_BLOCK)))
        for j in range(num_split):
            y = ctx.malloc_output_tensor(j, part, x.format, x.data_type)
            if count:
                rt.launch(
                    launch,
                    blocks,
                    ctx.get_stream(),
                    [x.addr, y.addr, x_row, y_row, j * y_row, outer * x_row, count],
                )
