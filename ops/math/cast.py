"""Cast: the implementation (annotated args; the kernel in _cast.py)."""

from __future__ import annotations

import math

from ge_impl.math.cast import CastBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

from ._cast import CAST_TYPES, cast_source
from ._elementwise import Kernels
from ._runs import require

_KERNELS = Kernels(CastBase.OP_TYPE, "math_cast", "cast", per_block=1 << 16)


def _dst(dst_type: int) -> DataType:
    try:
        dtype = DataType(dst_type)
    except ValueError:
        raise ValueError(f"Cast: dst_type {dst_type} is not a DataType") from None
    if dtype not in CAST_TYPES:
        raise ValueError(f"Cast: cannot convert to {dtype.name} on the CPU device")
    return dtype


@register_op_impl(op_type=CastBase.OP_TYPE)
class Cast(CastBase):
    """One kernel per source dtype, destination dtype and size."""

    @staticmethod
    def infer_meta(x: TensorDesc, *, dst_type: int) -> TensorDesc:
        return TensorDesc(list(x.shape.origin_shape.dims), _dst(dst_type))

    def compile(self, x: Tensor, y: Tensor, *, dst_type: int) -> None:
        self.launch_config(x, y, dst_type=dst_type)

    def launch_config(self, x: Tensor, y: Tensor, *, dst_type: int) -> LaunchConfig:
        require("Cast", x=x)
        src, dst = DataType(x.data_type), _dst(dst_type)
        if src not in CAST_TYPES:
            raise TypeError(f"Cast: cannot convert from {src.name} on the CPU device")
        n = math.prod(x.storage_shape.dims)
        return _KERNELS.get(
            (src, dst, n), lambda: (cast_source(_KERNELS.kernel, src, dst, n), n)
        )
