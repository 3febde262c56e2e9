"""ge.graph: GE's enums and their numbers, element sizes, TensorType sets,
numpy mapping, Tensor, Graph text and lookup, NamedAttrs and attr checks.

The tables below are copied from docs/ge-compat.md ("Attr types", "DataType values", "Named TensorType sets", "Format values") and metadef's
types.h/c_types.h, not from the code under test.
"""

from __future__ import annotations

import copy

import ml_dtypes
import numpy as np
import pytest
from _rt_support import unique

import ge.es._op_api as api
from ge.device.memory import region_of
from ge.es import GraphBuilder
from ge.graph import (
    AttrValueType,
    DataType,
    Format,
    Graph,
    NamedAttrs,
    Placement,
    Tensor,
    TensorType,
)
from ge.graph.attrs import AttrType, check_attr_value
from ge.graph.numpy_dtypes import from_numpy_dtype, has_numpy_dtype, to_numpy_dtype
from ge.graph.types import (
    NAMED_TENSOR_TYPES,
    dtype_from_spec_name,
    dtype_spec_names,
    element_bits,
)

# --- docs/ge-compat.md, "DataType values" -----------------------------------------

DATA_TYPES = {
    "DT_FLOAT": 0,
    "DT_FLOAT16": 1,
    "DT_INT8": 2,
    "DT_INT32": 3,
    "DT_UINT8": 4,
    "DT_INT16": 6,
    "DT_UINT16": 7,
    "DT_UINT32": 8,
    "DT_INT64": 9,
    "DT_UINT64": 10,
    "DT_DOUBLE": 11,
    "DT_BOOL": 12,
    "DT_STRING": 13,
    "DT_DUAL_SUB_INT8": 14,
    "DT_DUAL_SUB_UINT8": 15,
    "DT_COMPLEX64": 16,
    "DT_COMPLEX128": 17,
    "DT_QINT8": 18,
    "DT_QINT16": 19,
    "DT_QINT32": 20,
    "DT_QUINT8": 21,
    "DT_QUINT16": 22,
    "DT_RESOURCE": 23,
    "DT_STRING_REF": 24,
    "DT_DUAL": 25,
    "DT_VARIANT": 26,
    "DT_BF16": 27,
    "DT_UNDEFINED": 28,
    "DT_INT4": 29,
    "DT_UINT1": 30,
    "DT_INT2": 31,
    "DT_UINT2": 32,
    "DT_COMPLEX32": 33,
    "DT_HIFLOAT8": 34,
    "DT_FLOAT8_E5M2": 35,
    "DT_FLOAT8_E4M3FN": 36,
    "DT_FLOAT8_E8M0": 37,
    "DT_FLOAT6_E3M2": 38,
    "DT_FLOAT6_E2M3": 39,
    "DT_FLOAT4_E2M1": 40,
    "DT_FLOAT4_E1M2": 41,
    "DT_HIFLOAT4": 42,
    "DT_MAX": 43,
}

# --- docs/ge-compat.md, "Format values" (the C++ values) ---

FORMATS = {
    "FORMAT_NCHW": 0,
    "FORMAT_NHWC": 1,
    "FORMAT_ND": 2,
    "FORMAT_NC1HWC0": 3,
    "FORMAT_FRACTAL_Z": 4,
    "FORMAT_NC1C0HWPAD": 5,
    "FORMAT_NHWC1C0": 6,
    "FORMAT_FSR_NCHW": 7,
    "FORMAT_FRACTAL_DECONV": 8,
    "FORMAT_C1HWNC0": 9,
    "FORMAT_FRACTAL_DECONV_TRANSPOSE": 10,
    "FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS": 11,
    "FORMAT_NC1HWC0_C04": 12,
    "FORMAT_FRACTAL_Z_C04": 13,
    "FORMAT_CHWN": 14,
    "FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS": 15,
    "FORMAT_HWCN": 16,
    "FORMAT_NC1KHKWHWC0": 17,
    "FORMAT_BN_WEIGHT": 18,
    "FORMAT_FILTER_HWCK": 19,
    "FORMAT_HASHTABLE_LOOKUP_LOOKUPS": 20,
    "FORMAT_HASHTABLE_LOOKUP_KEYS": 21,
    "FORMAT_HASHTABLE_LOOKUP_VALUE": 22,
    "FORMAT_HASHTABLE_LOOKUP_OUTPUT": 23,
    "FORMAT_HASHTABLE_LOOKUP_HITS": 24,
    "FORMAT_C1HWNCoC0": 25,
    "FORMAT_MD": 26,
    "FORMAT_NDHWC": 27,
    "FORMAT_FRACTAL_ZZ": 28,
    "FORMAT_FRACTAL_NZ": 29,
    "FORMAT_NCDHW": 30,
    "FORMAT_DHWCN": 31,
    "FORMAT_NDC1HWC0": 32,
    "FORMAT_FRACTAL_Z_3D": 33,
    "FORMAT_CN": 34,
    "FORMAT_NC": 35,
    "FORMAT_DHWNC": 36,
    "FORMAT_FRACTAL_Z_3D_TRANSPOSE": 37,
    "FORMAT_FRACTAL_ZN_LSTM": 38,
    "FORMAT_FRACTAL_Z_G": 39,
    "FORMAT_RESERVED": 40,
    "FORMAT_ALL": 41,
    "FORMAT_NULL": 42,
    "FORMAT_ND_RNN_BIAS": 43,
    "FORMAT_FRACTAL_ZN_RNN": 44,
    "FORMAT_NYUV": 45,
    "FORMAT_NYUV_A": 46,
    "FORMAT_NCL": 47,
    "FORMAT_FRACTAL_Z_WINO": 48,
    "FORMAT_C1HWC0": 49,
    "FORMAT_FRACTAL_NZ_C0_16": 50,
    "FORMAT_FRACTAL_NZ_C0_32": 51,
    "FORMAT_FRACTAL_NZ_C0_2": 52,
    "FORMAT_FRACTAL_NZ_C0_4": 53,
    "FORMAT_FRACTAL_NZ_C0_8": 54,
    "FORMAT_END": 55,
    "FORMAT_MAX": 0xFF,
}

