"""GE's enumerations with GE's numeric values (metadef ``c_types.h``).

This module is the single table of data types, formats and placements for the
whole project: the runtime, the generator (spec dtype names, TensorType sets)
and the model file format all read it. It imports nothing heavy.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from types import MappingProxyType

__all__ = [
    "DataType",
    "Format",
    "Placement",
    "AttrValueType",
    "TensorType",
    "NAMED_TENSOR_TYPES",
    "UNDEFINED_DTYPE_NAME",
    "attr_dtype_from_spec_name",
    "attr_dtype_spec_name",
    "dtype_from_spec_name",
    "dtype_spec_names",
    "element_bits",
]


class _NamedIntEnum(enum.IntEnum):
    """An IntEnum that prints its name, as GE's enums print on the Pythons GE
    supports (3.7 to 3.10, where ``str`` of an IntEnum member is
    ``DataType.DT_FLOAT``); Python 3.11 made ``str`` the number. Formatting
    (``f"{dt}"``, ``format(dt, "d")``) stays the number, as ``int``'s."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __format__(self, format_spec: str) -> str:
        return int.__format__(int(self), format_spec)


class DataType(_NamedIntEnum):
    """Tensor element types; values are GE's ``C_DT_*`` numbers."""

    DT_FLOAT = 0
    DT_FLOAT16 = 1
    DT_INT8 = 2
    DT_INT32 = 3
    DT_UINT8 = 4
    # 5 is reserved in GE.
    DT_INT16 = 6
    DT_UINT16 = 7
    DT_UINT32 = 8
    DT_INT64 = 9
    DT_UINT64 = 10
    DT_DOUBLE = 11
    DT_BOOL = 12
    DT_STRING = 13
    DT_DUAL_SUB_INT8 = 14
    DT_DUAL_SUB_UINT8 = 15
    DT_COMPLEX64 = 16
    DT_COMPLEX128 = 17
    DT_QINT8 = 18
    DT_QINT16 = 19
    DT_QINT32 = 20
    DT_QUINT8 = 21
    DT_QUINT16 = 22
    DT_RESOURCE = 23
    DT_STRING_REF = 24
    DT_DUAL = 25
    DT_VARIANT = 26
    DT_BF16 = 27
    DT_UNDEFINED = 28
    DT_INT4 = 29
    DT_UINT1 = 30
    DT_INT2 = 31
    DT_UINT2 = 32
    DT_COMPLEX32 = 33
    DT_HIFLOAT8 = 34
    DT_FLOAT8_E5M2 = 35
    DT_FLOAT8_E4M3FN = 36
    DT_FLOAT8_E8M0 = 37
    DT_FLOAT6_E3M2 = 38
    DT_FLOAT6_E2M3 = 39
    DT_FLOAT4_E2M1 = 40
    DT_FLOAT4_E1M2 = 41
    DT_HIFLOAT4 = 42
    DT_MAX = 43

    @property
    def spec_name(self) -> str:
        """The lower-case name op specs use for this type (``float32`` ...)."""
        return _SPEC_NAME_OF[self]

    @property
    def bits(self) -> int:
        """Bits per element, or -1 where GE gives no fixed size."""
        return element_bits(self)

    @property
    def itemsize(self) -> int:
        """Bytes per element for byte-sized types; -1 for sub-byte or unsized."""
        bits = element_bits(self)
        return bits // 8 if bits > 0 and bits % 8 == 0 else -1


