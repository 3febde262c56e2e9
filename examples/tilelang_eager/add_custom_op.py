"""AddCustomTileLang: the implementation.

gen-ops wrote this file once, from the op's spec, and will not touch it again.
The prototype and AddCustomTileLangBase (the schema-bound signatures) are generated in
ge_impl.tilelang.add_custom_tile_lang; regenerate them with gen-ops after editing the spec.
"""

from __future__ import annotations

from ge.custom_op import register_op_impl
from ge.runtime import Tensor
from ge_impl.tilelang.add_custom_tile_lang import AddCustomTileLangBase


@register_op_impl(op_type=AddCustomTileLangBase.OP_TYPE)
class AddCustomTileLang(AddCustomTileLangBase):
    """Implements AddCustomTileLang."""

    def compile(
        self,
        x: Tensor,
        y: Tensor,
        z: Tensor,
    ) -> None:
        raise NotImplementedError("AddCustomTileLang.compile")

    def library_key(
        self,
        x: Tensor,
        y: Tensor,
        z: Tensor,
    ) -> str:
        raise NotImplementedError("AddCustomTileLang.library_key")
