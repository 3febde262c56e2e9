"""Pow (with GE's type promotion), Rsqrt, Sigmoid and Tanh of the math
library against numpy: every dtype their specs allow, bfloat16 included
(through ml_dtypes: float32 arithmetic rounded to bfloat16), numpy's
broadcasting (0-d, empty and size-1 dims), NaN and infinities, integer
wrap-around and the integer rule for negative powers (the note "Integer
Pow" in ops/math/_exprs.py, docs/math-ops.md).

One graph per dtype (or per group of dtype pairs) holds every case, so a
dtype costs one compile of many nodes."""

from __future__ import annotations

from collections.abc import Iterator

import ml_dtypes
import numpy as np
import pytest
from math_harness import math_session, run

from ge.es import GraphBuilder, TensorHolder
from ge.es.math import Maximum, Pow, Rsqrt, Sigmoid, Tanh
from ge.graph import DataType
from ge.graph.numpy_dtypes import from_numpy_dtype, to_numpy_dtype
from ge.session import Session
from ge_ir.promotion import promote_pair

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = ["bfloat16", "float16", "float32", "float64"]
POW_DTYPES = FLOATS + ["int8", "int16", "int32", "int64", "uint8"]
BROADCASTS = [
    ([], []),
    ([], [3]),
    ([2, 3], [2, 3]),
    ([4, 1, 5], [3, 5]),
    ([2, 1], [1, 3]),
    ([0, 3], [1, 3]),
    ([0], []),
    ([1, 1, 1], [1]),
    ([2, 3, 4, 5], [3, 1, 5]),
    ([3, 300], [300]),
]
# C's pow, exp and tanh may differ from numpy's in the last bit: a few ulps
# of the compute type, or one rounding step of float16 and bfloat16.
RTOL = {"bfloat16": 8e-3, "float16": 1e-3, "float32": 5e-7, "float64": 1e-15}
FLOAT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, -2.0]


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with math_session() as s:
        yield s


def is_float(dtype: np.dtype) -> bool:
    return dtype == BF16 or dtype.kind == "f"


def compute_type(dtype: np.dtype) -> type:
    """What the kernels compute a dtype in: double for float64, float for
    the other floats (float16 and bfloat16 rounded once at the end)."""
    return np.float64 if dtype == np.float64 else np.float32


def floats(shape: list[int], dtype: np.dtype, seed: int, scale: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape, dtype=np.int64))
    data = rng.standard_normal(size) * scale
    for i in range(min(size, len(FLOAT_SPECIALS))):
        data[rng.integers(size)] = FLOAT_SPECIALS[i]
    return data.astype(dtype).reshape(shape)


def ints(
    shape: list[int], dtype: np.dtype, seed: int, low: int, high: int
) -> np.ndarray:
    """Small values in [low, high] with the dtype's limits mixed in."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape, dtype=np.int64))
    info = np.iinfo(dtype)
    data = rng.integers(max(low, info.min), min(high, info.max) + 1, size=size)
    specials = [0, 1, info.max] + ([-1, info.min] if info.min < 0 else [])
    for i in range(min(size, len(specials))):
        data[rng.integers(size)] = specials[i]
    return data.astype(dtype).reshape(shape)


def int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The integer rule ("Integer Pow" in ops/math/_exprs.py) in numpy:
    numpy's wrapping power for n >= 0; for n < 0 the integer part of
    1 / a**-n (1, +-1 for -1, else 0)."""
    b = np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape))
    out = np.power(a, np.where(b < 0, 0, b).astype(b.dtype))
    if a.dtype.kind == "u":
        return out
    odd = (b % 2) != 0
    negative = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    return np.where(b < 0, negative.astype(a.dtype), out).astype(a.dtype)


def pow_reference(a: np.ndarray, b: np.ndarray, out: np.dtype) -> np.ndarray:
    """GE's Pow: both inputs converted to the promoted dtype, then x1 ** x2
    (floats in their compute type, rounded once)."""
    with np.errstate(all="ignore"):
        a, b = a.astype(out), b.astype(out)
        if not is_float(out):
            return int_pow(a, b)
        ct = compute_type(out)
        return np.power(a.astype(ct), b.astype(ct)).astype(out)


