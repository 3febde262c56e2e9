"""``ge.runtime.Tensor``: the runtime's borrowed view of a tensor in a callback.

It describes memory the runtime owns (address, size, shape, format, dtype,
placement); it never allocates or frees. It is valid only during the
callback that received it.

Note [numpy and borrowed tensors]: ``numpy()`` copies the elements out and
``copy_from`` copies them in; no numpy array over the tensor's memory is
ever handed out. A numpy array cannot be revoked when the callback returns,
and that memory is not the runtime's to keep alive: graph inputs and
outputs are the caller's buffers (freed when the caller drops them), and
intermediate tensors share the graph's arena with other nodes' tensors and
later runs. A copy is the caller's to keep; the borrowed view itself dies
with the callback, like every borrowed object. Both work only inside the
execute callback that received the tensor, on its thread (compile-time
callbacks see tensors before they hold data), and only outputs are written
(an execute callback never writes its inputs, as kernels never do).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ge.graph.numpy_dtypes import convert, is_number_dtype, to_numpy_dtype
from ge.graph.types import DataType, Format
from ge.runtime.lease import Lease, data_lease
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
        "_writable",
    )
    _addr: int
    _size: int
    _shape: StorageShape
    _format: StorageFormat
    _data_type: DataType
    _placement: TensorPlacement
    _lease: Lease
    _writable: bool

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError(
            "ge.runtime.Tensor views are provided by the runtime in callbacks"
        )

    def _check(self) -> None:
        self._lease.check(self)

    def _memory(self, method: str) -> np.ndarray:
        """A numpy view of the tensor's memory, for this call only (Note
        [numpy and borrowed tensors]); never returned to the caller."""
        self._check()
        if data_lease() is not self._lease:
            raise RuntimeError(
                f"Tensor.{method}() works only inside the execute callback that "
                f"received the tensor, on its thread; this one is from "
                f"{self._lease.what}, where tensors hold no data yet"
            )
        dtype = to_numpy_dtype(self._data_type)
        dims = tuple(self._shape.storage_shape.dims)
        nbytes = math.prod(dims) * dtype.itemsize
        if nbytes > self._size or (nbytes and not self._addr):
            raise RuntimeError(
                f"Tensor.{method}(): {list(dims)} {self._data_type.name} needs "
                f"{nbytes} bytes, but the tensor has {self._size} at 0x{self._addr:x}"
            )
        if not nbytes:
            return np.empty(dims, dtype)
        raw = (ctypes.c_ubyte * nbytes).from_address(self._addr)
        return np.frombuffer(memoryview(raw), dtype=dtype).reshape(dims)

    def numpy(self) -> np.ndarray:
        """A copy of the elements as a numpy array of the storage shape, yours
        to keep (Note [numpy and borrowed tensors]). RuntimeError outside the
        execute callback that received the tensor; TypeError for a data type
        numpy has no dtype for."""
        return self._memory("numpy").copy()

    def copy_from(self, data: Any) -> None:
        """Write ``data`` (an array, nested list or scalar of numbers;
        broadcast to the tensor's shape as numpy does) into this output,
        converted to its data type as ``ge.graph.Tensor`` converts data
        (ValueError for values that would change)."""
        target = self._memory("copy_from")
        if not self._writable:
            raise ValueError(
                "copy_from: this tensor is an input of the callback, which is "
                "read-only; execute writes only its outputs (malloc_output_tensor, "
                "make_output_ref_input)"
            )
        try:
            value = np.asarray(data)
        except ValueError:  # numpy refuses ragged lists
            raise ValueError("copy_from takes a regular array of numbers") from None
        if not is_number_dtype(value.dtype):
            raise TypeError(f"copy_from takes numbers, got {value.dtype}")
        try:
            value = np.broadcast_to(value, target.shape)
        except ValueError:
            raise ValueError(
                f"copy_from: data of shape {value.shape} does not fit the tensor's "
                f"shape {list(target.shape)}"
            ) from None
        target[...] = convert(value, self._data_type)

    @property
    def addr(self) -> int:
        """Address of the data, for kernel arguments only."""
        if not self._lease.valid:  # the check, inline: hot
            self._check()
        return self._addr

    @property
    def size(self) -> int:
        """Bytes of storage."""
        if not self._lease.valid:  # the check, inline: hot
            self._check()
        return self._size

    @property
    def shape(self) -> StorageShape:
        if not self._lease.valid:  # the check, inline: hot
            self._check()
        return self._shape

    @property
    def origin_shape(self) -> Shape:
        self._check()
        return self._shape.origin_shape

    @property
    def storage_shape(self) -> Shape:
        shape = self._shape
        if not (self._lease.valid and shape._lease.valid):  # the checks, inline: hot
            self._check()
            return shape.storage_shape
        return shape._storage

    @property
    def format(self) -> StorageFormat:
        if not self._lease.valid:  # the check, inline: hot
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
        if not self._lease.valid:  # the check, inline: hot
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


# The runtime's internal API: ``borrow`` and ``ViewTemplate`` make the views
# callbacks receive (ge.engine); a view of an execute callback's output
# (``ViewTemplate.view(..., writable=True)``) is one ``copy_from`` may
# write. Op code never calls either.


def borrow(
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
    """A view of ``size`` bytes at ``addr`` that lives as long as ``lease``."""
    view = object.__new__(Tensor)
    view._addr = addr
    view._size = size
    view._shape = StorageShape(origin_dims, storage_dims, _lease=lease)
    view._format = StorageFormat(origin_format, storage_format, _lease=lease)
    view._data_type = data_type
    view._placement = placement
    view._lease = lease
    view._writable = False
    return view


# An enum member read from its class costs a call of EnumType.__getattr__'s
# lookup hook on Python 3.11 (~0.2 us): the execute path reads it once.
_ON_DEVICE = TensorPlacement.kOnDeviceHbm


class ViewTemplate:
    """What never changes between the views of one tensor of a compiled
    graph (size, dims, data type, formats), checked once; ``view`` makes a
    fresh view at an address without checking again (the execute path
    makes one per tensor per call, Note [Execute frames] in
    ``ge.engine.execute_frame``). Every object of a view is new and holds
    the call's lease, so views kept from an earlier call stay expired.
    Views of one call whose templates have the same ``key`` may share
    their shape and format objects (``parts``): they are immutable."""

    __slots__ = ("size", "dims", "data_type", "origin_format", "storage_format", "key")

    def __init__(
        self, *, size: int, dims: Sequence[int], data_type: DataType, fmt: Format
    ) -> None:
        probe = borrow(  # the checks borrow makes, once
            addr=0,
            size=size,
            origin_dims=dims,
            storage_dims=dims,
            data_type=data_type,
            origin_format=fmt,
            storage_format=fmt,
            placement=TensorPlacement.kOnDeviceHbm,
            lease=Lease("a view template"),
        )
        self.size = size
        self.dims = probe._shape._storage._dims
        self.data_type = data_type
        self.origin_format = fmt
        self.storage_format = fmt
        self.key = (self.dims, fmt, fmt)

    def parts(self, lease: Lease) -> tuple[StorageShape, StorageFormat]:
        """New shape and format objects of a view, living as long as ``lease``."""
        new = object.__new__
        dims = new(Shape)  # origin and storage dims are one (immutable) Shape
        dims._dims = self.dims
        dims._lease = lease
        shape = new(StorageShape)
        shape._origin = dims
        shape._storage = dims
        shape._lease = lease
        fmt = new(StorageFormat)
        fmt._origin = self.origin_format
        fmt._storage = self.storage_format
        fmt._expand = None  # the empty rule, made when first asked for
        fmt._lease = lease
        return shape, fmt

    def view(
        self,
        addr: int,
        lease: Lease,
        parts: tuple[StorageShape, StorageFormat] | None = None,
        writable: bool = False,
    ) -> Tensor:
        """A view of this tensor at ``addr`` that lives as long as ``lease``
        (with ``parts`` from this template, or one of the same key, made
        under the same lease); ``writable``: an execute callback's output
        (malloc_output_tensor, make_output_ref_input), which ``copy_from``
        may write."""
        if parts is None:
            parts = self.parts(lease)
        view = object.__new__(Tensor)
        view._addr = addr
        view._size = self.size
        view._shape, view._format = parts
        view._data_type = self.data_type
        view._placement = _ON_DEVICE
        view._lease = lease
        view._writable = writable
        return view


# The runtime's side (ge.engine), not GE's API:


def place_on_host(view: Tensor) -> None:
    """Mark ``view`` as a host value (GE's non-tensor inputs, ``input_kinds``)."""
    view._placement = TensorPlacement.kOnHost


def settable_output(view: Tensor) -> object:
    """Make ``view`` an output whose shape execute may set (Note
    [Data-dependent shapes] in ge.engine.dds); a token for ``written_dims``."""
    view._writable = True
    view._shape._settable = True
    return view._shape._storage


def written_dims(view: Tensor, token: object) -> tuple[int, ...]:
    """The shape execute set on ``view``: its storage shape if replaced since
    ``settable_output`` gave ``token``, else its origin shape."""
    shape = view._shape
    chosen = shape._storage if shape._storage is not token else shape._origin
    return tuple(chosen._dims)
