"""Log: the implementation (annotated args; kernels in _elementwise.py)."""

from __future__ import annotations

from ge_impl.math.log import LogBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(LogBase.OP_TYPE, "math_log", "log")


@register_op_impl(op_type=LogBase.OP_TYPE)
class Log(LogBase):
    """Builds one kernel per dtype and size (Note [Shape-specialised kernels])."""

    def compile(
        self, x: Tensor, y: Tensor, *, base: float, scale: float, shift: float
    ) -> None:
        _KERNELS.unary(x, y, base=base, scale=scale, shift=shift)

    def launch_config(
        self, x: Tensor, y: Tensor, *, base: float, scale: float, shift: float
    ) -> LaunchConfig:
        return _KERNELS.unary(x, y, base=base, scale=scale, shift=shift)