PLACEMENTS = {"PLACEMENT_HOST": 0, "PLACEMENT_DEVICE": 1}

# --- docs/ge-compat.md, "Attr types" (list types are 1000 + base) -----------

ATTR_VALUE_TYPES = {
    "VT_NONE": 0,
    "VT_STRING": 1,
    "VT_FLOAT": 2,
    "VT_BOOL": 3,
    "VT_INT": 4,
    "VT_TENSOR_DESC": 5,
    "VT_TENSOR": 6,
    "VT_BYTES": 7,
    "VT_GRAPH": 8,
    "VT_NAMED_ATTRS": 9,
    "VT_LIST_LIST_INT": 10,
    "VT_DATA_TYPE": 11,
    "VT_LIST_LIST_FLOAT": 12,
    "VT_LIST_BASE": 1000,
    "VT_LIST_STRING": 1001,
    "VT_LIST_FLOAT": 1002,
    "VT_LIST_BOOL": 1003,
    "VT_LIST_INT": 1004,
    "VT_LIST_TENSOR_DESC": 1005,
    "VT_LIST_TENSOR": 1006,
    "VT_LIST_BYTES": 1007,
    "VT_LIST_GRAPH": 1008,
    "VT_LIST_NAMED_ATTRS": 1009,
    "VT_LIST_DATA_TYPE": 1011,
}

# --- GetSizeByDataType (metadef types.h): bytes, or 1000 + bits -------------

SUB_BYTE = 1000  # kDataTypeSizeBitOffset
GET_SIZE_BY_DATA_TYPE = {
    "DT_FLOAT": 4,
    "DT_FLOAT16": 2,
    "DT_INT8": 1,
    "DT_INT32": 4,
    "DT_UINT8": 1,
    "DT_INT16": 2,
    "DT_UINT16": 2,
    "DT_UINT32": 4,
    "DT_INT64": 8,
    "DT_UINT64": 8,
    "DT_DOUBLE": 8,
    "DT_BOOL": 1,
    "DT_STRING": -1,
    "DT_DUAL_SUB_INT8": 1,
    "DT_DUAL_SUB_UINT8": 1,
    "DT_COMPLEX64": 8,
    "DT_COMPLEX128": 16,
    "DT_QINT8": 1,
    "DT_QINT16": 2,
    "DT_QINT32": 4,
    "DT_QUINT8": 1,
    "DT_QUINT16": 2,
    "DT_RESOURCE": 8,
    "DT_STRING_REF": -1,
    "DT_DUAL": 5,
    "DT_VARIANT": 8,
    "DT_BF16": 2,
    "DT_UNDEFINED": -1,
    "DT_INT4": SUB_BYTE + 4,
    "DT_UINT1": SUB_BYTE + 1,
    "DT_INT2": SUB_BYTE + 2,
    "DT_UINT2": SUB_BYTE + 2,
    "DT_COMPLEX32": 4,
    "DT_HIFLOAT8": 1,
    "DT_FLOAT8_E5M2": 1,
    "DT_FLOAT8_E4M3FN": 1,
    "DT_FLOAT8_E8M0": 1,
    "DT_FLOAT6_E3M2": SUB_BYTE + 6,
    "DT_FLOAT6_E2M3": SUB_BYTE + 6,
    "DT_FLOAT4_E2M1": SUB_BYTE + 4,
    "DT_FLOAT4_E1M2": SUB_BYTE + 4,
    "DT_HIFLOAT4": SUB_BYTE + 4,
    "DT_MAX": -1,
}

# --- docs/ge-compat.md, "Named TensorType sets" --------------------

TENSOR_TYPE_SETS = {
    "ALL": "BOOL COMPLEX128 COMPLEX64 DOUBLE FLOAT FLOAT16 INT16 INT32 INT64 INT8 "
    "QINT16 QINT32 QINT8 QUINT16 QUINT8 RESOURCE STRING UINT16 UINT32 UINT64 UINT8 "
    "BF16 COMPLEX32",
    "QuantifiedType": "QINT16 QINT32 QINT8 QUINT16 QUINT8",
    "OrdinaryType": "BOOL COMPLEX128 COMPLEX64 DOUBLE FLOAT FLOAT16 INT16 INT32 "
    "INT64 INT8 UINT16 UINT32 UINT64 UINT8 BF16 COMPLEX32",
    "BasicType": "COMPLEX128 COMPLEX64 DOUBLE FLOAT FLOAT16 INT16 INT32 INT64 INT8 "
    "QINT16 QINT32 QINT8 QUINT16 QUINT8 UINT16 UINT32 UINT64 UINT8 BF16 COMPLEX32",
    "NumberType": "COMPLEX128 COMPLEX64 DOUBLE FLOAT FLOAT16 INT16 INT32 INT64 INT8 "
    "QINT32 QINT8 QUINT8 UINT16 UINT32 UINT64 UINT8 BF16 COMPLEX32",
    "RealNumberType": "DOUBLE FLOAT FLOAT16 INT16 INT32 INT64 INT8 UINT16 UINT32 "
    "UINT64 UINT8 BF16",
    "ComplexDataType": "COMPLEX128 COMPLEX64 COMPLEX32",
    "IntegerDataType": "INT16 INT32 INT64 INT8 UINT16 UINT32 UINT64 UINT8",
    "SignedDataType": "INT16 INT32 INT64 INT8",
    "UnsignedDataType": "UINT16 UINT32 UINT64 UINT8",
    "FloatingDataType": "DOUBLE FLOAT FLOAT16",
    "IndexNumberType": "INT32 INT64",
    "UnaryDataType": "COMPLEX128 COMPLEX64 DOUBLE FLOAT FLOAT16 BF16 COMPLEX32",
    "FLOAT": "FLOAT FLOAT16 BF16",
}

