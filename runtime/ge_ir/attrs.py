"""Attribute types: the one table of what each attr type is and accepts.

Spec files, generated builders, ``register_op`` annotations, graph files and
model files all name attr types; this module says, once, what each name means
(GE's IR type name, its ``AttrValueType``) and which Python values fit.
Values are normalised to immutable forms: lists become tuples.
"""

from __future__ import annotations

import enum
import math
import numbers
from typing import Any

from ge_ir.types import AttrValueType, DataType

__all__ = [
    "AttrType",
    "check_attr_value",
    "is_numpy_bool",
    "python_annotation",
    "register_tensor_type",
]

# Note [Tensor attrs]: a `tensor` attr holds a ge.graph.Tensor, a class of
# the runtime, which this package may not import (gen-ops reads this package
# without the runtime). ge.graph.tensor registers its class here when it is
# imported; until then (in gen-ops) no value is a tensor.
tensor_types: tuple[type, ...] = ()


def register_tensor_type(cls: type) -> None:
    """Values of ``cls`` are tensors to ``check_attr_value`` (Note [Tensor
    attrs])."""
    global tensor_types
    if cls not in tensor_types:
        tensor_types = (*tensor_types, cls)


class AttrType(enum.Enum):
    """Attr types by their spec name; ``ir_name`` is GE's REG_OP type name."""

    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STR = "str"
    DTYPE = "dtype"
    TENSOR = "tensor"
    NAMED_ATTRS = "named_attrs"
    BYTES = "bytes"
    LIST_INT = "list_int"
    LIST_FLOAT = "list_float"
    LIST_BOOL = "list_bool"
    LIST_STR = "list_str"
    LIST_DTYPE = "list_dtype"
    LIST_LIST_INT = "list_list_int"
    LIST_TENSOR = "list_tensor"
    LIST_NAMED_ATTRS = "list_named_attrs"

    @property
    def ir_name(self) -> str:
        """GE's REG_OP / history type name (``ListInt``)."""
        return _IR_NAME[self]

    @property
    def value_type(self) -> AttrValueType:
        return _VALUE_TYPE[self]

    @property
    def element(self) -> AttrType | None:
        """The element type of a list type (``LIST_LIST_INT`` -> ``LIST_INT``)."""
        return _ELEMENT.get(self)

    @property
    def is_list(self) -> bool:
        return self in _ELEMENT

    @classmethod
    def from_ir_name(cls, name: str) -> AttrType:
        return _BY_IR_NAME[name]


_IR_NAME = {
    AttrType.INT: "Int",
    AttrType.FLOAT: "Float",
    AttrType.BOOL: "Bool",
    AttrType.STR: "String",
    AttrType.DTYPE: "Type",
    AttrType.TENSOR: "Tensor",
    AttrType.NAMED_ATTRS: "NamedAttrs",
    AttrType.BYTES: "Bytes",
    AttrType.LIST_INT: "ListInt",
    AttrType.LIST_FLOAT: "ListFloat",
    AttrType.LIST_BOOL: "ListBool",
    AttrType.LIST_STR: "ListString",
    AttrType.LIST_DTYPE: "ListType",
    AttrType.LIST_LIST_INT: "ListListInt",
    AttrType.LIST_TENSOR: "ListTensor",
    AttrType.LIST_NAMED_ATTRS: "ListNamedAttrs",
}
_BY_IR_NAME = {v: k for k, v in _IR_NAME.items()}
_VALUE_TYPE = {
    AttrType.INT: AttrValueType.VT_INT,
    AttrType.FLOAT: AttrValueType.VT_FLOAT,
    AttrType.BOOL: AttrValueType.VT_BOOL,
    AttrType.STR: AttrValueType.VT_STRING,
    AttrType.DTYPE: AttrValueType.VT_DATA_TYPE,
    AttrType.TENSOR: AttrValueType.VT_TENSOR,
    AttrType.NAMED_ATTRS: AttrValueType.VT_NAMED_ATTRS,
    AttrType.BYTES: AttrValueType.VT_BYTES,
    AttrType.LIST_INT: AttrValueType.VT_LIST_INT,
    AttrType.LIST_FLOAT: AttrValueType.VT_LIST_FLOAT,
    AttrType.LIST_BOOL: AttrValueType.VT_LIST_BOOL,
    AttrType.LIST_STR: AttrValueType.VT_LIST_STRING,
    AttrType.LIST_DTYPE: AttrValueType.VT_LIST_DATA_TYPE,
    AttrType.LIST_LIST_INT: AttrValueType.VT_LIST_LIST_INT,
    AttrType.LIST_TENSOR: AttrValueType.VT_LIST_TENSOR,
    AttrType.LIST_NAMED_ATTRS: AttrValueType.VT_LIST_NAMED_ATTRS,
}
_ELEMENT = {
    AttrType.LIST_INT: AttrType.INT,
    AttrType.LIST_FLOAT: AttrType.FLOAT,
    AttrType.LIST_BOOL: AttrType.BOOL,
    AttrType.LIST_STR: AttrType.STR,
    AttrType.LIST_DTYPE: AttrType.DTYPE,
    AttrType.LIST_LIST_INT: AttrType.LIST_INT,
    AttrType.LIST_TENSOR: AttrType.TENSOR,
    AttrType.LIST_NAMED_ATTRS: AttrType.NAMED_ATTRS,
}

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
# The smallest double that rounds to infinity as a float32 (FLT_MAX plus half
# an ulp); anything below it rounds to a finite float32, e.g. 3.4028235e38,
# numpy's own spelling of FLT_MAX.
_FLOAT32_OVERFLOW = 3.4028235677973366e38
# The largest double that rounds to zero as a float32 (half the smallest
# subnormal, 2**-150, ties to even): a non-zero value at or below it would
# silently become 0.
_FLOAT32_UNDERFLOW = 2.0**-150


