"""Cast: the implementation (annotated args; the kernel in _cast.py)."""

from __future__ import annotations

import math
import threading

from ge_impl.math.cast import CastBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.device.kernels import build_kernel
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc

from ._cast import CAST_TYPES, cast_source

_ELEMENTS_PER_BLOCK = 1 << 16


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

    def __init__(self) -> None:
        self._configs: dict[tuple[DataType, DataType, int], LaunchConfig] = {}
        self._lock = threading.Lock()

    @staticmethod
    def infer_meta(x: TensorDesc, *, dst_type: int) -> TensorDesc:
        return TensorDesc(list(x.shape.origin_shape.dims), _dst(dst_type))

    def compile(self, x: Tensor, y: Tensor, *, dst_type: int) -> None:
        self.launch_config(x, y, dst_type=dst_type)

    def launch_config(self, x: Tensor, y: Tensor, *, dst_type: int) -> LaunchConfig:
        src, dst = DataType(x.data_type), _dst(dst_type)
        if src not in CAST_TYPES:
            raise TypeError(f"Cast: cannot convert from {src.name} on the CPU device")
        n = math.prod(x.storage_shape.dims)
        key = (src, dst, n)
        with self._lock:
            config = self._configs.get(key)
            if config is None:
                binary = build_kernel(
                    cast_source("math_cast", src, dst, n), name="math_cast"
                )
                blocks = max(1, min(8, -(-n // _ELEMENTS_PER_BLOCK)))
                config = self._configs[key] = LaunchConfig(binary, blocks)
            return config
