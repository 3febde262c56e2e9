"""Attr types and the one attr check (in ``ge_ir.attrs``, shared with
gen-ops; Note [Tensor attrs] there)."""

from ge_ir.attrs import (
    AttrType,
    check_attr_value,
    is_numpy_bool,
    python_annotation,
)

__all__ = ["AttrType", "check_attr_value", "is_numpy_bool", "python_annotation"]
