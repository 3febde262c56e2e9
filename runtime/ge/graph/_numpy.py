"""DataType <-> numpy dtype. Types numpy cannot hold have no mapping.

What works without a numpy dtype: bfloat16, the fp8/fp6/fp4 types, the
sub-byte integers, complex32, strings and the quantised types are valid
``DataType`` members everywhere (graphs, specs, attrs, model files); tensors of
them can be created from raw bytes (``Tensor(data=bytes, ...)``) and moved as
bytes, but ``Tensor.numpy()`` and list data raise TypeError for them.
"""

from __future__ import annotations

import numpy as np

from ge.graph.types import DataType

_TO_NUMPY: dict[DataType, np.dtype] = {
    DataType.DT_FLOAT: np.dtype(np.float32),
    DataType.DT_FLOAT16: np.dtype(np.float16),
    DataType.DT_DOUBLE: np.dtype(np.float64),
    DataType.DT_INT8: np.dtype(np.int8),
    DataType.DT_INT16: np.dtype(np.int16),
    DataType.DT_INT32: np.dtype(np.int32),
    DataType.DT_INT64: np.dtype(np.int64),
    DataType.DT_UINT8: np.dtype(np.uint8),
    DataType.DT_UINT16: np.dtype(np.uint16),
    DataType.DT_UINT32: np.dtype(np.uint32),
    DataType.DT_UINT64: np.dtype(np.uint64),
    DataType.DT_BOOL: np.dtype(np.bool_),
    DataType.DT_COMPLEX64: np.dtype(np.complex64),
    DataType.DT_COMPLEX128: np.dtype(np.complex128),
}
_FROM_NUMPY = {v: k for k, v in _TO_NUMPY.items()}


def to_numpy_dtype(data_type: DataType) -> np.dtype:
    try:
        return _TO_NUMPY[DataType(data_type)]
    except KeyError:
        raise TypeError(
            f"{DataType(data_type).name} has no numpy dtype; use raw bytes"
        ) from None


def from_numpy_dtype(dtype: np.dtype) -> DataType:
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"numpy dtype {np.dtype(dtype)} has no GE DataType") from None


def has_numpy_dtype(data_type: DataType) -> bool:
    return DataType(data_type) in _TO_NUMPY