def pow_operands(
    d1: np.dtype, d2: np.dtype, s1: list[int], s2: list[int], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    if is_float(d1):
        a = floats(s1, d1, seed, 3.0)
    else:
        a = ints(s1, d1, seed, -20, 20)
    if is_float(d2):
        b = floats(s2, d2, seed + 1, 2.0)
    else:
        b = ints(s2, d2, seed + 1, -4, 9)
    return a, b


def check_pow_graph(
    session: Session,
    name: str,
    pairs: list[tuple[np.dtype, np.dtype]],
    broadcasts: list[tuple[list[int], list[int]]],
) -> None:
    builder = GraphBuilder(name)
    arrays: list[np.ndarray] = []
    checks: list[tuple[str, np.dtype, np.ndarray]] = []
    for d1, d2 in pairs:
        out = to_numpy_dtype(promote_pair(from_numpy_dtype(d1), from_numpy_dtype(d2)))
        for case, (s1, s2) in enumerate(broadcasts):
            a, b = pow_operands(d1, d2, s1, s2, 2 * case)
            x1 = builder.create_input(
                len(arrays), data_type=from_numpy_dtype(d1), shape=s1
            )
            x2 = builder.create_input(
                len(arrays) + 1, data_type=from_numpy_dtype(d2), shape=s2
            )
            arrays += [a, b]
            y: TensorHolder = Pow(x1, x2)
            assert y.data_type is from_numpy_dtype(out), (d1, d2)
            builder.set_graph_output(y, len(checks))
            checks.append((f"Pow {d1}**{d2} {s1} {s2}", out, pow_reference(a, b, out)))
    results = run(session, builder.build_and_reset(), arrays)
    for (label, out, want), got in zip(checks, results, strict=True):
        assert got.dtype == out and got.shape == want.shape, label
        if is_float(out):
            # C's pow and numpy's (SIMD where the machine has it) may differ
            # in the last bit; infinities and NaN must match exactly
            rtol = RTOL[str(out)]
            np.testing.assert_allclose(
                got.astype(np.float64),
                want.astype(np.float64),
                rtol=rtol,
                atol=0,
                err_msg=label,
            )
        else:
            np.testing.assert_array_equal(got, want, err_msg=label)


@pytest.mark.parametrize("dtype_name", POW_DTYPES)
def test_pow_same_dtype_every_broadcast(session: Session, dtype_name: str) -> None:
    dtype = np.dtype(dtype_name)
    check_pow_graph(session, f"pow_{dtype_name}", [(dtype, dtype)], BROADCASTS)


# Pairs whose promotion is another dtype (GE's table, ge_ir/promotion.py).
MIXED = [
    ("int32", "float16"),
    ("uint8", "int8"),
    ("float16", "bfloat16"),
    ("int64", "float32"),
    ("bfloat16", "int8"),
    ("float32", "float64"),
    ("int8", "int64"),
    ("uint8", "int16"),
    ("bfloat16", "float32"),
]


def test_pow_promotes_mixed_dtypes(session: Session) -> None:
    pairs = [(np.dtype(a), np.dtype(b)) for a, b in MIXED]
    expected = {
        ("int32", "float16"): "float16",
        ("uint8", "int8"): "int16",
        ("float16", "bfloat16"): "float32",
        ("int64", "float32"): "float32",
        ("bfloat16", "int8"): "bfloat16",
    }
    for (a, b), out in expected.items():
        promoted = promote_pair(
            from_numpy_dtype(np.dtype(a)), from_numpy_dtype(np.dtype(b))
        )
        assert to_numpy_dtype(promoted) == np.dtype(out)
    # the broadcast plans are the same-dtype test's; a few per pair suffice
    check_pow_graph(session, "pow_mixed", pairs, BROADCASTS[1:5])


def test_pow_integer_rules(session: Session) -> None:
    """The documented integer answers, spelled out: wrap-around, 0 ** 0,
    and negative powers ("Integer Pow" in ops/math/_exprs.py)."""
    a = np.array([2, 3, -1, -1, 1, 0, 2, -3, 0, 7], np.int8)
    b = np.array([7, 5, -3, -2, -9, -1, -1, 3, 0, 0], np.int8)
    builder = GraphBuilder("pow_int_rules")
    x1 = builder.create_input(0, data_type=DataType.DT_INT8, shape=[10])
    x2 = builder.create_input(1, data_type=DataType.DT_INT8, shape=[10])
    builder.set_graph_output(Pow(x1, x2), 0)
    (got,) = run(session, builder.build_and_reset(), [a, b])
    # 2**7 = 128 wraps to -128 in int8; 3**5 = 243 wraps to -13
    assert got.tolist() == [-128, -13, -1, 1, 1, 0, 0, -27, 1, 1]


def test_pow_rounds_to_bfloat16_nearest_even(session: Session) -> None:
    """int16 ** bfloat16 promotes to bfloat16: the base is rounded into
    bfloat16 once, to nearest even, as ml_dtypes rounds (257 lies halfway
    between 256 and 258 and goes to the even 256; 259 to 260)."""
    a = np.array([257, 259, 261, 263, -257, 32767, 1, 0, -32768], np.int16)
    b = np.ones(1, BF16)
    builder = GraphBuilder("pow_bf16_rounding")
    x1 = builder.create_input(0, data_type=DataType.DT_INT16, shape=[9])
    x2 = builder.create_input(1, data_type=DataType.DT_BF16, shape=[1])
    builder.set_graph_output(Pow(x1, x2), 0)
    (got,) = run(session, builder.build_and_reset(), [a, b])
    assert got.dtype == BF16
    assert got.tobytes() == a.astype(BF16).tobytes()
    assert got.astype(np.float32).tolist()[:5] == [256.0, 260.0, 260.0, 264.0, -256.0]


def test_pow_refuses_dtypes_outside_ge_set() -> None:
    builder = GraphBuilder("pow_bad")
    x = builder.create_input(0, data_type=DataType.DT_UINT16, shape=[2])
    y = builder.create_input(1, data_type=DataType.DT_FLOAT, shape=[2])
    with pytest.raises((TypeError, ValueError), match="Pow"):
        Pow(x, y)


# -- Rsqrt, Sigmoid, Tanh ---------------------------------------------------------

UNARY_SHAPES = [[], [0], [7], [2, 3, 40]]


def rsqrt(c: np.ndarray) -> np.ndarray:
    return c.dtype.type(1) / np.sqrt(c)


def sigmoid(c: np.ndarray) -> np.ndarray:
    one = c.dtype.type(1)
    return one / (one + np.exp(-c))


UNARY = {
    "Rsqrt": (Rsqrt, rsqrt),
    "Sigmoid": (Sigmoid, sigmoid),
    "Tanh": (Tanh, np.tanh),
}
# Rsqrt is sqrt and a division, both correctly rounded, so exact; Sigmoid
# and Tanh go through the C library's exp and tanh (RTOL).


@pytest.mark.parametrize("dtype_name", FLOATS)
def test_unary_ops(session: Session, dtype_name: str) -> None:
    dtype = np.dtype(dtype_name)
    builder = GraphBuilder(f"unary_more_{dtype_name}")
    arrays: list[np.ndarray] = []
    checks: list[tuple[str, np.ndarray, float]] = []
    for i, shape in enumerate(UNARY_SHAPES):
        a = floats(shape, dtype, 100 + i, 4.0)
        x = builder.create_input(i, data_type=from_numpy_dtype(dtype), shape=shape)
        arrays.append(a)
        c = a.astype(compute_type(dtype))
        for name, (build, reference) in UNARY.items():
            with np.errstate(all="ignore"):
                want = reference(c).astype(dtype)
            builder.set_graph_output(build(x), len(checks))
            rtol = 0.0 if name == "Rsqrt" else RTOL[dtype_name]
            checks.append((f"{name} {shape} {dtype_name}", want, rtol))
    results = run(session, builder.build_and_reset(), arrays)
    for (label, want, rtol), got in zip(checks, results, strict=True):
        assert got.dtype == dtype and got.shape == want.shape, label
        got64, want64 = got.astype(np.float64), want.astype(np.float64)
        if rtol == 0.0:
            np.testing.assert_array_equal(got64, want64, err_msg=label)
        else:
            np.testing.assert_allclose(got64, want64, rtol=rtol, atol=0, err_msg=label)


def test_unary_special_values(session: Session) -> None:
    """NaN, infinities and signed zeros, as numpy gives them."""
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 4.0, 100.0], np.float32)
    builder = GraphBuilder("unary_specials")
    x = builder.create_input(0, data_type=DataType.DT_FLOAT, shape=[8])
    for i, op in enumerate((Rsqrt, Sigmoid, Tanh)):
        builder.set_graph_output(op(x), i)
    got = run(session, builder.build_and_reset(), [a])
    nan = np.nan
    np.testing.assert_array_equal(
        got[0], np.array([np.inf, -np.inf, 0.0, nan, nan, nan, 0.5, 0.1], np.float32)
    )
    assert np.signbit(got[1][1]) == np.signbit(sigmoid(a[1:2]))[0]
    np.testing.assert_array_equal(got[1][:5], [0.5, 0.5, 1.0, 0.0, nan])
    assert got[1][7] == np.float32(1.0)  # sigmoid(100) rounds to 1 in float
    np.testing.assert_array_equal(got[2][:5], [0.0, -0.0, 1.0, -1.0, nan])
    assert np.signbit(got[2][1])