# Bits per element, from GE's GetSizeByDataType (types.h): sizes in bytes,
# sub-byte types as 1000 + bits. -1 = no fixed size.
_BYTES: dict[DataType, int] = {
    DataType.DT_FLOAT: 4,
    DataType.DT_FLOAT16: 2,
    DataType.DT_INT8: 1,
    DataType.DT_INT32: 4,
    DataType.DT_UINT8: 1,
    DataType.DT_INT16: 2,
    DataType.DT_UINT16: 2,
    DataType.DT_UINT32: 4,
    DataType.DT_INT64: 8,
    DataType.DT_UINT64: 8,
    DataType.DT_DOUBLE: 8,
    DataType.DT_BOOL: 1,
    DataType.DT_STRING: -1,
    DataType.DT_DUAL_SUB_INT8: 1,
    DataType.DT_DUAL_SUB_UINT8: 1,
    DataType.DT_COMPLEX64: 8,
    DataType.DT_COMPLEX128: 16,
    DataType.DT_QINT8: 1,
    DataType.DT_QINT16: 2,
    DataType.DT_QINT32: 4,
    DataType.DT_QUINT8: 1,
    DataType.DT_QUINT16: 2,
    DataType.DT_RESOURCE: 8,
    DataType.DT_STRING_REF: -1,
    DataType.DT_DUAL: 5,
    DataType.DT_VARIANT: 8,
    DataType.DT_BF16: 2,
    DataType.DT_UNDEFINED: -1,
    DataType.DT_INT4: 1004,
    DataType.DT_UINT1: 1001,
    DataType.DT_INT2: 1002,
    DataType.DT_UINT2: 1002,
    DataType.DT_COMPLEX32: 4,
    DataType.DT_HIFLOAT8: 1,
    DataType.DT_FLOAT8_E5M2: 1,
    DataType.DT_FLOAT8_E4M3FN: 1,
    DataType.DT_FLOAT8_E8M0: 1,
    DataType.DT_FLOAT6_E3M2: 1006,
    DataType.DT_FLOAT6_E2M3: 1006,
    DataType.DT_FLOAT4_E2M1: 1004,
    DataType.DT_FLOAT4_E1M2: 1004,
    DataType.DT_HIFLOAT4: 1004,
    DataType.DT_MAX: -1,
}


def element_bits(data_type: DataType) -> int:
    """Bits per element of ``data_type``; -1 where GE defines no size."""
    size = _BYTES[DataType(data_type)]
    if size < 0:
        return -1
    return size - 1000 if size > 1000 else size * 8


# Spec names (docs/spec-reference.md): GE's name without ``DT_``,
# lower-cased, except the five renamed below. DT_UNDEFINED and DT_MAX are
# markers, not types.
_RENAMED = {
    DataType.DT_FLOAT: "float32",
    DataType.DT_FLOAT16: "float16",
    DataType.DT_BF16: "bfloat16",
    DataType.DT_DOUBLE: "float64",
    DataType.DT_BOOL: "bool",
}
_SPEC_NAME_OF: Mapping[DataType, str] = MappingProxyType(
    {
        dt: _RENAMED.get(dt, dt.name[3:].lower())
        for dt in DataType
        if dt not in (DataType.DT_UNDEFINED, DataType.DT_MAX)
    }
)
_BY_SPEC_NAME: Mapping[str, DataType] = MappingProxyType(
    {name: dt for dt, name in _SPEC_NAME_OF.items()}
)


def dtype_from_spec_name(name: str) -> DataType:
    """``"float32"`` -> ``DataType.DT_FLOAT``; KeyError for unknown names."""
    return _BY_SPEC_NAME[name]


def dtype_spec_names() -> tuple[str, ...]:
    """Every dtype name a spec may use, in DataType order."""
    return tuple(_BY_SPEC_NAME)


# The spec's word for DT_UNDEFINED as the value of a dtype attr, GE's "no
# type given" (Note [Undefined dtype attrs] in ge_ir/attrs.py); no tensor
# dtype is called so.
UNDEFINED_DTYPE_NAME = "undefined"


def attr_dtype_from_spec_name(name: str) -> DataType:
    """A dtype attr's value by its spec name: a dtype name, or
    ``undefined`` for DT_UNDEFINED; KeyError for other names."""
    if name == UNDEFINED_DTYPE_NAME:
        return DataType.DT_UNDEFINED
    return _BY_SPEC_NAME[name]


