"""RealDiv: the implementation (annotated args; kernels in _elementwise.py)."""

from __future__ import annotations

from ge_impl.math.real_div import RealDivBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(RealDivBase.OP_TYPE, "math_real_div", "div")


@register_op_impl(op_type=RealDivBase.OP_TYPE)
class RealDiv(RealDivBase):
    """Builds one kernel per dtype and broadcast plan (Note [Shape-specialised kernels])."""

    def compile(self, x1: Tensor, x2: Tensor, y: Tensor) -> None:
        _KERNELS.binary(x1, x2, y)

    def launch_config(self, x1: Tensor, x2: Tensor, y: Tensor) -> LaunchConfig:
        return _KERNELS.binary(x1, x2, y)
