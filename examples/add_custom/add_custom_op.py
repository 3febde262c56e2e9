"""AddCustom: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and AddCustomBase (the schema-bound signatures) are generated in
ge_impl.custom.add_custom; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc
from ge_impl.custom.add_custom import AddCustomBase


@register_op_impl(op_type=AddCustomBase.OP_TYPE)
class AddCustom(AddCustomBase):
    """Implements AddCustom."""

    def execute(
        self,
        x: Tensor,
        y: Tensor,
    ) -> None:
        raise NotImplementedError("AddCustom.execute")