def is_numpy_bool(value: Any) -> bool:
    """numpy.bool_ (named ``bool_`` before numpy 2, ``bool`` since)."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool")


def _describe(value: Any) -> str:
    return type(value).__name__


# Note [Undefined dtype attrs]: GE gives a Type attr the value DT_UNDEFINED
# to say "no type given" (REG_OP's ATTR(output_type, Type, DT_UNDEFINED);
# the spec writes `default: undefined`), so a `dtype` attr accepts it. It is
# no type, though: not an item of a `list_dtype` (GE's ListType holds
# types), and never a tensor's dtype. DT_MAX is only a bound.


def check_attr_value(attr_type: AttrType, value: Any) -> Any:
    """Return ``value`` normalised for ``attr_type``; TypeError/ValueError if it
    does not fit. Messages name the expected type; callers add the op and attr.
    """
    element = attr_type.element
    if element is not None:
        if isinstance(value, (str, bytes)) or not _is_sequence(value):
            raise TypeError(
                f"expected a list for {attr_type.value}, got {_describe(value)}"
            )
        items = tuple(check_attr_value(element, item) for item in value)
        if element is AttrType.DTYPE and DataType.DT_UNDEFINED in items:
            raise ValueError("DT_UNDEFINED is not a data type (a list holds types)")
        return items
    if attr_type is AttrType.INT:
        # type(...) is int first: the ABC check is slow, and ints are common.
        if type(value) is not int and (
            isinstance(value, bool) or not isinstance(value, numbers.Integral)
        ):
            raise TypeError(f"expected int, got {_describe(value)}")
        number = int(value)
        if not _INT64_MIN <= number <= _INT64_MAX:
            raise ValueError(f"{number} does not fit in int64")
        return number
    if attr_type is AttrType.FLOAT:
        if type(value) is not float and (
            isinstance(value, bool) or not isinstance(value, numbers.Real)
        ):
            raise TypeError(f"expected float, got {_describe(value)}")
        real = float(value)
        if math.isfinite(real) and abs(real) >= _FLOAT32_OVERFLOW:
            raise ValueError(f"{real!r} does not fit in a float32 attr")
        if real != 0 and abs(real) <= _FLOAT32_UNDERFLOW:
            raise ValueError(f"{real!r} rounds to 0 in a float32 attr")
        return real
    if attr_type is AttrType.BOOL:
        if is_numpy_bool(value):
            return bool(value)
        if not isinstance(value, bool):
            raise TypeError(f"expected bool, got {_describe(value)}")
        return value
    if attr_type is AttrType.STR:
        if not isinstance(value, str):
            raise TypeError(f"expected str, got {_describe(value)}")
        if "\x00" in value:
            raise ValueError("strings may not contain NUL characters")
        return value
    if attr_type is AttrType.DTYPE:
        if not isinstance(value, DataType):
            raise TypeError(f"expected DataType, got {_describe(value)}")
        if value is DataType.DT_MAX:
            raise ValueError(f"{value.name} is not a data type")
        return value  # DT_UNDEFINED too (Note [Undefined dtype attrs])
    if attr_type is AttrType.BYTES:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise TypeError(f"expected bytes, got {_describe(value)}")
        return bytes(value)
    if attr_type is AttrType.TENSOR:
        if not tensor_types or not isinstance(value, tensor_types):
            raise TypeError(f"expected ge.graph.Tensor, got {_describe(value)}")
        return value
    if attr_type is AttrType.NAMED_ATTRS:
        from ge_ir.named_attrs import NamedAttrs

        if not isinstance(value, NamedAttrs):
            raise TypeError(f"expected ge.graph.NamedAttrs, got {_describe(value)}")
        return value
    raise AssertionError(attr_type)  # every member is handled above


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (
        hasattr(value, "__len__")
        and hasattr(value, "__getitem__")
        and not isinstance(value, dict)
    )


_PYTHON_NAMES = {
    AttrType.INT: "int",
    AttrType.FLOAT: "float",
    AttrType.BOOL: "bool",
    AttrType.STR: "str",
    AttrType.DTYPE: "DataType",
    AttrType.NAMED_ATTRS: "NamedAttrs",
    AttrType.BYTES: "bytes",
}


def python_annotation(
    kind: AttrType, *, tensor: str = "Tensor", sequence: str = "list"
) -> str:
    """How Python spells a value of ``kind``: ``list[int]``, or with
    ``sequence="Sequence"`` ``Sequence[int]``; ``tensor`` names the tensor
    class where the reader imports it under another name."""
    if kind.element is not None:
        inner = python_annotation(kind.element, tensor=tensor, sequence=sequence)
        return f"{sequence}[{inner}]"
    return tensor if kind is AttrType.TENSOR else _PYTHON_NAMES[kind]
