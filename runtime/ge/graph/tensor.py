"""``ge.graph.Tensor``: tensor data on the host or on the CPU device.

GE's constructor (``data, file_path, data_type, format, shape, placement``)
with numpy in and out. Data is stored as raw bytes, so every DataType works;
numpy conversion needs a type numpy has (see ``ge.graph.numpy_dtypes``).

Note [Device tensors]: a tensor placed on the device keeps its bytes in
device memory (``ge.device.memory.DeviceBuffer``), and every tensor has a
fixed address a kernel can read. So ``ge.graph`` sits above ``ge.device``,
which imports nothing of ``ge`` (docs/design.md, Layers): the device is
the machine, and a graph's tensors live on it. The run path reads a
tensor's dtype, shape and address once per input and output of every run;
``write_addresses`` does that here, where the fields are: through
properties, each field would cost about 50 ns more, up to half a
microsecond more per run of a two-input graph whose whole Python side
costs about one.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ge._container import read_regular_file
from ge.device.memory import DeviceBuffer
from ge.graph.limits import MAX_DIM, tensor_nbytes
from ge.graph.numpy_dtypes import (
    convert,
    from_numpy_dtype,
    has_numpy_dtype,
    is_number_dtype,
    to_numpy_dtype,
)
from ge.graph.paths import check_path
from ge.graph.types import DataType, Format, Placement
from ge_ir.attrs import register_tensor_type

# The largest file Tensor(file_path=...) reads.
MAX_FILE_BYTES = 1 << 34

__all__ = ["Tensor"]


def _zeros(nbytes: int, shape: Sequence[int]) -> np.ndarray:
    """Zeroed host memory; MemoryError saying what it was for."""
    try:
        return np.zeros(nbytes, np.uint8)
    except MemoryError:
        raise MemoryError(
            f"cannot allocate {nbytes} bytes for a tensor of shape {list(shape)}"
        ) from None


def _check_shape(shape: Any) -> list[int]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError(f"shape must be a list of ints, got {type(shape).__name__}")
    dims = []
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"shape dims must be ints, got {type(dim).__name__}")
        if dim < 0:
            raise ValueError(
                f"a tensor with data needs a concrete shape, got {list(shape)}"
            )
        if dim > MAX_DIM:
            raise ValueError(f"shape {list(shape)}: dim {dim} does not fit an int64")
        dims.append(int(dim))
    return dims


def _default_data_type(data: Any) -> DataType:
    """GE's default, DT_FLOAT, except that a numpy array or scalar keeps its
    own dtype (TypeError if GE has none for it)."""
    if isinstance(data, (np.ndarray, np.generic)):
        if not is_number_dtype(data.dtype):
            raise TypeError(f"tensor data must be numbers, got {data.dtype}")
        return from_numpy_dtype(data.dtype)
    return DataType.DT_FLOAT


class Tensor:
    """Tensor data plus its description.

    ``data`` may be a (nested) list or scalar of numbers, a numpy array or
    scalar, or raw ``bytes``; ``file_path`` reads raw bytes from a file.
    ``data_type`` None (the default) means the numpy array's (or numpy
    scalar's) own dtype, and GE's default, DT_FLOAT, for anything else; a
    given ``data_type`` is what the data is converted to, as GE converts list
    data, refusing conversions that change values (Note [Conversions that
    change values] in ``ge.graph.numpy_dtypes``). ``shape`` defaults to the data's
    shape. With ``placement=PLACEMENT_DEVICE`` the bytes live in device
    memory and ``addr`` is where kernels find them.
    """

    __slots__ = (
        "_shape",
        "_data_type",
        "_format",
        "_placement",
        "_store",
        "_addr",
        "__weakref__",  # a session tracks outputs its allocators' memory holds
    )
    _shape: tuple[int, ...]
    _data_type: DataType
    _format: Format
    _placement: Placement
    _store: np.ndarray | DeviceBuffer
    _addr: int

    def __init__(
        self,
        data: Any = None,
        file_path: str | os.PathLike[str] | None = None,
        data_type: DataType | None = None,
        format: Format = Format.FORMAT_ND,
        shape: Sequence[int] | None = None,
        placement: Placement = Placement.PLACEMENT_HOST,
    ) -> None:
        if data_type is None:
            data_type = _default_data_type(data)
        if not isinstance(data_type, DataType):
            raise TypeError(
                f"data_type must be a DataType, got {type(data_type).__name__}"
            )
        if data_type in (DataType.DT_MAX, DataType.DT_UNDEFINED):
            raise ValueError(f"{data_type.name} is not a tensor data type")
        if not isinstance(format, Format):
            raise TypeError(f"format must be a Format, got {type(format).__name__}")
        if not isinstance(placement, Placement):
            raise TypeError(
                f"placement must be a Placement, got {type(placement).__name__}"
            )
        if data is not None and file_path is not None:
            raise ValueError("give data or file_path, not both")
        self._data_type = data_type
        self._format = format
        self._placement = placement
        raw, inferred = self._raw_bytes(data, file_path, data_type)
        if shape is None:
            dims = (
                inferred if inferred is not None else ([] if raw is not None else [0])
            )
        else:
            dims = _check_shape(shape)
        try:
            expected = tensor_nbytes(dims, data_type)
        except ValueError as exc:
            raise ValueError(f"shape {dims}: {exc}") from None
        if raw is None:
            raw = _zeros(expected, dims)
        if raw.size != expected:
            raise ValueError(
                f"data holds {raw.size} bytes, but shape {dims} of "
                f"{data_type.name} needs {expected}"
            )
        self._shape = tuple(dims)
        if placement is Placement.PLACEMENT_DEVICE:
            try:
                buffer = DeviceBuffer(raw.size)
            except MemoryError:
                raise MemoryError(
                    f"cannot allocate {raw.size} bytes of device memory for a "
                    f"tensor of shape {dims}"
                ) from None
            buffer.array[:] = raw
            self._store = buffer
        else:
            self._store = np.array(raw, dtype=np.uint8, copy=True)
        self._addr = self._find_addr()

    @staticmethod
    def _raw_bytes(
        data: Any, file_path: Any, data_type: DataType
    ) -> tuple[np.ndarray | None, list[int] | None]:
        if file_path is not None:
            # A regular file only: a FIFO would hang the read and /dev/zero
            # exhaust memory (Note [Untrusted container files]).
            raw = read_regular_file(
                check_path(file_path, "file_path"), MAX_FILE_BYTES, "tensor file"
            )
            return np.frombuffer(raw, np.uint8), None
        if data is None:
            return None, None
        if isinstance(data, (bytes, bytearray, memoryview)):
            return np.frombuffer(bytes(data), np.uint8), None
        try:
            array = np.asarray(data)
        except ValueError:  # numpy refuses ragged lists
            raise ValueError(
                "tensor data must be a regular (non-ragged) list of numbers"
            ) from None
        if not is_number_dtype(array.dtype):
            what = type(data).__name__ if array.dtype == object else array.dtype
            raise TypeError(f"tensor data must be numbers, got {what}")
        if not has_numpy_dtype(data_type):
            raise TypeError(
                f"{data_type.name} tensors take raw bytes; numpy has no such type"
            )
        typed = convert(array, data_type)
        return typed.reshape(-1).view(np.uint8), list(typed.shape)

    # -- construction from numpy ---------------------------------------------

    @classmethod
    def from_numpy(
        cls,
        array: np.ndarray,
        format: Format = Format.FORMAT_ND,
        placement: Placement = Placement.PLACEMENT_HOST,
    ) -> Tensor:
        array = np.asarray(array)
        return cls(array, None, None, format, list(array.shape), placement)

    # -- description -----------------------------------------------------------

    @property
    def shape(self) -> list[int]:
        return list(self._shape)

    @property
    def data_type(self) -> DataType:
        return self._data_type

    @property
    def format(self) -> Format:
        return self._format

    @property
    def placement(self) -> Placement:
        return self._placement

    @property
    def size(self) -> int:
        """Bytes of data."""
        return int(self._bytes().size)

    def _find_addr(self) -> int:
        store = self._store
        if isinstance(store, DeviceBuffer):
            return store.addr if store.size else 0
        return int(store.ctypes.data) if store.size else 0

    @property
    def addr(self) -> int:
        """Address of the data (device memory for device tensors); fixed for
        the tensor's life."""
        return self._addr

    # -- data ------------------------------------------------------------------

    def _bytes(self) -> np.ndarray:
        store = self._store
        return store.array if isinstance(store, DeviceBuffer) else store

    def tobytes(self) -> bytes:
        return self._bytes().tobytes()

    def numpy(self) -> np.ndarray:
        """A copy of the data as a numpy array of the tensor's shape."""
        dtype = to_numpy_dtype(self._data_type)
        return self._bytes().view(dtype).reshape(self._shape).copy()

    @property
    def data(self) -> list[Any]:
        """The elements as a flat list of Python numbers (GE's ``Tensor.data``)."""
        return self.numpy().reshape(-1).tolist()

    def writable_view(self) -> np.ndarray:
        """A typed numpy view on the tensor's own memory (no copy)."""
        dtype = to_numpy_dtype(self._data_type)
        return self._bytes().view(dtype).reshape(self._shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return (
            self._shape == other._shape
            and self._data_type == other._data_type
            and self._format == other._format
            and self.tobytes() == other.tobytes()
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Tensor(shape={list(self._shape)}, data_type={self._data_type.name}, "
            f"format={self._format.name}, placement={self._placement.name})"
        )


register_tensor_type(Tensor)  # Note [Tensor attrs] in ge_ir/attrs.py


# The runtime's internal API (ge.engine, ge.offline): tensors over device
# memory it owns, and the run path's address binding.


def wrap_buffer(
    buffer: DeviceBuffer,
    shape: Sequence[int],
    data_type: DataType,
    format: Format = Format.FORMAT_ND,
    placement: Placement = Placement.PLACEMENT_HOST,
) -> Tensor:
    """A tensor over existing device memory (no copy); how graph outputs
    are handed back."""
    tensor = object.__new__(Tensor)
    tensor._shape = tuple(int(d) for d in shape)
    tensor._data_type = data_type
    tensor._format = format
    tensor._placement = placement
    tensor._store = buffer
    tensor._addr = tensor._find_addr()
    return tensor


def move_off(tensor: Tensor, kind: type[DeviceBuffer]) -> bool:
    """When the tensor's bytes are in a buffer of ``kind``, copy them to
    memory of the tensor's own and return True: its address changes. How a
    session takes a graph output off an external allocator's memory
    before handing that back."""
    store = tensor._store
    if not isinstance(store, kind) or not isinstance(store, DeviceBuffer):
        return False
    buffer = DeviceBuffer(store.size)
    buffer.array[:] = store.array
    tensor._store = buffer
    tensor._addr = tensor._find_addr()
    return True


def write_addresses(
    tensors: Sequence[object],
    signature: Sequence[tuple[DataType, tuple[int, ...]]],
    addrs: ctypes.Array[ctypes.c_uint64],
    first: int,
) -> bool:
    """When ``tensors`` are exactly Tensors of ``signature``'s dtypes and
    shapes, write the address of tensor ``i`` into ``addrs[first + i]`` and
    return True; otherwise return False (having written some), and the
    caller checks them, naming what is wrong. The per-run binding of a
    compiled graph: one call reads each tensor's fields directly (Note
    [Device tensors])."""
    if len(tensors) != len(signature):
        return False
    for i, tensor in enumerate(tensors):
        kind = signature[i]
        if (
            type(tensor) is not Tensor
            or tensor._data_type is not kind[0]
            or tensor._shape != kind[1]
        ):
            return False
        addrs[first + i] = tensor._addr
    return True