NUMPY_TYPES = {
    DataType.DT_FLOAT: np.float32,
    DataType.DT_FLOAT16: np.float16,
    DataType.DT_DOUBLE: np.float64,
    DataType.DT_INT8: np.int8,
    DataType.DT_INT16: np.int16,
    DataType.DT_INT32: np.int32,
    DataType.DT_INT64: np.int64,
    DataType.DT_UINT8: np.uint8,
    DataType.DT_UINT16: np.uint16,
    DataType.DT_UINT32: np.uint32,
    DataType.DT_UINT64: np.uint64,
    DataType.DT_BOOL: np.bool_,
    DataType.DT_COMPLEX64: np.complex64,
    DataType.DT_COMPLEX128: np.complex128,
    DataType.DT_BF16: ml_dtypes.bfloat16,
}


# --- enums ---------------------------------------------------------------------


def test_data_type_values_are_ges_exactly() -> None:
    assert {m.name: m.value for m in DataType} == DATA_TYPES
    assert 5 not in {m.value for m in DataType}  # reserved in GE


def test_format_values_follow_the_cpp_header() -> None:
    assert {m.name: m.value for m in Format} == FORMATS
    # GE's Python enum drifted (END=52, MAX=53); 52/53 are NZ_C0_2/NZ_C0_4 here.
    assert Format(52) is Format.FORMAT_FRACTAL_NZ_C0_2
    assert Format(53) is Format.FORMAT_FRACTAL_NZ_C0_4


def test_placement_and_attr_value_type_values() -> None:
    assert {m.name: m.value for m in Placement} == PLACEMENTS
    assert {m.name: m.value for m in AttrValueType} == ATTR_VALUE_TYPES
    for member in AttrValueType:
        if member >= AttrValueType.VT_LIST_BASE + 1:
            base = AttrValueType["VT_" + member.name[len("VT_LIST_") :]]
            assert member == AttrValueType.VT_LIST_BASE + base


def test_enums_are_int_enums_usable_as_c_values() -> None:
    assert DataType.DT_BF16 == 27 and int(Format.FORMAT_MAX) == 255
    assert DataType(9) is DataType.DT_INT64
    with pytest.raises(ValueError):
        DataType(5)


# --- element sizes -----------------------------------------------------------------


def _bits_from_ge_size(size: int) -> int:
    if size < 0:
        return -1
    return size - SUB_BYTE if size > SUB_BYTE else size * 8


@pytest.mark.parametrize("name", sorted(GET_SIZE_BY_DATA_TYPE))
def test_element_sizes_follow_get_size_by_data_type(name: str) -> None:
    dtype = DataType[name]
    size = GET_SIZE_BY_DATA_TYPE[name]
    bits = _bits_from_ge_size(size)
    assert element_bits(dtype) == bits
    assert dtype.bits == bits
    assert dtype.itemsize == (size if 0 < size < SUB_BYTE else -1)


def test_every_data_type_has_a_size_entry() -> None:
    assert set(GET_SIZE_BY_DATA_TYPE) == {m.name for m in DataType}


@pytest.mark.parametrize(
    ("dtype", "elements", "nbytes"),
    [
        # GetSizeInBytes from metadef's unit tests: sub-byte sizes round up.
        (DataType.DT_INT4, 10, 5),
        (DataType.DT_INT4, 9, 5),
        (DataType.DT_INT2, 10, 3),
        (DataType.DT_INT2, 9, 3),
        (DataType.DT_UINT1, 10, 2),
        (DataType.DT_UINT1, 9, 2),
        (DataType.DT_HIFLOAT8, 10, 10),
        (DataType.DT_FLOAT8_E5M2, 10, 10),
        (DataType.DT_FLOAT6_E3M2, 4, 3),
        (DataType.DT_FLOAT, 10, 40),
        (DataType.DT_DUAL, 2, 10),
    ],
)
def test_tensor_byte_size_is_ges_get_size_in_bytes(
    dtype: DataType, elements: int, nbytes: int
) -> None:
    tensor = Tensor(bytes(nbytes), data_type=dtype, shape=[elements])
    assert tensor.size == nbytes
    with pytest.raises(ValueError, match=f"needs {nbytes}"):
        Tensor(bytes(nbytes + 1), data_type=dtype, shape=[elements])


# --- spec names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "spec"),
    [
        (DataType.DT_FLOAT, "float32"),
        (DataType.DT_FLOAT16, "float16"),
        (DataType.DT_BF16, "bfloat16"),
        (DataType.DT_DOUBLE, "float64"),
        (DataType.DT_BOOL, "bool"),
        (DataType.DT_INT8, "int8"),
        (DataType.DT_UINT64, "uint64"),
        (DataType.DT_COMPLEX32, "complex32"),
        (DataType.DT_FLOAT8_E4M3FN, "float8_e4m3fn"),
        (DataType.DT_HIFLOAT4, "hifloat4"),
        (DataType.DT_INT4, "int4"),
        (DataType.DT_QUINT16, "quint16"),
        (DataType.DT_STRING_REF, "string_ref"),
    ],
)
def test_spec_names(dtype: DataType, spec: str) -> None:
    assert dtype.spec_name == spec
    assert dtype_from_spec_name(spec) is dtype


def test_spec_names_cover_every_real_type_in_enum_order() -> None:
    names = dtype_spec_names()
    expected = [
        m for m in DataType if m not in (DataType.DT_UNDEFINED, DataType.DT_MAX)
    ]
    assert [dtype_from_spec_name(n) for n in names] == expected
    assert len(set(names)) == len(names)
    for marker in (DataType.DT_UNDEFINED, DataType.DT_MAX):
        with pytest.raises(KeyError):
            marker.spec_name  # noqa: B018
    for bad in ("float", "DT_FLOAT", "Float32", "undefined", "max"):
        with pytest.raises(KeyError):
            dtype_from_spec_name(bad)


# --- TensorType ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TENSOR_TYPE_SETS))
def test_named_tensor_type_sets_have_ges_members(name: str) -> None:
    expected = {DataType["DT_" + n] for n in TENSOR_TYPE_SETS[name].split()}
    tensor_type = NAMED_TENSOR_TYPES[name]
    assert set(tensor_type.types) == expected
    assert len(tensor_type) == len(expected)
    assert tensor_type.name == name
    assert repr(tensor_type) == f"TensorType.{name}()"
    assert list(tensor_type) == sorted(expected)
    for dtype in DataType:
        assert (dtype in tensor_type) is (dtype in expected)


