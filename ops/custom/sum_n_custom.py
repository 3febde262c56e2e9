"""SumNCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and SumNCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.sum_n_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.sum_n_custom import SumNCustomBase


@register_op_impl(op_type=SumNCustomBase.OP_TYPE)
class SumNCustom(SumNCustomBase):
    """Implements SumNCustom."""

    def compile(
        self,
        x: list[Tensor],
        y: Tensor,
        *,
        N: int,
    ) -> None:
        raise NotImplementedError("SumNCustom.compile")

    def launch_config(
        self,
        x: list[Tensor],
        y: Tensor,
        *,
        N: int,
    ) -> LaunchConfig:
        raise NotImplementedError("SumNCustom.launch_config")
