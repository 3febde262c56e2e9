"""FillCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and FillCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.fill_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.graph import DataType
from ge.runtime import TensorDesc
from ge_impl.custom.fill_custom import FillCustomBase


@register_op_impl(op_type=FillCustomBase.OP_TYPE)
class FillCustom(FillCustomBase):
    """Implements FillCustom."""

    def execute(
        self,
        *,
        shape: list[int],
        dtype: DataType,
        value: float,
    ) -> None:
        raise NotImplementedError("FillCustom.execute")
