"""PadCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and PadCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.pad_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.pad_custom import PadCustomBase


@register_op_impl(op_type=PadCustomBase.OP_TYPE)
class PadCustom(PadCustomBase):
    """Implements PadCustom."""

    @staticmethod
    def infer_meta(
        x: TensorDesc,
        *,
        paddings: list[list[int]],
        mode: str,
        pad_value: float,
    ) -> TensorDesc:
        raise NotImplementedError("PadCustom.infer_meta")

    def execute(
        self,
        x: Tensor,
        *,
        paddings: list[list[int]],
        mode: str,
        pad_value: float,
    ) -> None:
        raise NotImplementedError("PadCustom.execute")
