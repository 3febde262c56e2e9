"""``ge.runtime`` value types: shapes, formats, placements and TensorDesc.

``Shape``, ``StorageShape``, ``StorageFormat`` and ``ExpandDimsType`` are
either owned (made by user code or a TensorDesc) or borrowed views of a
runtime tensor, valid only during the callback that received them.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Sequence
from typing import Any

from ge.graph.types import DataType, Format
from ge.runtime.lease import OWNED, Lease

__all__ = [
    "Shape",
    "StorageShape",
    "StorageFormat",
    "ExpandDimsType",
    "TensorPlacement",
    "TensorDesc",
]


def _dims(value: Any, what: str) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of ints, got {type(value).__name__}")
    out = []
    for dim in value:
        if isinstance(dim, bool) or not isinstance(dim, int):
            try:
                import numpy as np

                if isinstance(dim, np.integer):
                    out.append(int(dim))
                    continue
            except ImportError:  # pragma: no cover
                pass
            raise TypeError(f"{what} dims must be ints, got {type(dim).__name__}")
        out.append(dim)
    return tuple(out)


def checked_dims(value: Any, what: str) -> tuple[int, ...]:
    """``value`` as a tuple of ints, or TypeError naming ``what`` (the
    runtime's internal API: ``ge.custom_op`` checks a list of dims with it)."""
    return _dims(value, what)


def dims_of(shape: Shape) -> tuple[int, ...]:
    """The dims of ``shape`` without a copy (RuntimeError when it is an
    expired view): the runtime's internal API for the execute path."""
    if not shape._lease.valid:  # the check, inline: hot
        shape._lease.check(shape)
    return shape._dims


def storage_dims_of(shape: StorageShape) -> tuple[int, ...]:
    """``dims_of(shape.storage_shape)`` in one call (RuntimeError when it is
    an expired view): the runtime's internal API for the execute path."""
    if not shape._lease.valid:  # the check, inline: hot
        shape._lease.check(shape)
    storage = shape._storage
    if not storage._lease.valid:
        storage._lease.check(storage)
    return storage._dims


class Shape:
    """A list of dims (GE's ``gert::Shape``)."""

    __slots__ = ("_dims", "_lease")

    def __init__(self, dims: Sequence[int] = (), *, _lease: Lease = OWNED) -> None:
        self._dims = _dims(dims, "Shape")
        self._lease = _lease

    @property
    def dims(self) -> list[int]:
        self._lease.check(self)
        return list(self._dims)

    def get_dim_num(self) -> int:
        self._lease.check(self)
        return len(self._dims)

    def get_dim(self, index: int) -> int:
        self._lease.check(self)
        return self._dims[index]

    def get_shape_size(self) -> int:
        """Elements in this shape (1 for a scalar)."""
        if not self._lease.valid:  # the check, inline: hot
            self._lease.check(self)
        return math.prod(self._dims)

    def is_scalar(self) -> bool:
        self._lease.check(self)
        return not self._dims

    def __len__(self) -> int:
        return self.get_dim_num()

    def __getitem__(self, index: int) -> int:
        return self.get_dim(index)

    def __iter__(self) -> Iterator[int]:
        self._lease.check(self)
        return iter(self._dims)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Shape):
            if not (self._lease.valid and other._lease.valid):  # inline: hot
                self._lease.check(self)
                other._lease.check(other)
            return self._dims == other._dims
        if isinstance(other, (list, tuple)):
            self._lease.check(self)
            return list(self._dims) == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        # Written out: object's __ne__ would call __eq__ through slot
        # wrappers, several times the cost (execute callbacks compare shapes).
        if isinstance(other, Shape):
            if not (self._lease.valid and other._lease.valid):  # inline: hot
                self._lease.check(self)
                other._lease.check(other)
            return self._dims != other._dims
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Shape({list(self._dims)})" if self._lease.valid else "Shape(<expired>)"


