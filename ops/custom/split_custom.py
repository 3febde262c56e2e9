"""SplitCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and SplitCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.split_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.split_custom import SplitCustomBase


@register_op_impl(op_type=SplitCustomBase.OP_TYPE)
class SplitCustom(SplitCustomBase):
    """Implements SplitCustom."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        *,
        num_split: int,
        split_dim: int,
    ) -> list[TensorDesc]:
        raise NotImplementedError("SplitCustom.infer_meta")

    def execute(
        self,
        x: Tensor,
        *,
        num_split: int,
        split_dim: int,
    ) -> None:
        raise NotImplementedError("SplitCustom.execute")
