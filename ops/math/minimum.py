"""Minimum: the implementation (annotated args; kernels in _elementwise.py)."""

from __future__ import annotations

from ge_impl.math.minimum import MinimumBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(MinimumBase.OP_TYPE, "math_minimum", "minimum")


@register_op_impl(op_type=MinimumBase.OP_TYPE)
class Minimum(MinimumBase):
    """Builds one kernel per dtype and broadcast plan (Note [Shape-specialised kernels])."""

    def compile(self, x1: Tensor, x2: Tensor, y: Tensor) -> None:
        _KERNELS.binary(x1, x2, y)

    def launch_config(self, x1: Tensor, x2: Tensor, y: Tensor) -> LaunchConfig:
        return _KERNELS.binary(x1, x2, y)
