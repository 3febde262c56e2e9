"""``NamedAttrs`` (in ``ge_ir.named_attrs``, shared with gen-ops)."""

from ge_ir.named_attrs import NamedAttrs, infer_attr_type

__all__ = ["NamedAttrs", "infer_attr_type"]