def test_named_tensor_type_sets_are_exactly_ges() -> None:
    assert set(NAMED_TENSOR_TYPES) == set(TENSOR_TYPE_SETS)
    with pytest.raises(TypeError):
        NAMED_TENSOR_TYPES["Mine"] = TensorType([])  # type: ignore[index]


def test_tensor_type_value_semantics() -> None:
    mine = TensorType([DataType.DT_FLOAT16, DataType.DT_FLOAT, DataType.DT_BF16])
    assert mine == NAMED_TENSOR_TYPES["FLOAT"]  # equality ignores the name
    assert hash(mine) == hash(NAMED_TENSOR_TYPES["FLOAT"])
    assert mine.name is None
    assert repr(mine) == "TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16})"
    assert TensorType([3]).types == frozenset({DataType.DT_INT32})
    assert mine != {DataType.DT_FLOAT}
    with pytest.raises(ValueError):
        TensorType([5])  # reserved value, not a DataType


# --- numpy mapping -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", sorted(NUMPY_TYPES))
def test_numpy_mapping_both_ways(dtype: DataType) -> None:
    np_dtype = np.dtype(NUMPY_TYPES[dtype])
    assert to_numpy_dtype(dtype) == np_dtype
    assert from_numpy_dtype(np_dtype) is dtype
    assert has_numpy_dtype(dtype)
    assert np_dtype.itemsize == dtype.itemsize


@pytest.mark.parametrize(
    "dtype",
    [
        DataType.DT_FLOAT8_E4M3FN,
        DataType.DT_FLOAT8_E5M2,
        DataType.DT_HIFLOAT8,
        DataType.DT_INT4,
        DataType.DT_UINT1,
        DataType.DT_COMPLEX32,
        DataType.DT_STRING,
        DataType.DT_QINT8,
    ],
)
def test_types_numpy_lacks_raise_type_error(dtype: DataType) -> None:
    assert not has_numpy_dtype(dtype)
    with pytest.raises(
        TypeError, match=f"^{dtype.name} has no numpy dtype; use raw bytes$"
    ):
        to_numpy_dtype(dtype)
    with pytest.raises(TypeError, match=f"{dtype.name} tensors take raw bytes"):
        Tensor([1, 2], data_type=dtype)


def test_numpy_dtypes_without_a_ge_type_raise_type_error() -> None:
    for np_dtype in (np.dtype("U3"), np.dtype("V4"), np.dtype("datetime64[s]")):
        with pytest.raises(TypeError, match="has no GE DataType"):
            from_numpy_dtype(np_dtype)
    # Byte order is not a type: big-endian int32 is DT_INT32.
    assert from_numpy_dtype(np.dtype(">i4")) is DataType.DT_INT32


def test_bfloat16_tensor_from_raw_bytes_round_trips() -> None:
    """DT_BF16's numpy dtype is ml_dtypes' bfloat16: raw bytes read as it."""
    raw = bytes(range(12))
    tensor = Tensor(raw, data_type=DataType.DT_BF16, shape=[2, 3])
    assert tensor.shape == [2, 3] and tensor.size == 12
    assert tensor.tobytes() == raw
    array = tensor.numpy()
    assert array.dtype == ml_dtypes.bfloat16 and array.shape == (2, 3)
    assert array.tobytes() == raw


def test_bfloat16_tensor_from_numbers_rounds_to_nearest_even() -> None:
    """Numbers become bfloat16 as ml_dtypes (and GE) round: to nearest even;
    a finite number bfloat16 cannot hold is refused, as for float16."""
    values = [1.0, 1.00390625, 1.01171875, -2.5, 0.0]
    tensor = Tensor(values, data_type=DataType.DT_BF16)
    want = np.array(values, np.float32).astype(ml_dtypes.bfloat16)
    assert tensor.numpy().tobytes() == want.tobytes()
    assert tensor.data == [1.0, 1.0, 1.015625, -2.5, 0.0]
    assert from_numpy_dtype(np.dtype(ml_dtypes.bfloat16)) is DataType.DT_BF16
    with pytest.raises(ValueError, match="too large for DT_BF16"):
        Tensor([1e39], data_type=DataType.DT_BF16)


# --- ge.graph.Tensor -----------------------------------------------------------------


def test_tensor_defaults_and_empty_tensor() -> None:
    empty = Tensor()
    assert empty.shape == [0]
    assert empty.size == 0 and empty.addr == 0
    assert empty.data_type is DataType.DT_FLOAT
    assert empty.format is Format.FORMAT_ND
    assert empty.placement is Placement.PLACEMENT_HOST
    assert empty.numpy().shape == (0,)
    assert empty.data == []


def test_tensor_from_flat_and_nested_lists() -> None:
    flat = Tensor([1.5, 2.5, -3.0])
    assert flat.shape == [3] and flat.size == 12
    assert flat.data == [1.5, 2.5, -3.0]
    nested = Tensor([[1, 2, 3], [4, 5, 6]], data_type=DataType.DT_INT32)
    assert nested.shape == [2, 3]
    np.testing.assert_array_equal(nested.numpy(), [[1, 2, 3], [4, 5, 6]])
    assert nested.numpy().dtype == np.int32
    assert nested.data == [1, 2, 3, 4, 5, 6]
    assert Tensor([[]]).shape == [1, 0]


def test_tensor_from_scalar() -> None:
    scalar = Tensor(3.25)
    assert scalar.shape == [] and scalar.size == 4
    assert scalar.numpy().shape == () and scalar.data == [3.25]
    flag = Tensor(True, data_type=DataType.DT_BOOL)
    assert flag.data == [True] and flag.size == 1


def test_tensor_from_numpy_keeps_values_and_converts_to_data_type() -> None:
    array = np.arange(6, dtype=np.int64).reshape(2, 3)
    kept = Tensor(array)  # an array keeps its dtype (test_tensor_numpy.py)
    assert kept.data_type is DataType.DT_INT64
    as_float = Tensor(array, data_type=DataType.DT_FLOAT)  # given: converted
    assert as_float.data_type is DataType.DT_FLOAT
    np.testing.assert_array_equal(as_float.numpy(), array.astype(np.float32))
    strided = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    tensor = Tensor(strided, data_type=DataType.DT_INT32)
    np.testing.assert_array_equal(tensor.numpy(), strided)