def attr_dtype_spec_name(data_type: DataType) -> str:
    """The spec name of a dtype attr's value (``undefined`` for
    DT_UNDEFINED); KeyError for DT_MAX."""
    if data_type is DataType.DT_UNDEFINED:
        return UNDEFINED_DTYPE_NAME
    return _SPEC_NAME_OF[data_type]


class Format(_NamedIntEnum):
    """Tensor layouts; values are GE's ``C_FORMAT_*`` numbers (metadef c_types.h).

    GE's own Python enum stops at 51 and renumbers END/MAX; this table follows
    the C++ header, so values agree across languages.
    """

    FORMAT_NCHW = 0
    FORMAT_NHWC = 1
    FORMAT_ND = 2
    FORMAT_NC1HWC0 = 3
    FORMAT_FRACTAL_Z = 4
    FORMAT_NC1C0HWPAD = 5
    FORMAT_NHWC1C0 = 6
    FORMAT_FSR_NCHW = 7
    FORMAT_FRACTAL_DECONV = 8
    FORMAT_C1HWNC0 = 9
    FORMAT_FRACTAL_DECONV_TRANSPOSE = 10
    FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS = 11
    FORMAT_NC1HWC0_C04 = 12
    FORMAT_FRACTAL_Z_C04 = 13
    FORMAT_CHWN = 14
    FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = 15
    FORMAT_HWCN = 16
    FORMAT_NC1KHKWHWC0 = 17
    FORMAT_BN_WEIGHT = 18
    FORMAT_FILTER_HWCK = 19
    FORMAT_HASHTABLE_LOOKUP_LOOKUPS = 20
    FORMAT_HASHTABLE_LOOKUP_KEYS = 21
    FORMAT_HASHTABLE_LOOKUP_VALUE = 22
    FORMAT_HASHTABLE_LOOKUP_OUTPUT = 23
    FORMAT_HASHTABLE_LOOKUP_HITS = 24
    FORMAT_C1HWNCoC0 = 25
    FORMAT_MD = 26
    FORMAT_NDHWC = 27
    FORMAT_FRACTAL_ZZ = 28
    FORMAT_FRACTAL_NZ = 29
    FORMAT_NCDHW = 30
    FORMAT_DHWCN = 31
    FORMAT_NDC1HWC0 = 32
    FORMAT_FRACTAL_Z_3D = 33
    FORMAT_CN = 34
    FORMAT_NC = 35
    FORMAT_DHWNC = 36
    FORMAT_FRACTAL_Z_3D_TRANSPOSE = 37
    FORMAT_FRACTAL_ZN_LSTM = 38
    FORMAT_FRACTAL_Z_G = 39
    FORMAT_RESERVED = 40
    FORMAT_ALL = 41
    FORMAT_NULL = 42
    FORMAT_ND_RNN_BIAS = 43
    FORMAT_FRACTAL_ZN_RNN = 44
    FORMAT_NYUV = 45
    FORMAT_NYUV_A = 46
    FORMAT_NCL = 47
    FORMAT_FRACTAL_Z_WINO = 48
    FORMAT_C1HWC0 = 49
    FORMAT_FRACTAL_NZ_C0_16 = 50
    FORMAT_FRACTAL_NZ_C0_32 = 51
    FORMAT_FRACTAL_NZ_C0_2 = 52
    FORMAT_FRACTAL_NZ_C0_4 = 53
    FORMAT_FRACTAL_NZ_C0_8 = 54
    FORMAT_END = 55
    FORMAT_MAX = 0xFF


class Placement(enum.IntEnum):
    """Where tensor data lives (GE ``kPlacementHost`` / ``kPlacementDevice``)."""

    PLACEMENT_HOST = 0
    PLACEMENT_DEVICE = 1


