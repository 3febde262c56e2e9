"""Pow: the implementation (annotated args; kernels in _elementwise.py).

x1, x2 and y may have three dtypes (y's is their promotion, GE's
Promote); the kernel converts each input to y's dtype and computes there
(Note [Integer Pow] in _exprs.py for integers)."""

from __future__ import annotations

from ge_impl.math.pow import PowBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor

from ._elementwise import Kernels

_KERNELS = Kernels(PowBase.OP_TYPE, "math_pow", "pow")


@register_op_impl(op_type=PowBase.OP_TYPE)
class Pow(PowBase):
    """One kernel per dtypes and broadcast plan (Note [Shape-specialised kernels])."""

    def compile(self, x1: Tensor, x2: Tensor, y: Tensor) -> None:
        _KERNELS.binary(x1, x2, y)

    def launch_config(self, x1: Tensor, x2: Tensor, y: Tensor) -> LaunchConfig:
        return _KERNELS.binary(x1, x2, y)