def test_tensor_copies_its_data() -> None:
    array = np.ones(3, np.float32)
    tensor = Tensor(array)
    array[0] = 7
    assert tensor.data == [1.0, 1.0, 1.0]
    out = tensor.numpy()
    out[1] = 9
    assert tensor.data == [1.0, 1.0, 1.0]


def test_from_numpy_takes_the_arrays_type_and_shape() -> None:
    for np_type, dtype in [
        (np.float64, DataType.DT_DOUBLE),
        (np.int64, DataType.DT_INT64),
        (np.uint16, DataType.DT_UINT16),
        (np.bool_, DataType.DT_BOOL),
        (np.complex64, DataType.DT_COMPLEX64),
    ]:
        array = (np.arange(6) % 2).astype(np_type).reshape(3, 2)
        tensor = Tensor.from_numpy(array, format=Format.FORMAT_NCHW)
        assert tensor.data_type is dtype and tensor.shape == [3, 2]
        assert tensor.format is Format.FORMAT_NCHW
        np.testing.assert_array_equal(tensor.numpy(), array)
    with pytest.raises(TypeError, match="tensor data must be numbers, got <U1"):
        Tensor.from_numpy(np.array(["a", "b"]))


def test_tensor_from_bytes_needs_a_matching_shape() -> None:
    raw = np.array([1, -2, 3], np.int32).tobytes()
    tensor = Tensor(raw, data_type=DataType.DT_INT32, shape=[3])
    assert tensor.data == [1, -2, 3]
    assert Tensor(bytearray(4)).shape == []  # four bytes are one float32 scalar
    assert Tensor(memoryview(bytes(8)), shape=[2]).data == [0.0, 0.0]
    with pytest.raises(
        ValueError, match=r"data holds 12 bytes, but shape \[2\] of DT_INT32 needs 8"
    ):
        Tensor(raw, data_type=DataType.DT_INT32, shape=[2])
    with pytest.raises(ValueError, match=r"shape \[\] of DT_UINT8 needs 1"):
        Tensor(b"abcd", data_type=DataType.DT_UINT8)


def test_tensor_from_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "data.bin"
    path.write_bytes(np.array([[1, 2], [3, 4]], np.int16).tobytes())
    tensor = Tensor(file_path=str(path), data_type=DataType.DT_INT16, shape=[2, 2])
    np.testing.assert_array_equal(tensor.numpy(), [[1, 2], [3, 4]])
    assert Tensor(file_path=path, data_type=DataType.DT_INT16, shape=[4]).size == 8
    with pytest.raises(ValueError, match="needs 6"):
        Tensor(file_path=path, data_type=DataType.DT_INT16, shape=[3])
    with pytest.raises(FileNotFoundError):
        Tensor(file_path=tmp_path / "missing.bin", shape=[1])
    with pytest.raises(ValueError, match="give data or file_path, not both"):
        Tensor([1.0], file_path=path)


def test_tensor_with_shape_and_no_data_is_zeros() -> None:
    tensor = Tensor(data_type=DataType.DT_INT64, shape=[2, 3])
    np.testing.assert_array_equal(tensor.numpy(), np.zeros((2, 3), np.int64))
    assert tensor.size == 48
    scalar = Tensor(shape=[])
    assert scalar.shape == [] and scalar.size == 4


def test_tensor_list_data_with_explicit_shape() -> None:
    assert Tensor([1, 2, 3, 4, 5, 6], shape=[2, 3]).numpy().shape == (2, 3)
    assert Tensor([1, 2, 3], shape=(3, 1)).shape == [3, 1]
    with pytest.raises(
        ValueError, match=r"data holds 12 bytes, but shape \[2\] of DT_FLOAT needs 8"
    ):
        Tensor([1, 2, 3], shape=[2])


def test_device_placement_puts_data_in_device_memory() -> None:
    device = Tensor(
        [1, 2, 3], data_type=DataType.DT_INT32, placement=Placement.PLACEMENT_DEVICE
    )
    host = Tensor([1, 2, 3], data_type=DataType.DT_INT32)
    assert device.placement is Placement.PLACEMENT_DEVICE
    assert device.addr % 64 == 0
    start, size = region_of(device.addr)  # type: ignore[misc]
    assert start == device.addr and size == 12
    assert region_of(host.addr) is None
    assert device.data == [1, 2, 3]
    assert device == host  # equality is about shape, type, format and bytes
    assert device != Tensor([1, 2, 4], data_type=DataType.DT_INT32)
    assert device != Tensor([1, 2, 3], data_type=DataType.DT_UINT32)


def test_writable_view_writes_the_tensors_memory() -> None:
    tensor = Tensor(
        [0, 0, 0], data_type=DataType.DT_INT32, placement=Placement.PLACEMENT_DEVICE
    )
    view = tensor.writable_view()
    view[1] = 5
    assert tensor.data == [0, 5, 0]
    assert view.ctypes.data == tensor.addr


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"data_type": 0}, TypeError, "data_type must be a DataType, got int"),
        ({"data_type": "float32"}, TypeError, "data_type must be a DataType, got str"),
        ({"format": 2}, TypeError, "format must be a Format, got int"),
        ({"placement": 1}, TypeError, "placement must be a Placement, got int"),
        ({"shape": "23"}, TypeError, "shape must be a list of ints, got str"),
        ({"shape": 3}, TypeError, "shape must be a list of ints, got int"),
        ({"shape": [2.0]}, TypeError, "shape dims must be ints, got float"),
        ({"shape": [True]}, TypeError, "shape dims must be ints, got bool"),
        ({"shape": [2, -1]}, ValueError, r"needs a concrete shape, got \[2, -1\]"),
        (
            {"data_type": DataType.DT_MAX},
            ValueError,
            "DT_MAX is not a tensor data type",
        ),
        ({"data_type": DataType.DT_UNDEFINED}, ValueError, "DT_UNDEFINED is not"),
        (
            {"data_type": DataType.DT_STRING},
            ValueError,
            "DT_STRING has no fixed element size",
        ),
    ],
)
def test_tensor_argument_errors(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        Tensor(**kwargs)


def test_ragged_and_non_numeric_list_data_is_refused() -> None:
    with pytest.raises(ValueError, match="regular"):
        Tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="regular"):
        Tensor([1, [2, 3]])
    with pytest.raises(TypeError, match="tensor data must be numbers"):
        Tensor("abc")
    with pytest.raises(TypeError, match="tensor data must be numbers"):
        Tensor([1, "a"])
    with pytest.raises(TypeError, match="tensor data must be numbers"):
        Tensor({"a": 1})