class StorageShape:
    """An origin (logical) shape and a storage (in-memory) shape."""

    # _settable: set only on the output views of a data-dependent-shape
    # call (Note [Data-dependent shapes] in ge.engine.dds); other views share
    # their shape objects and are immutable.
    __slots__ = ("_origin", "_storage", "_lease", "_settable")
    _settable: bool

    def __init__(
        self,
        origin_shape: Sequence[int] | Shape = (),
        storage_shape: Sequence[int] | Shape | None = None,
        *,
        _lease: Lease = OWNED,
    ) -> None:
        origin = origin_shape.dims if isinstance(origin_shape, Shape) else origin_shape
        storage = (
            origin
            if storage_shape is None
            else (
                storage_shape.dims
                if isinstance(storage_shape, Shape)
                else storage_shape
            )
        )
        self._origin = Shape(origin, _lease=_lease)
        self._storage = Shape(storage, _lease=_lease)
        self._lease = _lease

    @property
    def origin_shape(self) -> Shape:
        self._lease.check(self)
        return self._origin

    @property
    def storage_shape(self) -> Shape:
        if not self._lease.valid:  # the check, inline: hot
            self._lease.check(self)
        return self._storage

    @property
    def dims(self) -> list[int]:
        """The storage dims (what memory holds)."""
        return self.storage_shape.dims

    def _set(self, which: str, shape: Shape | Sequence[int]) -> None:
        self._lease.check(self)
        if not getattr(self, "_settable", False):
            raise RuntimeError(
                f"set_{which}_shape: this shape is read-only; only the output of an "
                "op whose infer_meta gives an unknown dim (-1) may be given its real "
                'shape in execute (docs/runtime.md, "Data-dependent output shapes")'
            )
        dims = shape.dims if isinstance(shape, Shape) else shape
        setattr(self, f"_{which}", Shape(dims, _lease=self._lease))

    def set_origin_shape(self, shape: Shape | Sequence[int]) -> None:
        """Replace the origin shape (a data-dependent output's real shape)."""
        self._set("origin", shape)

    def set_storage_shape(self, shape: Shape | Sequence[int]) -> None:
        """Replace the storage shape (a data-dependent output's real shape)."""
        self._set("storage", shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorageShape):
            return NotImplemented
        return (
            self.origin_shape == other.origin_shape
            and self.storage_shape == other.storage_shape
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self._lease.valid:
            return "StorageShape(<expired>)"
        return f"StorageShape(origin={self._origin.dims}, storage={self._storage.dims})"


class ExpandDimsType:
    """How an origin shape is padded with 1s to reach a format's rank.

    ``rule`` is GE's string of 0s and 1s: a 1 marks an inserted dim. The empty
    rule inserts nothing.
    """

    __slots__ = ("_rule", "_lease")

    def __init__(self, rule: str = "", *, _lease: Lease = OWNED) -> None:
        if not isinstance(rule, str):
            raise TypeError(
                f"an expand-dims rule is a str of 0 and 1, got {type(rule).__name__}"
            )
        if any(c not in "01" for c in rule):
            raise ValueError(
                f"an expand-dims rule is a string of 0 and 1, got {rule!r}"
            )
        self._rule = rule
        self._lease = _lease

    @property
    def rule(self) -> str:
        self._lease.check(self)
        return self._rule

    def expand(self, dims: Sequence[int]) -> list[int]:
        """``dims`` with 1s inserted where the rule says."""
        self._lease.check(self)
        if not self._rule:
            return list(dims)
        source = iter(dims)
        out = [1 if flag == "1" else next(source, 1) for flag in self._rule]
        return out + list(source)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpandDimsType) and self.rule == other.rule

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"ExpandDimsType({self._rule!r})"
            if self._lease.valid
            else "ExpandDimsType(<expired>)"
        )


