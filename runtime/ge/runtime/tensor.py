"""``ge.runtime.Tensor``: the runtime's borrowed view of a tensor in a callback.

It describes memory the runtime owns (address, size, shape, format, dtype,
placement); it never allocates or frees. It is valid only during the
callback that received it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ge.graph.types import DataType, Format
from ge.runtime._lease import Lease
from ge.runtime.types import (
    ExpandDimsType,
    Shape,
    StorageFormat,
    StorageShape,
    TensorPlacement,
)

__all__ = ["Tensor"]


class Tensor:
    __slots__ = (
        "_addr",
        "_size",
        "_shape",
        "_format",
        "_data_type",
        "_placement",
        "_lease",
    )

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError(
            "ge.runtime.Tensor views are provided by the runtime in callbacks"
        )

    @classmethod
    def _view(
        cls,
        *,
        addr: int,
        size: int,
        origin_dims: Sequence[int],
        storage_dims: Sequence[int] | None,
        data_type: DataType,
        origin_format: Format,
        storage_format: Format | None,
        placement: TensorPlacement,
        lease: Lease,
    ) -> Tensor:
        view = object.__new__(cls)
        view._addr = addr
        view._size = size
        view._shape = StorageShape(origin_dims, storage_dims, _lease=lease)
        view._format = StorageFormat(origin_format, storage_format, _lease=lease)
        view._data_type = data_type
        view._placement = placement
        view._lease = lease
        return view

    def _check(self) -> None:
        self._lease.check(self)

    @property
    def addr(self) -> int:
        """Address of the data, for kernel arguments only."""
        self._check()
        return self._addr

    @property
    def size(self) -> int:
        """Bytes of storage."""
        self._check()
        return self._size

    @property
    def shape(self) -> StorageShape:
        self._check()
        return self._shape

    @property
    def origin_shape(self) -> Shape:
        self._check()
        return self._shape.origin_shape

    @property
    def storage_shape(self) -> Shape:
        self._check()
        return self._shape.storage_shape

    @property
    def format(self) -> StorageFormat:
        self._check()
        return self._format

    @property
    def origin_format(self) -> Format:
        self._check()
        return self._format.origin_format

    @property
    def storage_format(self) -> Format:
        self._check()
        return self._format.storage_format

    @property
    def expand_dims_type(self) -> ExpandDimsType:
        self._check()
        return self._format.expand_dims_type

    @property
    def data_type(self) -> DataType:
        self._check()
        return self._data_type

    @property
    def placement(self) -> TensorPlacement:
        self._check()
        return self._placement

    @property
    def shape_size(self) -> int:
        """Elements of the storage shape (not bytes: see ``size``)."""
        self._check()
        return math.prod(self._shape.storage_shape.dims)

    def __repr__(self) -> str:
        if not self._lease.valid:
            return "Tensor(<expired>)"
        return (
            f"Tensor(addr=0x{self._addr:x}, size={self._size}, "
            f"shape={self._shape.storage_shape.dims}, {self._data_type.name})"
        )