def test_list_data_that_would_change_value_is_refused() -> None:
    # numpy would wrap these silently (300 -> 44, 2**40 -> 0, -1 -> 4294967295).
    with pytest.raises(ValueError, match=r"300 does not fit in DT_UINT8 \(0\.\.255\)"):
        Tensor([1, 300], data_type=DataType.DT_UINT8)
    with pytest.raises(ValueError, match="does not fit in DT_INT32"):
        Tensor(2**40, data_type=DataType.DT_INT32)
    with pytest.raises(ValueError, match="-1 does not fit in DT_UINT32"):
        Tensor(np.array([-1, 2]), data_type=DataType.DT_UINT32)
    with pytest.raises(TypeError, match="complex data cannot be stored as DT_FLOAT"):
        Tensor([1 + 2j])
    # At the limits it is fine; float -> int keeps numpy's truncation.
    assert Tensor([255, 0], data_type=DataType.DT_UINT8).data == [255, 0]
    assert Tensor(2**64 - 1, data_type=DataType.DT_UINT64).data == [2**64 - 1]
    assert Tensor([-(2**63)], data_type=DataType.DT_INT64).data == [-(2**63)]
    assert Tensor([1.7], data_type=DataType.DT_INT32).data == [1]
    assert Tensor([1 + 2j], data_type=DataType.DT_COMPLEX64).data == [1 + 2j]


def test_tensor_is_not_hashable_and_repr_names_its_description() -> None:
    tensor = Tensor([1.0], placement=Placement.PLACEMENT_DEVICE)
    with pytest.raises(TypeError):
        hash(tensor)
    assert repr(tensor) == (
        "Tensor(shape=[1], data_type=DT_FLOAT, format=FORMAT_ND, placement=PLACEMENT_DEVICE)"
    )


# --- Graph -------------------------------------------------------------------------------


def _graph_with_everything() -> Graph:
    op = api.OpDef(
        unique("DumpOp"),
        inputs=(api.Input("x", "float32"), api.Input("w", "float32", optional=True)),
        outputs=(api.Output("y", "float32"),),
        attrs=(
            api.Attr("axes", "list_int"),
            api.Attr("dt", "dtype"),
            api.Attr("mode", "str"),
        ),
    )
    builder = GraphBuilder("dumped")
    x = builder.create_input(0, shape=[2, -1])
    c = builder.create_const_int64([1, 2])
    y = op.build(
        inputs={"x": x, "w": None},
        attrs={"axes": [0, 1], "dt": DataType.DT_BF16, "mode": "fast"},
        name="op",
    )
    builder.add_control_dependency(y, [c])
    graph = builder.build_and_reset([y, x])
    graph._test_op_type = op.op_type  # type: ignore[attr-defined]
    return graph


def test_graph_dump_text() -> None:
    graph = _graph_with_everything()
    op_type = graph._test_op_type  # type: ignore[attr-defined]
    assert graph.dump() == (
        "graph dumped {\n"
        "  input_0 = Data() -> (float32[2,-1]) {index=0}\n"
        "  Const_0 = Const() -> (int64[2]) {value=Tensor(shape=[2], data_type=DT_INT64, "
        "format=FORMAT_ND, placement=PLACEMENT_HOST)}\n"
        f"  op = {op_type}(input_0:0, -) -> (float32?) "
        "{axes=[0, 1], dt=bfloat16, mode='fast'} after Const_0\n"
        "  return (op:0, input_0:0)\n"
        "}\n"
    )


def test_graph_dump_to_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    graph = _graph_with_everything()
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path))
    path = graph.dump_to_file(suffix="_1")
    assert path == str(tmp_path / "ge_readable_dumped_1.txt")
    assert (tmp_path / "ge_readable_dumped_1.txt").read_text() == str(graph)


def test_graph_find_node_by_name_and_node_lists() -> None:
    graph = _graph_with_everything()
    assert graph.name == "dumped"
    op = graph.find_node_by_name("op")
    assert op is not None and op.type == graph._test_op_type  # type: ignore[attr-defined]
    assert op.get_attr("axes") == (0, 1)
    assert graph.find_node_by_name("Const_0").type == "Const"  # type: ignore[union-attr]
    assert graph.find_node_by_name("nope") is None
    assert [n.name for n in graph.get_all_nodes()] == ["input_0", "Const_0", "op"]
    assert [n.name for n in graph.get_direct_nodes()] == ["input_0", "Const_0", "op"]
    assert [n.name for n in graph.input_nodes] == ["input_0"]
    assert graph.get_all_subgraphs() == []
    assert repr(graph) == "Graph('dumped', 3 nodes)"


def test_get_all_nodes_walks_subgraphs() -> None:
    body_builder = GraphBuilder("body")
    body_builder.create_input(0, name="inner")
    body = body_builder.build_and_reset()
    op = api.OpDef(
        unique("WithBody"),
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
        graphs=(api.Graph("body"),),
    )
    builder = GraphBuilder("outer")
    x = builder.create_input(0)
    builder.set_graph_output(
        op.build(inputs={"x": x}, graphs={"body": body}, name="loop"), 0
    )
    graph = builder.build_and_reset()
    assert [n.name for n in graph.get_direct_nodes()] == ["input_0", "loop"]
    assert [n.name for n in graph.get_all_nodes()] == ["input_0", "loop", "inner"]
    assert graph.get_all_subgraphs() == [body]
    assert graph.find_node_by_name("inner") is None  # direct nodes only, as GE
    assert "    subgraph body:\n      graph body {\n" in graph.dump()


