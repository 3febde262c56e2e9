"""AnnotatedAddCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and AnnotatedAddCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.annotated_add_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.annotated_add_custom import AnnotatedAddCustomBase


@register_op_impl(op_type=AnnotatedAddCustomBase.OP_TYPE)
class AnnotatedAddCustom(AnnotatedAddCustomBase):
    """Implements AnnotatedAddCustom."""

    def compile(
        self,
        x1: Tensor,
        x2: Tensor,
        output0: Tensor,
    ) -> None:
        raise NotImplementedError("AnnotatedAddCustom.compile")

    def launch_config(
        self,
        x1: Tensor,
        x2: Tensor,
        output0: Tensor,
    ) -> LaunchConfig:
        raise NotImplementedError("AnnotatedAddCustom.launch_config")
