"""AddCustomOnline: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and AddCustomOnlineBase (the schema-bound signatures) are generated in
ge_impl.tilelang.add_custom_online; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor
from ge_impl.tilelang.add_custom_online import AddCustomOnlineBase


@register_op_impl(op_type=AddCustomOnlineBase.OP_TYPE)
class AddCustomOnline(AddCustomOnlineBase):
    """Implements AddCustomOnline."""

    def compile(
        self,
        x: Tensor,
        y: Tensor,
        z: Tensor,
    ) -> None:
        raise NotImplementedError("AddCustomOnline.compile")

    def library_key(
        self,
        x: Tensor,
        y: Tensor,
        z: Tensor,
    ) -> str:
        raise NotImplementedError("AddCustomOnline.library_key")
