"""``NamedAttrs``: a name plus typed attributes (GE's ``ge::NamedAttrs``)."""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping
from typing import Any

from ge_ir import attrs as _attrs
from ge_ir.attrs import AttrType, check_attr_value, is_numpy_bool
from ge_ir.types import DataType

__all__ = ["NamedAttrs"]


def infer_attr_type(value: Any) -> AttrType:
    """The attr type a plain Python value stands for (lists by their first item;
    an empty list is ``list_int``)."""
    if isinstance(value, bool) or is_numpy_bool(value):
        return AttrType.BOOL
    if isinstance(value, DataType):
        return AttrType.DTYPE
    # numbers.Integral/Real also take numpy scalars, which check_attr_value
    # accepts for int and float attrs.
    if isinstance(value, numbers.Integral):
        return AttrType.INT
    if isinstance(value, numbers.Real):
        return AttrType.FLOAT
    if isinstance(value, str):
        return AttrType.STR
    if isinstance(value, (bytes, bytearray)):
        return AttrType.BYTES
    if isinstance(value, NamedAttrs):
        return AttrType.NAMED_ATTRS
    if isinstance(value, (list, tuple)):
        if not value:
            return AttrType.LIST_INT
        first = infer_attr_type(value[0])
        for list_type in AttrType:
            if list_type.element is first:
                return list_type
        raise TypeError(f"lists of {first.value} are not an attr type")
    if _attrs.tensor_types and isinstance(value, _attrs.tensor_types):
        return AttrType.TENSOR
    raise TypeError(f"{type(value).__name__} is not an attr value")


class NamedAttrs:
    """An immutable name plus attributes, each with its attr type.

    ``NamedAttrs("conv", {"stride": 2, "pads": [1, 1]})`` infers the types;
    pass ``types={"pads": AttrType.LIST_INT}`` where inference cannot know
    (an empty list).
    """

    __slots__ = ("_name", "_attrs")

    def __init__(
        self,
        name: str = "",
        attrs: Mapping[str, Any] | None = None,
        types: Mapping[str, AttrType] | None = None,
    ) -> None:
        if not isinstance(name, str):
            raise TypeError(f"NamedAttrs name must be str, got {type(name).__name__}")
        typed: dict[str, tuple[AttrType, Any]] = {}
        for key, value in (attrs or {}).items():
            if not isinstance(key, str):
                raise TypeError("NamedAttrs keys must be str")
            attr_type = (types or {}).get(key) or infer_attr_type(value)
            typed[key] = (attr_type, check_attr_value(attr_type, value))
        self._name = name
        self._attrs = dict(sorted(typed.items()))

    @property
    def name(self) -> str:
        return self._name

    def get_attr(self, key: str) -> Any:
        return self._attrs[key][1]

    def attr_type(self, key: str) -> AttrType:
        return self._attrs[key][0]

    def keys(self) -> list[str]:
        return list(self._attrs)

    def typed_items(self) -> Iterator[tuple[str, AttrType, Any]]:
        for key, (attr_type, value) in self._attrs.items():
            yield key, attr_type, value

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NamedAttrs)
            and self._name == other._name
            and self._attrs == other._attrs
        )

    def __hash__(self) -> int:
        return hash((self._name, tuple(self._attrs)))

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {v!r}" for k, (_, v) in self._attrs.items())
        return f"NamedAttrs({self._name!r}, {{{body}}})"
