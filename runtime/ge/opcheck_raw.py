"""Arrays of the dtypes the runtime holds only as bytes, for ``opcheck``.

The runtime maps a DataType to a numpy dtype only where numpy (or, for
bfloat16, ml_dtypes) has one it can view tensor memory as
(``ge.graph.numpy_dtypes``); float8 and int4 tensors are raw bytes
(docs/runtime.md, "Data types"). ml_dtypes has numpy dtypes for some of
them, so ``opcheck`` can still draw, pass and compare such cases: an array
of an ml_dtypes dtype goes to the runtime as the bytes of its tensor and
comes back the same way. ``RAW`` lists the types this covers.

Note [Packed int4]: the runtime packs sub-byte tensors,
``ceil(elements * bits / 8)`` bytes; ml_dtypes keeps one int4 per byte in
the low nibble. Element ``2k`` goes to the low nibble of byte ``k`` and
element ``2k + 1`` to its high nibble (the order is an assumption, not
checked against GE; it only has to agree with the kernels the spec's
implementation runs).

ml_dtypes is imported only when one of these dtypes is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from ge.graph.numpy_dtypes import from_numpy_dtype, has_numpy_dtype, to_numpy_dtype
from ge.graph.types import DataType

__all__ = [
    "RAW",
    "array_of",
    "data_type_of",
    "numeric",
    "numpy_dtype_of",
    "to_bytes",
    "to_tensor",
]

# DataType -> the ml_dtypes name of its numpy dtype.
RAW: dict[DataType, str] = {
    DataType.DT_FLOAT8_E4M3FN: "float8_e4m3fn",
    DataType.DT_FLOAT8_E5M2: "float8_e5m2",
    DataType.DT_INT4: "int4",
}
_BY_NAME = {name: data_type for data_type, name in RAW.items()}
_PACKED = frozenset({DataType.DT_INT4})


@cache
def _ml(name: str) -> np.dtype:
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))


def numpy_dtype_of(data_type: DataType) -> np.dtype:
    """The numpy dtype ``opcheck`` draws ``data_type`` as (TypeError for a
    type neither numpy nor ml_dtypes gives one for)."""
    if data_type in RAW:
        return _ml(RAW[data_type])
    return to_numpy_dtype(data_type)


def _raw(dtype: np.dtype) -> DataType | None:
    """The RAW type of an ml_dtypes dtype (by name: their kind letters
    differ, float8_e5m2's is "f"), else None."""
    data_type = _BY_NAME.get(dtype.name)
    if data_type is None or dtype != _ml(dtype.name):
        return None
    return data_type


def data_type_of(dtype: np.dtype) -> DataType:
    """The DataType of an array's dtype, the ml_dtypes ones of RAW included."""
    dtype = np.dtype(dtype)
    return _raw(dtype) or from_numpy_dtype(dtype)


def _packed(dtype: np.dtype) -> bool:
    return _raw(dtype) in _PACKED


def to_bytes(array: np.ndarray) -> bytes:
    """The bytes of a tensor holding ``array`` (Note [Packed int4])."""
    flat = np.ascontiguousarray(array).reshape(-1)
    if not _packed(array.dtype):
        return flat.tobytes()
    nibbles = flat.view(np.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = np.append(nibbles, np.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8).tobytes()


def from_bytes(data: bytes, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """An array of ``dtype`` and ``shape`` from a tensor's bytes."""
    raw = np.frombuffer(data, np.uint8)
    count = int(np.prod(shape, dtype=np.int64))
    if _packed(dtype):
        nibbles = np.empty(raw.size * 2, np.uint8)
        nibbles[0::2], nibbles[1::2] = raw & 0x0F, raw >> 4
        return nibbles[:count].copy().view(dtype).reshape(tuple(shape))
    return raw[: count * dtype.itemsize].copy().view(dtype).reshape(tuple(shape))


def to_tensor(array: np.ndarray) -> Any:
    """A ``ge.graph.Tensor`` of ``array``: from numpy where the runtime maps
    its dtype, else from its bytes."""
    from ge.graph import Tensor

    data_type = data_type_of(array.dtype)
    if has_numpy_dtype(data_type):
        return Tensor.from_numpy(array)
    return Tensor(data=to_bytes(array), data_type=data_type, shape=list(array.shape))


def array_of(tensor: Any) -> np.ndarray:
    """A tensor's contents as an array (ml_dtypes' for the RAW types)."""
    data_type = DataType(tensor.data_type)
    if has_numpy_dtype(data_type):
        result: np.ndarray = tensor.numpy()
        return result
    return from_bytes(tensor.tobytes(), tensor.shape, numpy_dtype_of(data_type))


def numeric(array: np.ndarray) -> np.ndarray:
    """``array`` in a dtype numpy computes with: the float8 types as
    float32, int4 as int8; any other unchanged."""
    data_type = _raw(array.dtype)
    if data_type is None:
        return array
    return array.astype(np.int8 if data_type in _PACKED else np.float32)