class StorageFormat:
    """An origin format, a storage format and the expand-dims rule between them."""

    __slots__ = ("_origin", "_storage", "_expand", "_lease")
    _expand: ExpandDimsType | None

    def __init__(
        self,
        origin_format: Format = Format.FORMAT_ND,
        storage_format: Format | None = None,
        expand_dims_type: ExpandDimsType | None = None,
        *,
        _lease: Lease = OWNED,
    ) -> None:
        if not isinstance(origin_format, Format):
            raise TypeError(
                f"origin_format must be a Format, got {type(origin_format).__name__}"
            )
        storage = origin_format if storage_format is None else storage_format
        if not isinstance(storage, Format):
            raise TypeError(
                f"storage_format must be a Format, got {type(storage).__name__}"
            )
        self._origin = origin_format
        self._storage = storage
        if expand_dims_type is not None and not isinstance(
            expand_dims_type, ExpandDimsType
        ):
            raise TypeError(
                "expand_dims_type must be an ExpandDimsType, got "
                f"{type(expand_dims_type).__name__}"
            )
        rule = expand_dims_type.rule if expand_dims_type is not None else ""
        self._expand = ExpandDimsType(rule, _lease=_lease)
        self._lease = _lease

    @property
    def origin_format(self) -> Format:
        if not self._lease.valid:  # the check, inline: hot
            self._lease.check(self)
        return self._origin

    @property
    def storage_format(self) -> Format:
        self._lease.check(self)
        return self._storage

    @property
    def expand_dims_type(self) -> ExpandDimsType:
        self._lease.check(self)
        expand = self._expand
        if expand is None:  # a view's empty rule (ViewTemplate.parts), made once
            expand = self._expand = ExpandDimsType("", _lease=self._lease)
        return expand

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorageFormat):
            return NotImplemented
        return (
            self.origin_format == other.origin_format
            and self.storage_format == other.storage_format
            and self.expand_dims_type == other.expand_dims_type
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self._lease.valid:
            return "StorageFormat(<expired>)"
        return f"StorageFormat({self._origin.name}, {self._storage.name})"


class TensorPlacement(enum.IntEnum):
    """Where a runtime tensor's data is (GE's ``gert::TensorPlacement``)."""

    kOnDeviceHbm = 0
    kOnHost = 1
    kFollowing = 2
    kOnDeviceP2p = 3


class TensorDesc:
    """Tensor metadata for ``infer_meta``: a StorageShape and a DataType.

    ``TensorDesc([2, 3], DataType.DT_FLOAT)``; ``shape`` None is a scalar.
    Owned by Python code; not a borrowed view.
    """

    __slots__ = ("_shape", "_data_type")

    def __init__(
        self, shape: StorageShape | Sequence[int] | None, data_type: DataType
    ) -> None:
        self.shape = shape
        self.data_type = data_type

    @property
    def shape(self) -> StorageShape:
        return self._shape

    @shape.setter
    def shape(self, value: StorageShape | Sequence[int] | None) -> None:
        if value is None:
            self._shape = StorageShape(())
        elif isinstance(value, StorageShape):
            self._shape = StorageShape(
                value.origin_shape.dims, value.storage_shape.dims
            )
        elif isinstance(value, Shape):
            self._shape = StorageShape(value.dims)
        elif isinstance(value, (list, tuple)):
            self._shape = StorageShape(_dims(value, "TensorDesc shape"))
        else:
            raise TypeError(
                "TensorDesc shape must be a StorageShape, a list of ints or None, "
                f"got {type(value).__name__}"
            )

    @property
    def data_type(self) -> DataType:
        return self._data_type

    @data_type.setter
    def data_type(self, value: DataType) -> None:
        if not isinstance(value, DataType):
            raise TypeError(
                f"TensorDesc data_type must be a DataType, got {type(value).__name__}"
            )
        if value is DataType.DT_MAX:
            raise ValueError("TensorDesc data_type cannot be DataType.DT_MAX")
        self._data_type = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorDesc):
            return NotImplemented
        return self._shape == other._shape and self._data_type == other._data_type

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TensorDesc({self._shape.origin_shape.dims}, DataType.{self._data_type.name})"