def test_unary_refuse_integers() -> None:
    builder = GraphBuilder("unary_bad")
    x = builder.create_input(0, data_type=DataType.DT_INT32, shape=[2])
    for op, name in ((Rsqrt, "Rsqrt"), (Sigmoid, "Sigmoid"), (Tanh, "Tanh")):
        with pytest.raises((TypeError, ValueError), match=name):
            op(x)


def test_bfloat16_literals(session: Session) -> None:
    """A number beside a bfloat16 tensor of a one-type-variable op
    (Maximum) becomes a bfloat16 constant, and one bfloat16 cannot hold is
    refused; Pow's exponent has its own type variable, so 2 is an int64
    constant and bfloat16 with int64 promotes to bfloat16."""
    a = np.array([1.5, -3.0, 0.25], BF16)
    builder = GraphBuilder("bf16_literal")
    x = builder.create_input(0, data_type=DataType.DT_BF16, shape=[3])
    with pytest.raises(ValueError, match="does not fit in bfloat16"):
        Maximum(x, 1e40)
    builder.set_graph_output(Maximum(x, 1.0), 0)
    builder.set_graph_output(Pow(x, 2), 1)
    got = run(session, builder.build_and_reset(), [a])
    assert [g.dtype for g in got] == [BF16, BF16]
    assert got[0].astype(np.float32).tolist() == [1.5, 1.0, 1.0]
    assert got[1].astype(np.float32).tolist() == [2.25, 9.0, 0.0625]
