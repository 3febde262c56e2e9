"""GE's enumerations (the table lives in ``ge_ir.types``, shared with
gen-ops)."""

from ge_ir.types import (
    NAMED_TENSOR_TYPES,
    AttrValueType,
    DataType,
    Format,
    Placement,
    TensorType,
    dtype_from_spec_name,
    dtype_spec_names,
    element_bits,
)

__all__ = [
    "DataType",
    "Format",
    "Placement",
    "AttrValueType",
    "TensorType",
    "NAMED_TENSOR_TYPES",
    "dtype_from_spec_name",
    "dtype_spec_names",
    "element_bits",
]
