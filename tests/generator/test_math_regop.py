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
of the promotion of the two."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_math_header_is_checked() -> None:
    headers = {p.stem for p in INCLUDE.glob("*.h")} - {"math_ops"}
    assert headers == {_snake(op) for op in (*GE_DECLARED, *PROMOTING)} | {"cast"}


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
