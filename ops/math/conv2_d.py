"""Conv2D: grouped 2-D convolution, NCHW or NHWC (numpy; ops/math/_conv.py).
x's layout is its tensor format when that is NCHW or NHWC, else
data_format (_conv.layout)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ge_impl.math.conv2_d import Conv2DBase

from ge.custom_op import get_infer_meta_ctx, register_op_impl
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

from ._conv import conv2d, geometry, layout, out_dims
from ._host import read, refuse_unrun, write


def out_dtype(x: DataType) -> DataType:
    """GE declares y with a set of its own: x's dtype, but int32 for int8
    (the quantised form, declared and refused on the CPU device)."""
    return DataType.DT_INT32 if x == DataType.DT_INT8 else x


def _check_quant(offset_w: object, offset_x: int) -> None:
    if offset_w is not None or offset_x != 0:
        raise ValueError(
            "Conv2D: offset_w and offset_x (int8 quantisation) are not run on the "
            "CPU device; leave offset_w out and offset_x at 0"
        )


@register_op_impl(op_type=Conv2DBase.OP_TYPE)
class Conv2D(Conv2DBase):
    """y = the grouped convolution of x with filter, plus bias."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        filter: TensorDesc,
        bias: TensorDesc | None,
        offset_w: TensorDesc | None,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        groups: int,
        data_format: str,
        offset_x: int,
    ) -> TensorDesc:
        _check_quant(offset_w, offset_x)
        fmt = layout(get_infer_meta_ctx().get_input_format(0), data_format)
        g = geometry(
            x.shape.origin_shape.dims,
            filter.shape.origin_shape.dims,
            strides=strides,
            pads=pads,
            dilations=dilations,
            groups=groups,
            data_format=fmt,
        )
        if bias is not None and list(bias.shape.origin_shape.dims) != [g.cout]:
            raise ValueError(f"Conv2D: bias must have shape [{g.cout}]")
        return TensorDesc(out_dims(g, fmt), out_dtype(x.data_type))

    def compile(
        self,
        x: Tensor,
        filter: Tensor,
        bias: Tensor | None,
        offset_w: Tensor | None,
        y: Tensor,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        groups: int,
        data_format: str,
        offset_x: int,
    ) -> None:
        inputs = {"x": x, "filter": filter, "bias": bias, "offset_w": offset_w}
        refuse_unrun(self.OP_TYPE, inputs, {"y": y})  # int8 x: y int32

    def execute(
        self,
        x: Tensor,
        filter: Tensor,
        bias: Tensor | None,
        offset_w: Tensor | None,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int],
        groups: int,
        data_format: str,
        offset_x: int,
    ) -> None:
        xv, fv, bv = read(self.OP_TYPE, x=x, filter=filter, bias=bias)
        assert xv is not None and fv is not None
        _check_quant(offset_w, offset_x)
        fmt = layout(x.origin_format, data_format)
        g = geometry(
            xv.shape,
            fv.shape,
            strides=strides,
            pads=pads,
            dilations=dilations,
            groups=groups,
            data_format=fmt,
        )
        acc = np.dtype(np.float32)  # float16 and bfloat16 accumulate in float
        y = conv2d(xv, fv, bv, g, fmt, acc)
        write(0, x, y.astype(xv.dtype))
