"""ReduceSumCustom: sums x (float32 or float16) over ``axes``.

``axes`` may be negative; empty means every dim; repeated or out-of-range
axes raise ValueError in infer_meta, as does a rank above 8. With
``keep_dims`` the reduced dims stay as 1s, else they are dropped (a full
reduction is then a scalar). Sums are accumulated in double and rounded to
x's dtype once. Two launches of kernels/reduce_sum_custom.c: partial sums
of chunks of up to CHUNK elements into a workspace, then one sum per output.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.reduce_sum_custom import ReduceSumCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import load_kernel
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

SOURCE = Path(__file__).resolve().parent / "kernels/reduce_sum_custom.c"
PER_BLOCK = 4096  # elements per block
CHUNK = 4096  # input elements per partial sum
MAX_RANK = 8  # the kernel's dims slots
C_TYPES = {DataType.DT_FLOAT: "float", DataType.DT_FLOAT16: "_Float16"}


def reduced_dims(rank: int, axes: list[int]) -> set[int]:
    """The dims ``axes`` name, in 0..rank-1 (ValueError for bad axes)."""
    if rank > MAX_RANK:
        raise ValueError(
            f"x has rank {rank}; ReduceSumCustom supports up to {MAX_RANK}"
        )
    if not axes:
        return set(range(rank))
    bad = [a for a in axes if not -rank <= a < rank]
    if bad:
        raise ValueError(f"axes {bad} are out of range for x of rank {rank}")
    dims = {a % rank for a in axes}
    if len(dims) != len(axes):
        raise ValueError(f"axes {axes} name a dim more than once")
    return dims


def output_shape(dims: list[int], reduced: set[int], keep_dims: bool) -> list[int]:
    if keep_dims:
        return [1 if d in reduced else size for d, size in enumerate(dims)]
    return [size for d, size in enumerate(dims) if d not in reduced]


@register_op_impl(op_type=ReduceSumCustomBase.OP_TYPE)
class ReduceSumCustom(ReduceSumCustomBase):
    """y = sum of x over axes."""

    @staticmethod
    def infer_meta(x: TensorDesc, *, axes: list[int], keep_dims: bool) -> TensorDesc:
        dims = x.shape.origin_shape.dims
        out = output_shape(dims, reduced_dims(len(dims), axes), keep_dims)
        return TensorDesc(out, x.data_type)

    def execute(self, x: Tensor, *, axes: list[int], keep_dims: bool) -> None:
        ctx = get_execute_ctx()
        dims = x.storage_shape.dims
        reduced = reduced_dims(len(dims), axes)
        out = output_shape(dims, reduced, keep_dims)
        y = ctx.malloc_output_tensor(0, out, x.format, x.data_type)
        # Merge neighbouring dims that are both reduced or both kept.
        merged: list[tuple[int, bool]] = []
        for d, size in enumerate(dims or [1]):
            if merged and merged[-1][1] == (d in reduced):
                size *= merged.pop()[0]
            merged.append((size, d in reduced))
        outputs = math.prod(size for size, r in merged if not r)
        per_output = math.prod(size for size, r in merged if r)
        if outputs == 0:
            return
        chunks = max(1, math.ceil(per_output / CHUNK))
        ws_count = outputs * chunks
        workspace = ctx.malloc_workspace(8 * ws_count)  # one double per chunk
        mask = sum(1 << d for d, (_, r) in enumerate(merged) if r)
        sizes = [size for size, _ in merged] + [1] * (MAX_RANK - len(merged))
        defines = {"T": C_TYPES[x.data_type]}
        partial, final = (
            load_kernel(SOURCE, function, defines=defines, name="reduce_sum_custom")
            for function in ("reduce_sum_partial", "reduce_sum_final")
        )
        n = x.shape_size
        # An empty x has address 0, which launches refuse even for a span of 0
        # elements; the kernel reads none of it, so any device address will do.
        x_addr = x.addr if n else workspace
        rt.launch(
            partial,
            max(1, min(ws_count, rt.MAX_BLOCK_DIM, math.ceil(n / PER_BLOCK))),
            ctx.get_stream(),
            [x_addr, workspace, n, ws_count, chunks, CHUNK, per_output]
            + [len(merged), mask]
            + sizes,
        )
        rt.launch(
            final,
            max(1, min(rt.MAX_BLOCK_DIM, math.ceil(ws_count / PER_BLOCK))),
            ctx.get_stream(),
            [workspace, y.addr, ws_count, outputs, chunks],
        )
