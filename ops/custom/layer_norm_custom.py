"""LayerNormCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and LayerNormCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.layer_norm_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.layer_norm_custom import LayerNormCustomBase


@register_op_impl(op_type=LayerNormCustomBase.OP_TYPE)
class LayerNormCustom(LayerNormCustomBase):
    """Implements LayerNormCustom."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        gamma: TensorDesc | None,
        beta: TensorDesc | None,
        *,
        begin_norm_axis: int,
        epsilon: float,
    ) -> tuple[TensorDesc, TensorDesc, TensorDesc]:
        raise NotImplementedError("LayerNormCustom.infer_meta")

    def execute(
        self,
        x: Tensor,
        gamma: Tensor | None,
        beta: Tensor | None,
        *,
        begin_norm_axis: int,
        epsilon: float,
    ) -> None:
        raise NotImplementedError("LayerNormCustom.execute")
