"""DataType <-> numpy dtype, and converting numbers to a DataType. Types
numpy cannot hold have no mapping.

bfloat16 has the ``ml_dtypes`` package's ``bfloat16`` (numpy has none): a
float of numpy's kind "V" that converts to and from the other floats by
round-to-nearest-even; ``is_number_dtype`` and ``float_info`` treat it as
the float it is. ml_dtypes is imported only when a bfloat16 dtype is asked
for: its import takes a second or more, which every ``import ge`` (and every
ge-atc, every model load) would otherwise pay. An array that already has
the dtype comes from a program that imported it.

What works without a numpy dtype: the fp8/fp6/fp4 types, the
sub-byte integers, complex32, strings and the quantised types are valid
``DataType`` members everywhere (graphs, specs, attrs, model files); tensors of
them can be created from raw bytes (``Tensor(data=bytes, ...)``) and moved as
bytes, but ``Tensor.numpy()`` and list data raise TypeError for them.

Note [Conversions that change values]: numbers become another type as numpy
casts them (float -> int truncates toward zero, as GE's ``int(x)`` does),
except where the value would silently become another one; those raise:
complex -> real (TypeError), an integer outside the target's range, a NaN
or infinity -> an integer, a float outside an integer's range, and a finite
number that would become an infinity (1e40 -> float32) (ValueError). One
rule for ``ge.graph.Tensor`` data and ``ge.runtime.Tensor.copy_from``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ge.graph.types import DataType


@lru_cache(maxsize=1)
def bfloat16() -> np.dtype:
    """ml_dtypes' bfloat16, imported on first use."""
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def _is_bfloat16(dtype: np.dtype) -> bool:
    """Without importing ml_dtypes: only it makes a dtype of this name."""
    return dtype.kind == "V" and dtype.name == "bfloat16"


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
        if data_type == DataType.DT_BF16:
            return bfloat16()
        raise TypeError(
            f"{DataType(data_type).name} has no numpy dtype; use raw bytes"
        ) from None


def from_numpy_dtype(dtype: Any) -> DataType:
    """The DataType of a numpy dtype, in either byte order."""
    native = np.dtype(dtype).newbyteorder("=")
    try:
        return _FROM_NUMPY[native]
    except KeyError:
        if _is_bfloat16(native) and native == bfloat16():
            return DataType.DT_BF16
        raise TypeError(
            f"numpy dtype {np.dtype(dtype)} has no GE DataType; convert the array "
            "(array.astype(...)) or pass data_type="
        ) from None


def mapped_dtypes() -> dict[DataType, np.dtype]:
    """Every DataType that has a numpy dtype, with it (bfloat16 included,
    so this imports ml_dtypes)."""
    return {**_TO_NUMPY, DataType.DT_BF16: bfloat16()}


def has_numpy_dtype(data_type: DataType) -> bool:
    return DataType(data_type) in _TO_NUMPY or data_type == DataType.DT_BF16


def kind(dtype: np.dtype) -> str:
    """numpy's kind letter, with bfloat16 a float ("f") as it is."""
    return "f" if _is_bfloat16(dtype) else dtype.kind


def is_number_dtype(dtype: np.dtype) -> bool:
    """Whether arrays of ``dtype`` hold numbers (bool and bfloat16 included)."""
    return kind(np.dtype(dtype)) in "biufc"


def float_info(dtype: np.dtype) -> Any:
    """``np.finfo`` of a float dtype, bfloat16 included."""
    if _is_bfloat16(dtype):
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def convert(array: np.ndarray, data_type: DataType) -> np.ndarray:
    """``array`` as a C-ordered array of ``data_type``'s numpy dtype,
    refusing conversions that change values (Note [Conversions that change
    values]). TypeError for a type numpy lacks."""
    target = to_numpy_dtype(data_type)
    source = array.dtype
    source_kind, target_kind = kind(source), kind(target)
    if source_kind == "c" and target_kind != "c":
        raise TypeError(f"complex data cannot be stored as {DataType(data_type).name}")
    name = DataType(data_type).name
    if array.size and target_kind in "iu":
        if source_kind == "f":
            finite = np.isfinite(array)
            if not finite.all():
                bad = array[~finite].flat[0]
                raise ValueError(
                    f"{bad} cannot be stored as {name} (not a finite number)"
                )
        if source_kind in "iuf":
            info = np.iinfo(target)
            low, high = array.min(), array.max()
            if source_kind == "f":
                low, high = np.trunc(low), np.trunc(high)
            low, high = low.item(), high.item()
            if low < info.min or high > info.max:
                bad = low if low < info.min else high
                raise ValueError(
                    f"{bad} does not fit in {name} ({info.min}..{info.max})"
                )
    with np.errstate(over="ignore", invalid="ignore"):
        typed = np.array(array, dtype=target, order="C")
    if typed.size and target_kind in "fc" and source_kind in "iufc":
        overflowed = np.isinf(typed) & ~np.isinf(array)
        if overflowed.any():
            bad = array[overflowed].flat[0]
            largest = float_info(target).max
            raise ValueError(f"{bad} is too large for {name} (at most {largest})")
    return typed


def encode_element(value: float, data_type: DataType, name: str = "value") -> int:
    """The bits of ``value`` stored as one element of ``data_type``, for a
    kernel scalar that fills or pads with it (not to be confused with
    ``element_bits``, a type's width). float16 rounds to nearest; for an
    integer dtype ``value`` must be a whole number in range (ValueError,
    naming it ``name``); TypeError for a type numpy has no dtype for."""
    dtype = to_numpy_dtype(data_type)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        if not float(value).is_integer() or not info.min <= value <= info.max:
            raise ValueError(
                f"{name} {value} is not a whole number in {data_type.spec_name}'s range"
            )
    with np.errstate(over="ignore"):
        element = np.array([value], dtype=dtype)
    return int(element.view(f"u{dtype.itemsize}")[0])
