"""The math library's REG_OP headers (generated/include/math) declare GE's
IR: op names, input/output/attr names in GE's order, attr types and
defaults, and each op's dtype set is GE's own, complex types and string
included (issue 22): what the CPU device cannot compute yet is refused at
compile, not left out of the IR (Note [Declared and run dtypes] in
ops/math/_runs.py; docs/math-ops.md). test_cpp_headers.py compiles the same
headers against the copy of GE's external headers.

GE_DECLARED holds facts read from GE's op-proto headers (the newest of the
public copies), written out here, not copied. Rsqrt, Sigmoid and Tanh are
declared on TensorType::UnaryDataType() in GE's elewise_calculation_ops.h
and nonlinear_fuc_ops.h (a newer standalone rsqrt proto of the CANN math
ops lists integers and bool instead of double; docs/math-ops.md says why we
keep GE's header). Pow has GE's promoting form: x1 of T1, x2 of T2 and y
of the promotion of the two.

GE_IR holds the data-movement and NN ops (docs/math-ops.md, "The
data-movement and NN ops") the same way, slot by slot, from the newest
public copies: the CANN math ops' conversion/<op>/op_graph/<op>_proto.h
(identity, tensor_move, split, concat, concat_v2, transpose) and the CANN
NN ops' common/inc/op_graph/op_nn_proto_extend.h (Conv2D, GEMM,
BatchMatMulV2). GE writes a set inline on every slot; our headers tie the
slots GE gives the same set to one type variable and write the others
inline, so each slot is checked for the type symbol the header uses and,
through its DATATYPE, for GE's set. Named sets: where GE writes a name
alone (TensorType::ALL(), TensorType::IndexNumberType()) the header must
write the same name (the written form is compared); where GE writes one
inside a list (Concat's {BasicType(), DT_BOOL, ...}) the header writes the
members (gen-ops expands a list's names), so the sets are compared after
expansion, BasicType's members written out below from GE's graph/types.h."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ge_ir.types import NAMED_TENSOR_TYPES

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "generated/include/math"

# Types GE lists that the CPU device has no arithmetic for.
NOT_ON_CPU = {
    "DT_COMPLEX32",
    "DT_COMPLEX64",
    "DT_COMPLEX128",
    "DT_STRING",
    "DT_QINT8",
}
UNARY_DATA_TYPE = {
    "DT_COMPLEX128",
    "DT_COMPLEX64",
    "DT_DOUBLE",
    "DT_FLOAT",
    "DT_FLOAT16",
    "DT_BF16",
    "DT_COMPLEX32",
}
REAL = "DT_FLOAT DT_FLOAT16 DT_DOUBLE DT_UINT8 DT_INT8 DT_UINT16 DT_INT16 DT_INT32 DT_INT64"
NEWER = {"DT_BOOL", "DT_BF16", "DT_COMPLEX64", "DT_COMPLEX128", "DT_COMPLEX32"}
BINARY_IO = (["INPUT x1", "INPUT x2", "OUTPUT y"], [])
UNARY_IO = (["INPUT x", "OUTPUT y"], [])
LOG_ATTRS = ["base Float -1.0", "scale Float 1.0", "shift Float 0.0"]

# op -> (slots in IR order, attrs "name Type default", GE's dtype set)
GE_DECLARED: dict[str, tuple[list[str], list[str], set[str]]] = {
    # the CANN math ops' add_proto.h, newer than GE's elewise header, adds
    # bool, bfloat16 and complex32
    "Add": (
        *BINARY_IO,
        set(
            "DT_BOOL DT_FLOAT DT_INT32 DT_INT64 DT_FLOAT16 DT_BF16 DT_INT16 DT_INT8 "
            "DT_UINT8 DT_DOUBLE DT_COMPLEX128 DT_COMPLEX64 DT_STRING DT_COMPLEX32".split()
        ),
    ),
    # the newest elewise header adds bool, bfloat16 and complex32
    "Sub": (*BINARY_IO, set(REAL.split()) | NEWER),
    # the newest elewise header's set (its T1 and T2); that Mul promotes
    # (T3 = Promote), which is not adopted yet (docs/math-ops.md, "Not yet")
    "Mul": (*BINARY_IO, set(REAL.split()) | NEWER),
    "RealDiv": (*BINARY_IO, set(REAL.split()) | {"DT_COMPLEX64", "DT_COMPLEX128"}),
    "Div": (*BINARY_IO, set(REAL.split()) | {"DT_COMPLEX64", "DT_COMPLEX128"}),
    "Maximum": (
        *BINARY_IO,
        set(
            "DT_FLOAT16 DT_FLOAT DT_DOUBLE DT_INT32 DT_INT64 DT_BF16 DT_INT8 DT_UINT8".split()
        ),
    ),
    "Minimum": (
        *BINARY_IO,
        set(
            "DT_BF16 DT_FLOAT DT_FLOAT16 DT_DOUBLE DT_INT32 DT_INT64 DT_INT8 DT_UINT8".split()
        ),
    ),
    "Neg": (
        *UNARY_IO,
        set(
            "DT_BF16 DT_FLOAT16 DT_FLOAT DT_DOUBLE DT_INT8 DT_INT32 DT_INT64 "
            "DT_COMPLEX64 DT_COMPLEX128".split()
        ),
    ),
    "Abs": (
        *UNARY_IO,
        set("DT_FLOAT16 DT_FLOAT DT_DOUBLE DT_INT8 DT_INT16 DT_INT32 DT_INT64".split()),
    ),
    "Relu": (
        *UNARY_IO,
        set(
            "DT_FLOAT DT_FLOAT16 DT_DOUBLE DT_INT8 DT_INT32 DT_INT16 DT_INT64 "
            "DT_UINT8 DT_UINT16 DT_QINT8 DT_BF16".split()
        ),
    ),
    "Sqrt": (*UNARY_IO, UNARY_DATA_TYPE),
    "Rsqrt": (*UNARY_IO, UNARY_DATA_TYPE),
    "Sigmoid": (*UNARY_IO, UNARY_DATA_TYPE),
    "Tanh": (*UNARY_IO, UNARY_DATA_TYPE),
    "Exp": (UNARY_IO[0], LOG_ATTRS, UNARY_DATA_TYPE),
    "Log": (UNARY_IO[0], LOG_ATTRS, UNARY_DATA_TYPE),
    "MatMul": (
        ["INPUT x1", "INPUT x2", "OPTIONAL_INPUT bias", "OUTPUT y"],
        ["transpose_x1 Bool false", "transpose_x2 Bool false"],
        {"DT_FLOAT", "DT_FLOAT16", "DT_INT32", "DT_BF16"},
    ),
}
# GE's promoting ops (Pow): one set for T1 and T2, y promoted.
PROMOTING: dict[str, set[str]] = {
    "Pow": set(
        "DT_BF16 DT_FLOAT16 DT_FLOAT DT_INT32 DT_INT64 DT_INT8 DT_INT16 DT_UINT8 "
        "DT_DOUBLE DT_COMPLEX64 DT_COMPLEX128".split()
    ),
}
SLOT = re.compile(r"\.(INPUT|OPTIONAL_INPUT|OUTPUT)\((\w+), \"T\"\)")
ATTR = re.compile(r"\.ATTR\((\w+), (\w+), ([^)]*)\)")
DATATYPE = re.compile(r"\.DATATYPE\(T, TensorType\(\{([^}]*)\}\)\)")
DATATYPE_ANY = re.compile(r"\.DATATYPE\((\w+), TensorType\(\{([^}]*)\}\)\)")


def _dts(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class GeIr:
    """An op's IR as GE declares it, and the type symbol of each slot in our
    header. slots: "KIND name SYMBOL" in IR order, SYMBOL a type variable of
    the header or "-" for a set written inline on the slot (GE's own form);
    dtypes: each slot's set as GE declares it, or the name GE writes alone
    ("TensorType::ALL()"); attrs: "REQUIRED_ATTR name Type" or "ATTR name
    Type default", in IR order."""

    slots: tuple[str, ...]
    dtypes: dict[str, frozenset[str] | str]
    attrs: tuple[str, ...] = ()


# graph/types.h (metadef): TensorType::BasicType()'s members
BASIC_TYPE = _dts(
    "DT_COMPLEX128 DT_COMPLEX64 DT_DOUBLE DT_FLOAT DT_FLOAT16 DT_INT16 DT_INT32 "
    "DT_INT64 DT_INT8 DT_QINT16 DT_QINT32 DT_QINT8 DT_QUINT16 DT_QUINT8 DT_UINT16 "
    "DT_UINT32 DT_UINT64 DT_UINT8 DT_BF16 DT_COMPLEX32"
)
INDEX = "TensorType::IndexNumberType()"
FP8 = _dts("DT_FLOAT8_E4M3FN DT_FLOAT8_E5M2 DT_HIFLOAT8 DT_FLOAT8_E8M0")
TENSOR_MOVE = _dts(
    "DT_DOUBLE DT_FLOAT16 DT_FLOAT DT_INT32 DT_UINT32 DT_INT16 DT_UINT16 DT_INT8 "
    "DT_UINT8 DT_UINT64 DT_INT64 DT_BOOL DT_BF16 DT_HIFLOAT8 DT_FLOAT8_E5M2 "
    "DT_FLOAT8_E4M3FN DT_COMPLEX32 DT_COMPLEX64"
)
SPLIT = _dts(
    "DT_COMPLEX128 DT_COMPLEX64 DT_DOUBLE DT_FLOAT DT_FLOAT16 DT_INT16 DT_INT32 "
    "DT_INT64 DT_INT8 DT_QINT16 DT_QINT32 DT_QINT8 DT_QUINT16 DT_QUINT8 DT_UINT16 "
    "DT_UINT32 DT_UINT64 DT_UINT8 DT_BF16 DT_BOOL"
)
CONCAT = BASIC_TYPE | FP8 | {"DT_BOOL"}
TRANSPOSE = _dts(
    "DT_BF16 DT_FLOAT16 DT_FLOAT DT_DOUBLE DT_INT64 DT_INT32 DT_UINT8 DT_UINT16 "
    "DT_UINT32 DT_UINT64 DT_INT8 DT_INT16 DT_COMPLEX32 DT_COMPLEX64 DT_COMPLEX128 "
    "DT_QINT8 DT_QUINT8 DT_QINT16 DT_QUINT16 DT_QINT32 DT_BOOL DT_HIFLOAT8 "
    "DT_FLOAT8_E5M2 DT_FLOAT8_E4M3FN"
)
CONV_IN = _dts("DT_FLOAT16 DT_FLOAT DT_INT8 DT_BF16 DT_HIFLOAT8")
MATMUL_IN = _dts("DT_FLOAT DT_FLOAT16 DT_INT32 DT_INT8 DT_INT4 DT_BF16 DT_HIFLOAT8")
# Conv2D's and BatchMatMulV2's y: a set of its own (int8 in, int32 out)
NN_BIAS = _dts("DT_FLOAT16 DT_FLOAT DT_BF16 DT_INT32")
NN_OUT = _dts("DT_FLOAT16 DT_FLOAT DT_INT32 DT_BF16 DT_HIFLOAT8")
GEMM = _dts("DT_FLOAT DT_FLOAT16 DT_INT8 DT_INT32")

GE_IR: dict[str, GeIr] = {
    "Identity": GeIr(
        ("INPUT x T", "OUTPUT y T"),
        {"x": "TensorType::ALL()", "y": "TensorType::ALL()"},
    ),
    "TensorMove": GeIr(
        ("INPUT x T", "OUTPUT y T"), {"x": TENSOR_MOVE, "y": TENSOR_MOVE}
    ),
    "Split": GeIr(
        ("INPUT split_dim -", "INPUT x T", "DYNAMIC_OUTPUT y T"),
        {"split_dim": _dts("DT_INT32"), "x": SPLIT, "y": SPLIT},
        ("REQUIRED_ATTR num_split Int",),
    ),
    "Concat": GeIr(
        ("INPUT concat_dim TIndex", "DYNAMIC_INPUT x T", "OUTPUT y T"),
        {"concat_dim": INDEX, "x": CONCAT, "y": CONCAT},
        ("ATTR N Int 1",),
    ),
    "ConcatV2": GeIr(
        ("DYNAMIC_INPUT x T", "INPUT concat_dim TIndex", "OUTPUT y T"),
        {"x": CONCAT | {"DT_STRING"}, "concat_dim": INDEX, "y": CONCAT | {"DT_STRING"}},
        ("ATTR N Int 1",),
    ),
    "Transpose": GeIr(
        ("INPUT x T", "INPUT perm TIndex", "OUTPUT y T"),
        {"x": TRANSPOSE, "perm": INDEX, "y": TRANSPOSE},
    ),
    "Conv2D": GeIr(
        (
            "INPUT x T",
            "INPUT filter T",
            "OPTIONAL_INPUT bias TBias",
            "OPTIONAL_INPUT offset_w -",
            "OUTPUT y -",
        ),
        {
            "x": CONV_IN,
            "filter": CONV_IN,
            "bias": NN_BIAS,
            "offset_w": _dts("DT_INT8"),
            "y": NN_OUT,
        },
        (
            "REQUIRED_ATTR strides ListInt",
            "REQUIRED_ATTR pads ListInt",
            "ATTR dilations ListInt {1, 1, 1, 1}",
            "ATTR groups Int 1",
            'ATTR data_format String "NHWC"',
            "ATTR offset_x Int 0",
        ),
    ),
    "GEMM": GeIr(
        tuple(f"INPUT {n} T" for n in ("a", "b", "c", "alpha", "beta"))
        + ("OUTPUT y T",),
        {n: GEMM for n in ("a", "b", "c", "alpha", "beta", "y")},
        ("ATTR transpose_a Bool false", "ATTR transpose_b Bool false"),
    ),
    "BatchMatMulV2": GeIr(
        (
            "INPUT x1 T",
            "INPUT x2 T",
            "OPTIONAL_INPUT bias TBias",
            "OPTIONAL_INPUT offset_w -",
            "OUTPUT y -",
        ),
        {
            "x1": MATMUL_IN,
            "x2": MATMUL_IN,
            "bias": NN_BIAS,
            "offset_w": _dts("DT_INT8 DT_INT4"),
            "y": NN_OUT,
        },
        ("ATTR adj_x1 Bool false", "ATTR adj_x2 Bool false", "ATTR offset_x Int 0"),
    ),
}
SLOT_KINDS = ("INPUT", "OPTIONAL_INPUT", "DYNAMIC_INPUT", "OUTPUT", "DYNAMIC_OUTPUT")
CALL = re.compile(r"^\s*\.(\w+)\((.*)\)$")
INLINE_SET = re.compile(r"TensorType\(\{([^}]*)\}\)")


@dataclass(frozen=True)
class Header:
    """A REG_OP header read line by line (each chained call on its own line)."""

    slots: tuple[tuple[str, str, str], ...]  # kind, name, type expression
    attrs: tuple[str, ...]
    datatypes: dict[str, str]  # type variable -> its expression

    @staticmethod
    def read(op: str) -> Header:
        text = (INCLUDE / f"{_snake(op)}.h").read_text(encoding="utf-8")
        assert f"REG_OP({op})" in text and f".OP_END_FACTORY_REG({op});" in text
        slots, attrs, datatypes = [], [], {}
        for line in text.splitlines():
            call = CALL.match(line)
            if call is None:
                continue
            kind, args = call.groups()
            if kind in SLOT_KINDS:
                name, expr = args.split(", ", 1)
                slots.append((kind, name, expr))
            elif kind in ("ATTR", "REQUIRED_ATTR"):
                attrs.append(" ".join([kind, *args.split(", ", 2)]))
            elif kind == "DATATYPE":
                name, expr = args.split(", ", 1)
                datatypes[name] = expr
        return Header(tuple(slots), tuple(attrs), datatypes)

    def symbol(self, expr: str) -> str:
        """A slot's type symbol: its type variable, or "-" when inline."""
        return expr.strip('"') if expr.startswith('"') else "-"

    def dtypes(self, expr: str) -> frozenset[str] | str:
        """The set a slot's expression declares: its members, a named set
        written alone as its name (compared in written form), a list's named
        sets expanded."""
        if expr.startswith('"'):
            expr = self.datatypes[expr.strip('"')]
        inline = INLINE_SET.fullmatch(expr)
        if inline is None:
            return expr
        members: set[str] = set()
        for item in inline.group(1).split(","):
            name = item.strip().removesuffix("()")
            named = NAMED_TENSOR_TYPES.get(name)
            members |= {name} if named is None else {d.name for d in named.types}
        return frozenset(members)


def _snake(name: str) -> str:
    """The header's file name: MatMul -> mat_mul, Conv2D -> conv2_d, GEMM -> gemm."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def test_every_math_header_is_checked() -> None:
    headers = {p.stem for p in INCLUDE.glob("*.h")} - {"math_ops"}
    checked = (*GE_DECLARED, *PROMOTING, *GE_IR)
    assert headers == {_snake(op) for op in checked} | {"cast"}


def test_cast_declares_ge_ir() -> None:
    """GE's Cast: x -> y with a required Int dst_type (a DataType number);
    its sets are written inline in GE, SrcT/DstT here (one set each)."""
    text = (INCLUDE / "cast.h").read_text(encoding="utf-8")
    assert '.INPUT(x, "SrcT")' in text and '.OUTPUT(y, "DstT")' in text
    assert ".REQUIRED_ATTR(dst_type, Int)" in text
    sets = DATATYPE_ANY.findall(text)
    assert [name for name, _ in sets] == ["SrcT", "DstT"]
    assert sets[0][1] == sets[1][1]
    assert not {d.strip() for d in sets[0][1].split(",")} & NOT_ON_CPU


@pytest.mark.parametrize("op", sorted(GE_DECLARED))
def test_header_declares_ge_ir(op: str) -> None:
    slots, attrs, ge_set = GE_DECLARED[op]
    text = (INCLUDE / f"{_snake(op)}.h").read_text(encoding="utf-8")
    assert f"REG_OP({op})" in text and f".OP_END_FACTORY_REG({op});" in text
    assert [f"{k} {n}" for k, n in SLOT.findall(text)] == slots
    assert [" ".join(a) for a in ATTR.findall(text)] == attrs
    (declared,) = DATATYPE.findall(text)
    dtypes = {d.strip() for d in declared.split(",")}
    assert dtypes == ge_set


@pytest.mark.parametrize("op", sorted(PROMOTING))
def test_promoting_header_declares_ge_ir(op: str) -> None:
    """GE's promoting form: INPUT(x1, "T1"), INPUT(x2, "T2"),
    OUTPUT(y, "T3"), T1 and T2 the same set, T3 = Promote({"T1", "T2"}); no
    attrs."""
    text = (INCLUDE / f"{_snake(op)}.h").read_text(encoding="utf-8")
    assert f"REG_OP({op})" in text and f".OP_END_FACTORY_REG({op});" in text
    slots = re.findall(r"\.(INPUT|OUTPUT)\((\w+), \"(\w+)\"\)", text)
    assert slots == [
        ("INPUT", "x1", "T1"),
        ("INPUT", "x2", "T2"),
        ("OUTPUT", "y", "T3"),
    ]
    assert not ATTR.findall(text)
    sets = dict(DATATYPE_ANY.findall(text))
    assert set(sets) == {"T1", "T2"}
    for name in ("T1", "T2"):
        assert {d.strip() for d in sets[name].split(",")} == PROMOTING[op]
    assert '.DATATYPE(T3, Promote({"T1", "T2"}))' in text


@pytest.mark.parametrize("op", sorted(GE_IR))
def test_data_movement_and_nn_headers_declare_ge_ir(op: str) -> None:
    ge = GE_IR[op]
    header = Header.read(op)
    slots = [f"{k} {n} {header.symbol(e)}" for k, n, e in header.slots]
    assert slots == list(ge.slots)
    assert {n: header.dtypes(e) for _, n, e in header.slots} == ge.dtypes
    assert header.attrs == ge.attrs
    used = {header.symbol(e) for _, _, e in header.slots} - {"-"}
    assert set(header.datatypes) == used


def test_basic_type_is_ges() -> None:
    """The headers expand BasicType with the project's table; it is GE's."""
    ours = {d.name for d in NAMED_TENSOR_TYPES["BasicType"].types}
    assert ours == BASIC_TYPE
