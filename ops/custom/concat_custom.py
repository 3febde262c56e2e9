"""ConcatCustom: joins a list of tensors along ``concat_dim``.

``concat_dim`` may be negative (counted from the end). Every input must have
the same dtype and rank and the same dims except ``concat_dim``; infer_meta
raises ValueError otherwise. execute launches kernels/concat_custom.c once
per input: each launch copies that input's rows into its columns of y.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.concat_custom import ConcatCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

SOURCE = Path(__file__).resolve().parent / "kernels/concat_custom.c"
PER_BLOCK = 4096  # elements per block
# The kernel copies bits: an unsigned type of each dtype's width.
C_TYPES = {
    DataType.DT_FLOAT: "uint32_t",
    DataType.DT_FLOAT16: "uint16_t",
    DataType.DT_INT32: "uint32_t",
}


def concat_axis(concat_dim: int, rank: int) -> int:
    """``concat_dim`` as an index in 0..rank-1 (ValueError when out of range)."""
    if not -rank <= concat_dim < rank:
        raise ValueError(
            f"concat_dim {concat_dim} is out of range for inputs of rank {rank}"
            + (f" (valid: {-rank}..{rank - 1})" if rank else "")
        )
    return concat_dim % rank


@register_op_impl(op_type=ConcatCustomBase.OP_TYPE)
class ConcatCustom(ConcatCustomBase):
    """y = the inputs joined along concat_dim."""

    @staticmethod
    def infer_meta(x: list[TensorDesc], *, N: int, concat_dim: int) -> TensorDesc:
        if not x or N != len(x):
            raise ValueError(f"ConcatCustom needs N = len(x) >= 1 inputs, got {N}")
        first = x[0].shape.origin_shape.dims
        axis = concat_axis(concat_dim, len(first))
        for i, desc in enumerate(x):
            dims = desc.shape.origin_shape.dims
            if desc.data_type is not x[0].data_type:
                raise ValueError(
                    f"x[{i}] is {desc.data_type.spec_name}, x[0] is "
                    f"{x[0].data_type.spec_name}; all inputs need one dtype"
                )
            if len(dims) != len(first) or any(
                a != b for d, (a, b) in enumerate(zip(dims, first)) if d != axis
            ):
                raise ValueError(
                    f"x[{i}] has shape {dims} and x[0] has {first}: they may differ "
                    f"only in dim {axis} (concat_dim {concat_dim})"
                )
        out = list(first)
        out[axis] = sum(desc.shape.origin_shape.dims[axis] for desc in x)
        return TensorDesc(out, x[0].data_type)

    def execute(self, x: list[Tensor], *, N: int, concat_dim: int) -> None:
        ctx = get_execute_ctx()
        dims = [t.storage_shape.dims for t in x]
        axis = concat_axis(concat_dim, len(dims[0]))
        out = list(dims[0])
        out[axis] = sum(d[axis] for d in dims)
        y = ctx.malloc_output_tensor(0, out, x[0].format, x[0].data_type)
        outer, y_row = math.prod(out[:axis]), math.prod(out[axis:])
        launch = load_kernel(
            SOURCE,
            "concat_custom",
            defines={"T": C_TYPES[x[0].data_type]},
            name="concat_custom",
        )
        offset = 0
        for t, d in zip(x, dims):
            x_row = math.prod(d[axis:])
            count = outer * x_row
            if count:
                blocks = max(1, min(rt.MAX_BLOCK_DIM, math.ceil(count / PER_BLOCK)))
                rt.launch(
                    launch,
                    blocks,
                    ctx.get_stream(),
                    [t.addr, y.addr, x_row, y_row, offset, count, outer * y_row],
                )
            offset += x_row