def test_graph_attrs_and_name_type() -> None:
    graph = Graph("g")
    graph.set_attr("n", 3)
    graph.set_attr("names", ["a", "b"])
    graph.set_attr("empty", [], AttrType.LIST_STR)
    assert graph.get_attr("n") == 3 and graph.attrs["n"][0] is AttrType.INT
    assert graph.get_attr("names") == ("a", "b")
    assert graph.attrs["empty"] == (AttrType.LIST_STR, ())
    with pytest.raises(TypeError, match="graph name must be str"):
        Graph(1)  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        graph.get_attr("missing")


# --- NamedAttrs -------------------------------------------------------------------------


def test_named_attrs_infers_types() -> None:
    inner = NamedAttrs("inner", {"k": 1})
    named = NamedAttrs(
        "conv",
        {
            "stride": 2,
            "pads": [1, 1],
            "alpha": 0.5,
            "flag": True,
            "mode": "same",
            "dt": DataType.DT_INT8,
            "blob": b"\x00\x01",
            "grid": [[1], [2, 3]],
            "dts": [DataType.DT_FLOAT],
            "sub": inner,
            "empty": [],
            "np_int": np.int64(7),
            "np_float": np.float32(1.5),
            "np_bool": np.bool_(True),
        },
    )
    kinds = {key: named.attr_type(key) for key in named.keys()}
    assert kinds == {
        "alpha": AttrType.FLOAT,
        "blob": AttrType.BYTES,
        "dt": AttrType.DTYPE,
        "dts": AttrType.LIST_DTYPE,
        "empty": AttrType.LIST_INT,
        "flag": AttrType.BOOL,
        "grid": AttrType.LIST_LIST_INT,
        "mode": AttrType.STR,
        "np_bool": AttrType.BOOL,
        "np_float": AttrType.FLOAT,
        "np_int": AttrType.INT,
        "pads": AttrType.LIST_INT,
        "stride": AttrType.INT,
        "sub": AttrType.NAMED_ATTRS,
    }
    assert named.keys() == sorted(named.keys())
    assert named.get_attr("pads") == (1, 1)  # lists are stored as tuples
    assert named.get_attr("grid") == ((1,), (2, 3))
    assert named.get_attr("np_int") == 7 and type(named.get_attr("np_int")) is int
    assert named.get_attr("np_bool") is True
    assert named.name == "conv"
    assert list(named.typed_items())[0] == ("alpha", AttrType.FLOAT, 0.5)
    with pytest.raises(KeyError):
        named.get_attr("missing")


def test_named_attrs_explicit_types() -> None:
    named = NamedAttrs("a", {"names": []}, types={"names": AttrType.LIST_STR})
    assert named.attr_type("names") is AttrType.LIST_STR
    with pytest.raises(TypeError, match="expected str, got int"):
        NamedAttrs("a", {"x": 1}, types={"x": AttrType.STR})


def test_named_attrs_equality_includes_types() -> None:
    assert NamedAttrs("a", {"x": 1, "y": "s"}) == NamedAttrs("a", {"y": "s", "x": 1})
    assert hash(NamedAttrs("a", {"x": 1})) == hash(NamedAttrs("a", {"x": 1}))
    assert NamedAttrs("a", {"x": 1}) != NamedAttrs("a", {"x": 1.0})
    assert NamedAttrs("a", {"x": 1}) != NamedAttrs("a", {"x": True})
    assert NamedAttrs("a", {"x": [1]}) != NamedAttrs("a", {"x": [1.0]})
    assert NamedAttrs("a", {"x": 1}) != NamedAttrs("b", {"x": 1})
    assert NamedAttrs("a", {"x": 1}) != NamedAttrs("a", {"x": 1, "y": 2})
    assert NamedAttrs("a") != "a"
    assert copy.deepcopy(NamedAttrs("a", {"x": [1, 2]})) == NamedAttrs(
        "a", {"x": (1, 2)}
    )
    assert (
        repr(NamedAttrs("n", {"b": 2, "a": "x"}))
        == "NamedAttrs('n', {'a': 'x', 'b': 2})"
    )


def test_named_attrs_errors() -> None:
    with pytest.raises(TypeError, match="NamedAttrs name must be str, got int"):
        NamedAttrs(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="NamedAttrs keys must be str"):
        NamedAttrs("a", {1: 2})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="NoneType is not an attr value"):
        NamedAttrs("a", {"x": None})
    with pytest.raises(TypeError, match="expected int, got str"):
        NamedAttrs("a", {"x": [1, "a"]})
    with pytest.raises(TypeError, match="lists of list_float are not an attr type"):
        NamedAttrs("a", {"x": [[1.0]]})
    with pytest.raises(ValueError, match="does not fit in int64"):
        NamedAttrs("a", {"x": 2**63})


