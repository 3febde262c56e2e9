"""CastCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and CastCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.cast_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.graph import DataType
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.cast_custom import CastCustomBase


@register_op_impl(op_type=CastCustomBase.OP_TYPE)
class CastCustom(CastCustomBase):
    """Implements CastCustom."""

    def execute(
        self,
        x: Tensor,
        *,
        dst_type: DataType,
        src_type: DataType,
        truncate: bool,
    ) -> None:
        raise NotImplementedError("CastCustom.execute")
