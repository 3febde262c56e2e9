"""ConcatCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and ConcatCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.concat_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.concat_custom import ConcatCustomBase


@register_op_impl(op_type=ConcatCustomBase.OP_TYPE)
class ConcatCustom(ConcatCustomBase):
    """Implements ConcatCustom."""

    @staticmethod
    def infer_meta(
        x: list[TensorDesc],
        *,
        N: int,
        concat_dim: int,
    ) -> TensorDesc:
        raise NotImplementedError("ConcatCustom.infer_meta")

    def execute(
        self,
        x: list[Tensor],
        *,
        N: int,
        concat_dim: int,
    ) -> None:
        raise NotImplementedError("ConcatCustom.execute")