# --- check_attr_value ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        (AttrType.INT, 2**63 - 1, 2**63 - 1),
        (AttrType.INT, -(2**63), -(2**63)),
        (AttrType.INT, np.int32(5), 5),
        (AttrType.FLOAT, 1, 1.0),
        (AttrType.FLOAT, np.float32(0.5), 0.5),
        (AttrType.FLOAT, 3.4028234663852886e38, 3.4028234663852886e38),  # FLT_MAX
        (AttrType.FLOAT, 3.4028235e38, 3.4028235e38),  # rounds to FLT_MAX
        (AttrType.FLOAT, -3.4028235e38, -3.4028235e38),
        (AttrType.FLOAT, float("inf"), float("inf")),
        (AttrType.BOOL, True, True),
        (AttrType.BOOL, np.bool_(False), False),
        (AttrType.STR, "é", "é"),
        (AttrType.DTYPE, DataType.DT_BF16, DataType.DT_BF16),
        # GE's "no type given" (Note [Undefined dtype attrs] in ge_ir/attrs.py)
        (AttrType.DTYPE, DataType.DT_UNDEFINED, DataType.DT_UNDEFINED),
        (AttrType.BYTES, bytearray(b"ab"), b"ab"),
        (AttrType.LIST_INT, [1, 2], (1, 2)),
        (AttrType.LIST_INT, (1, 2), (1, 2)),
        (AttrType.LIST_INT, range(3), (0, 1, 2)),
        (AttrType.LIST_INT, np.array([4, 5]), (4, 5)),
        (AttrType.LIST_FLOAT, [1.0, 2], (1.0, 2.0)),
        (AttrType.LIST_BOOL, [True, False], (True, False)),
        (AttrType.LIST_STR, ["a"], ("a",)),
        (AttrType.LIST_DTYPE, [DataType.DT_FLOAT], (DataType.DT_FLOAT,)),
        (AttrType.LIST_LIST_INT, [[1], [], [2, 3]], ((1,), (), (2, 3))),
    ],
)
def test_check_attr_value_accepts_and_normalises(kind: AttrType, value, expected) -> None:  # type: ignore[no-untyped-def]
    result = check_attr_value(kind, value)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("kind", "value", "error", "message"),
    [
        (AttrType.INT, 2**63, ValueError, "9223372036854775808 does not fit in int64"),
        (AttrType.INT, -(2**63) - 1, ValueError, "does not fit in int64"),
        (AttrType.INT, np.uint64(2**64 - 1), ValueError, "does not fit in int64"),
        (AttrType.INT, True, TypeError, "expected int, got bool"),
        (AttrType.INT, 1.0, TypeError, "expected int, got float"),
        (AttrType.INT, "3", TypeError, "expected int, got str"),
        (AttrType.FLOAT, True, TypeError, "expected float, got bool"),
        (AttrType.FLOAT, "1", TypeError, "expected float, got str"),
        (AttrType.FLOAT, 3.5e38, ValueError, "does not fit in a float32 attr"),
        (AttrType.FLOAT, -3.4028235677973366e38, ValueError, "float32"),
        (AttrType.FLOAT, 1e-46, ValueError, "1e-46 rounds to 0 in a float32 attr"),
        (AttrType.FLOAT, -(2.0**-150), ValueError, "rounds to 0 in a float32 attr"),
        (AttrType.BOOL, 1, TypeError, "expected bool, got int"),
        (AttrType.BOOL, "true", TypeError, "expected bool, got str"),
        (AttrType.STR, b"a", TypeError, "expected str, got bytes"),
        (AttrType.STR, "a\x00b", ValueError, "NUL"),
        (AttrType.DTYPE, 0, TypeError, "expected DataType, got int"),
        (AttrType.DTYPE, DataType.DT_MAX, ValueError, "DT_MAX is not a data type"),
        (AttrType.LIST_DTYPE, [DataType.DT_UNDEFINED], ValueError, "DT_UNDEFINED"),
        (AttrType.BYTES, "ab", TypeError, "expected bytes, got str"),
        (AttrType.TENSOR, [1.0], TypeError, "expected ge.graph.Tensor, got list"),
        (AttrType.NAMED_ATTRS, {}, TypeError, "expected ge.graph.NamedAttrs, got dict"),
        (AttrType.LIST_INT, "12", TypeError, "expected a list for list_int, got str"),
        (
            AttrType.LIST_INT,
            b"12",
            TypeError,
            "expected a list for list_int, got bytes",
        ),
        (AttrType.LIST_INT, 1, TypeError, "expected a list for list_int, got int"),
        (
            AttrType.LIST_INT,
            {1: 2},
            TypeError,
            "expected a list for list_int, got dict",
        ),
        (AttrType.LIST_INT, [1, True], TypeError, "expected int, got bool"),
        (AttrType.LIST_INT, [2**63], ValueError, "does not fit in int64"),
        (AttrType.LIST_BOOL, [True, 0], TypeError, "expected bool, got int"),
        (AttrType.LIST_STR, "ab", TypeError, "expected a list for list_str, got str"),
        (
            AttrType.LIST_LIST_INT,
            [1, 2],
            TypeError,
            "expected a list for list_int, got int",
        ),
    ],
)
def test_check_attr_value_rejects(kind: AttrType, value, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=message):
        check_attr_value(kind, value)


def test_check_attr_value_tensor_and_named_attrs_pass_through() -> None:
    tensor = Tensor([1.0])
    assert check_attr_value(AttrType.TENSOR, tensor) is tensor
    assert check_attr_value(AttrType.LIST_TENSOR, [tensor]) == (tensor,)
    named = NamedAttrs("n")
    assert check_attr_value(AttrType.NAMED_ATTRS, named) is named
    assert check_attr_value(AttrType.LIST_NAMED_ATTRS, (named,)) == (named,)


def test_attr_types_name_ges_ir_and_value_types() -> None:
    expected = {
        "int": ("Int", "VT_INT"),
        "float": ("Float", "VT_FLOAT"),
        "bool": ("Bool", "VT_BOOL"),
        "str": ("String", "VT_STRING"),
        "dtype": ("Type", "VT_DATA_TYPE"),
        "tensor": ("Tensor", "VT_TENSOR"),
        "named_attrs": ("NamedAttrs", "VT_NAMED_ATTRS"),
        "bytes": ("Bytes", "VT_BYTES"),
        "list_int": ("ListInt", "VT_LIST_INT"),
        "list_float": ("ListFloat", "VT_LIST_FLOAT"),
        "list_bool": ("ListBool", "VT_LIST_BOOL"),
        "list_str": ("ListString", "VT_LIST_STRING"),
        "list_dtype": ("ListType", "VT_LIST_DATA_TYPE"),
        "list_list_int": ("ListListInt", "VT_LIST_LIST_INT"),
        "list_tensor": ("ListTensor", "VT_LIST_TENSOR"),
        "list_named_attrs": ("ListNamedAttrs", "VT_LIST_NAMED_ATTRS"),
    }
    assert {k.value: (k.ir_name, k.value_type.name) for k in AttrType} == expected
    for kind in AttrType:
        assert AttrType.from_ir_name(kind.ir_name) is kind
    assert AttrType.LIST_LIST_INT.element is AttrType.LIST_INT
    assert AttrType.INT.element is None and not AttrType.INT.is_list
