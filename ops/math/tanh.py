"""Tanh: the implementation (annotated args; kernels in _elementwise.py)."""

from __future__ import annotations

from ge_impl.math.tanh import TanhBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(TanhBase.OP_TYPE, "math_tanh", "tanh")


@register_op_impl(op_type=TanhBase.OP_TYPE)
class Tanh(TanhBase):
    """Builds one kernel per dtype and size (Note [Shape-specialised kernels])."""

    def compile(self, x: Tensor, y: Tensor) -> None:
        _KERNELS.unary(x, y, base=-1.0, scale=1.0, shift=0.0)

    def launch_config(self, x: Tensor, y: Tensor) -> LaunchConfig:
        return _KERNELS.unary(x, y, base=-1.0, scale=1.0, shift=0.0)
