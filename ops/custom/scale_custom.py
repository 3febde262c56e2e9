"""ScaleCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and ScaleCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.scale_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.scale_custom import ScaleCustomBase


@register_op_impl(op_type=ScaleCustomBase.OP_TYPE)
class ScaleCustom(ScaleCustomBase):
    """Implements ScaleCustom."""

    def compile(
        self,
        x: Tensor,
        bias: Tensor | None,
        y: Tensor,
        *,
        alpha: float,
    ) -> None:
        raise NotImplementedError("ScaleCustom.compile")

    def launch_config(
        self,
        x: Tensor,
        bias: Tensor | None,
        y: Tensor,
        *,
        alpha: float,
    ) -> LaunchConfig:
        raise NotImplementedError("ScaleCustom.launch_config")
