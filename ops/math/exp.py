"""Exp: the implementation (annotated args; kernels in _elementwise.py)."""

from __future__ import annotations

from ge_impl.math.exp import ExpBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(ExpBase.OP_TYPE, "math_exp", "exp")


@register_op_impl(op_type=ExpBase.OP_TYPE)
class Exp(ExpBase):
    """Builds one kernel per dtype and size (Note [Shape-specialised kernels])."""

    def compile(
        self, x: Tensor, y: Tensor, *, base: float, scale: float, shift: float
    ) -> None:
        _KERNELS.unary(x, y, base=base, scale=scale, shift=shift)

    def launch_config(
        self, x: Tensor, y: Tensor, *, base: float, scale: float, shift: float
    ) -> LaunchConfig:
        return _KERNELS.unary(x, y, base=base, scale=scale, shift=shift)
