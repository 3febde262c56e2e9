"""ReduceSumCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and ReduceSumCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.reduce_sum_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.reduce_sum_custom import ReduceSumCustomBase


@register_op_impl(op_type=ReduceSumCustomBase.OP_TYPE)
class ReduceSumCustom(ReduceSumCustomBase):
    """Implements ReduceSumCustom."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        *,
        axes: list[int],
        keep_dims: bool,
    ) -> TensorDesc:
        raise NotImplementedError("ReduceSumCustom.infer_meta")

    def execute(
        self,
        x: Tensor,
        *,
        axes: list[int],
        keep_dims: bool,
    ) -> None:
        raise NotImplementedError("ReduceSumCustom.execute")
