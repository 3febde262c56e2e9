"""LayerNormCustom: normalises x over its dims from ``begin_norm_axis`` on.

``begin_norm_axis`` may be negative (counted from the end). With axis that
dim, the normalised dims are x.shape[axis:] and each "row" is one index of
x.shape[:axis]:

    mean = the row's mean, rstd = 1 / sqrt(var + epsilon), var the
    population variance (divided by the element count, not count - 1)
    y    = (x - mean) * rstd * gamma + beta    (gamma 1, beta 0 when absent)

Outputs: y (x's shape and dtype), and mean and rstd as float32 of shape
x.shape[:axis] + [1] * (rank - axis): the normalised dims kept as 1s, so
they broadcast against x (the keep-dims layout of GE's LayerNorm).
gamma and beta, when given, must have shape x.shape[axis:]. The kernel
(kernels/layer_norm_custom.c) computes each row in double.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.layer_norm_custom import LayerNormCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

SOURCE = Path(__file__).resolve().parent / "kernels/layer_norm_custom.c"
PER_BLOCK = 4096  # elements per block (whole rows)


def norm_axis(dims: list[int], begin_norm_axis: int) -> int:
    """``begin_norm_axis`` as an index in 0..rank-1 (ValueError when out of
    range or when the normalised dims hold no element)."""
    rank = len(dims)
    if not -rank <= begin_norm_axis < rank:
        raise ValueError(
            f"begin_norm_axis {begin_norm_axis} is out of range for x of rank {rank}"
            + (f" (valid: {-rank}..{rank - 1})" if rank else "")
        )
    axis = begin_norm_axis % rank
    if math.prod(dims[axis:]) == 0:
        raise ValueError(f"x {dims} has no element to normalise from dim {axis} on")
    return axis


@register_op_impl(op_type=LayerNormCustomBase.OP_TYPE)
class LayerNormCustom(LayerNormCustomBase):
    """y, mean, rstd of a layer normalisation over the trailing dims."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        gamma: TensorDesc | None,
        beta: TensorDesc | None,
        *,
        begin_norm_axis: int,
        epsilon: float,
    ) -> tuple[TensorDesc, TensorDesc, TensorDesc]:
        dims = x.shape.origin_shape.dims
        axis = norm_axis(dims, begin_norm_axis)
        for name, desc in (("gamma", gamma), ("beta", beta)):
            if desc is not None and desc.shape.origin_shape.dims != dims[axis:]:
                raise ValueError(
                    f"{name} has shape {desc.shape.origin_shape.dims}; it must be "
                    f"x.shape[{axis}:] = {dims[axis:]}"
                )
        if not epsilon >= 0:
            raise ValueError(f"epsilon must be >= 0, got {epsilon}")
        stats = dims[:axis] + [1] * (len(dims) - axis)
        return (
            TensorDesc(dims, x.data_type),
            TensorDesc(stats, DataType.DT_FLOAT),
            TensorDesc(stats, DataType.DT_FLOAT),
        )

    def execute(
        self,
        x: Tensor,
        gamma: Tensor | None,
        beta: Tensor | None,
        *,
        begin_norm_axis: int,
        epsilon: float,
    ) -> None:
        ctx = get_execute_ctx()
        dims = x.storage_shape.dims
        axis = norm_axis(dims, begin_norm_axis)
        stats = dims[:axis] + [1] * (len(dims) - axis)
        y = ctx.malloc_output_tensor(0, dims, x.format, x.data_type)
        mean = ctx.malloc_output_tensor(1, stats, x.format, DataType.DT_FLOAT)
        rstd = ctx.malloc_output_tensor(2, stats, x.format, DataType.DT_FLOAT)
        rows, cols = math.prod(dims[:axis]), math.prod(dims[axis:])
        if rows == 0:
            return
        # An absent gamma/beta: count 0, so the kernel never reads its pointer.
        gamma_addr, gamma_count = (x.addr, 0) if gamma is None else (gamma.addr, cols)
        beta_addr, beta_count = (x.addr, 0) if beta is None else (beta.addr, cols)
        blocks = max(1, min(rows, rt.MAX_BLOCK_DIM, math.ceil(rows * cols / PER_BLOCK)))
        rt.launch(
            load_kernel(SOURCE, "layer_norm_custom", name="layer_norm_custom"),
            blocks,
            ctx.get_stream(),
            [
                x.addr,
                gamma_addr,
                beta_addr,
                y.addr,
                mean.addr,
                rstd.addr,
                rows * cols,
                gamma_count,
                beta_count,
                rows,
                cols,
                float(epsilon),
            ],
        )
