"""BatchMatMulV2: batched matrix product with broadcast batch dims (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.batch_mat_mul_v2 import BatchMatMulV2Base

from ge.custom_op import register_op_impl
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

from ._host import read, refuse_unrun, write
from ._matmuls import accumulator, batch_dims


def out_dtype(x1: DataType) -> DataType:
    """GE declares y with a set of its own: x1's dtype, but int32 for int8
    and int4 (the quantised forms, declared and refused on the CPU device)."""
    return DataType.DT_INT32 if x1 in (DataType.DT_INT8, DataType.DT_INT4) else x1


def _check(bias: list[int] | None, n: int, offset_w: object, offset_x: int) -> None:
    if bias is not None and bias != [n]:
        raise ValueError(f"BatchMatMulV2: bias must have shape [{n}], got {bias}")
    if offset_w is not None or offset_x != 0:
        raise ValueError(
            "BatchMatMulV2: offset_w and offset_x (quantisation) are not run on the "
            "CPU device; leave offset_w out and offset_x at 0"
        )


@register_op_impl(op_type=BatchMatMulV2Base.OP_TYPE)
class BatchMatMulV2(BatchMatMulV2Base):
    """y = op(x1) @ op(x2) (+ bias), batch dims broadcast."""

    @staticmethod
    def infer_meta(
        x1: TensorDesc,
        x2: TensorDesc,
        bias: TensorDesc | None,
        offset_w: TensorDesc | None,
        *,
        adj_x1: bool,
        adj_x2: bool,
        offset_x: int,
    ) -> TensorDesc:
        dims = batch_dims(
            "BatchMatMulV2",
            x1.shape.origin_shape.dims,
            x2.shape.origin_shape.dims,
            adj_x1,
            adj_x2,
        )
        b = None if bias is None else list(bias.shape.origin_shape.dims)
        _check(b, dims[-1], offset_w, offset_x)
        return TensorDesc(dims, out_dtype(x1.data_type))

    def compile(
        self,
        x1: Tensor,
        x2: Tensor,
        bias: Tensor | None,
        offset_w: Tensor | None,
        y: Tensor,
        *,
        adj_x1: bool,
        adj_x2: bool,
        offset_x: int,
    ) -> None:
        inputs = {"x1": x1, "x2": x2, "bias": bias, "offset_w": offset_w}
        refuse_unrun(self.OP_TYPE, inputs, {"y": y})  # int8, int4 x1: y int32

    def execute(
        self,
        x1: Tensor,
        x2: Tensor,
        bias: Tensor | None,
        offset_w: Tensor | None,
        *,
        adj_x1: bool,
        adj_x2: bool,
        offset_x: int,
    ) -> None:
        a, b, c = read(self.OP_TYPE, x1=x1, x2=x2, bias=bias)
        assert a is not None and b is not None
        acc = accumulator(a.dtype)
        left = np.swapaxes(a, -1, -2) if adj_x1 else a
        right = np.swapaxes(b, -1, -2) if adj_x2 else b
        y = np.matmul(left.astype(acc), right.astype(acc))
        if c is not None:
            y = y + c.astype(acc)
        write(0, x1, y.astype(a.dtype))