class AttrValueType(enum.IntEnum):
    """GE's attribute value types (``AttrValueType``); list types are 1000 + base."""

    VT_NONE = 0
    VT_STRING = 1
    VT_FLOAT = 2
    VT_BOOL = 3
    VT_INT = 4
    VT_TENSOR_DESC = 5
    VT_TENSOR = 6
    VT_BYTES = 7
    VT_GRAPH = 8
    VT_NAMED_ATTRS = 9
    VT_LIST_LIST_INT = 10
    VT_DATA_TYPE = 11
    VT_LIST_LIST_FLOAT = 12
    VT_LIST_BASE = 1000
    VT_LIST_STRING = 1001
    VT_LIST_FLOAT = 1002
    VT_LIST_BOOL = 1003
    VT_LIST_INT = 1004
    VT_LIST_TENSOR_DESC = 1005
    VT_LIST_TENSOR = 1006
    VT_LIST_BYTES = 1007
    VT_LIST_GRAPH = 1008
    VT_LIST_NAMED_ATTRS = 1009
    VT_LIST_DATA_TYPE = 1011


def _dts(*names: str) -> frozenset[DataType]:
    return frozenset(DataType["DT_" + n] for n in names)


class TensorType:
    """A set of data types, as GE's ``TensorType``; named sets keep their name."""

    __slots__ = ("_types", "_name")

    def __init__(self, types: Iterable[DataType], name: str | None = None) -> None:
        self._types = frozenset(DataType(t) for t in types)
        self._name = name

    @property
    def types(self) -> frozenset[DataType]:
        return self._types

    @property
    def name(self) -> str | None:
        """GE's static constructor name (``NumberType``) for a named set."""
        return self._name

    def __contains__(self, item: object) -> bool:
        return item in self._types

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(sorted(self._types))

    def __len__(self) -> int:
        return len(self._types)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorType) and self._types == other._types

    def __hash__(self) -> int:
        return hash(self._types)

    def __repr__(self) -> str:
        if self._name:
            return f"TensorType.{self._name}()"
        return "TensorType({" + ", ".join(t.name for t in self) + "})"


# GE's static TensorType sets (metadef types.h), by constructor name.
NAMED_TENSOR_TYPES: Mapping[str, TensorType] = MappingProxyType(
    {
        name: TensorType(types, name)
        for name, types in {
            "ALL": _dts(
                "BOOL",
                "COMPLEX128",
                "COMPLEX64",
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "QINT16",
                "QINT32",
                "QINT8",
                "QUINT16",
                "QUINT8",
                "RESOURCE",
                "STRING",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
                "BF16",
                "COMPLEX32",
            ),
            "QuantifiedType": _dts("QINT16", "QINT32", "QINT8", "QUINT16", "QUINT8"),
            "OrdinaryType": _dts(
                "BOOL",
                "COMPLEX128",
                "COMPLEX64",
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
                "BF16",
                "COMPLEX32",
            ),
            "BasicType": _dts(
                "COMPLEX128",
                "COMPLEX64",
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "QINT16",
                "QINT32",
                "QINT8",
                "QUINT16",
                "QUINT8",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
                "BF16",
                "COMPLEX32",
            ),
            "NumberType": _dts(
                "COMPLEX128",
                "COMPLEX64",
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "QINT32",
                "QINT8",
                "QUINT8",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
                "BF16",
                "COMPLEX32",
            ),
            "RealNumberType": _dts(
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
                "BF16",
            ),
            "ComplexDataType": _dts("COMPLEX128", "COMPLEX64", "COMPLEX32"),
            "IntegerDataType": _dts(
                "INT16",
                "INT32",
                "INT64",
                "INT8",
                "UINT16",
                "UINT32",
                "UINT64",
                "UINT8",
            ),
            "SignedDataType": _dts("INT16", "INT32", "INT64", "INT8"),
            "UnsignedDataType": _dts("UINT16", "UINT32", "UINT64", "UINT8"),
            "FloatingDataType": _dts("DOUBLE", "FLOAT", "FLOAT16"),
            "IndexNumberType": _dts("INT32", "INT64"),
            "UnaryDataType": _dts(
                "COMPLEX128",
                "COMPLEX64",
                "DOUBLE",
                "FLOAT",
                "FLOAT16",
                "BF16",
                "COMPLEX32",
            ),
            "FLOAT": _dts("FLOAT", "FLOAT16", "BF16"),
        }.items()
    }
)
