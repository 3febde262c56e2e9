"""The math library (specs/math_*.yaml, ops/math) against numpy: every op,
every dtype its spec allows, numpy's broadcasting (0-d, empty, size-1 and
merged dims), NaN and infinities, integer wrap-around and the integer
division rule (truncation toward zero; x / 0 is 0; MIN / -1 is MIN).

One graph per dtype holds every op and broadcast case, so a dtype costs one
compile of many nodes."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import ml_dtypes
import numpy as np
import pytest
from math_harness import math_session, run

from ge.es import GraphBuilder, TensorHolder
from ge.es.math import (
    Abs,
    Add,
    Cast,
    Div,
    Exp,
    Log,
    MatMul,
    Maximum,
    Minimum,
    Mul,
    Neg,
    RealDiv,
    Relu,
    Sqrt,
    Sub,
)
from ge.graph import DataType
from ge.graph.numpy_dtypes import from_numpy_dtype, kind
from ge.session import Session


def dtype_of(name: str) -> np.dtype:
    """numpy's dtype of a spec dtype name: bfloat16 is ml_dtypes' (numpy
    knows the name "bfloat16" only once something has imported ml_dtypes)."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with math_session() as s:
        yield s


def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division truncating toward zero; x / 0 is 0, MIN / -1 wraps."""
    with np.errstate(all="ignore"):
        q = np.floor_divide(a, b)
        r = a - q * b
        q = np.where((r != 0) & ((a < 0) != (b < 0)), q + 1, q)
    return np.where(b == 0, 0, q).astype(a.dtype)


def true_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return trunc_div(a, b)
    return np.true_divide(a, b)


BINARY: dict[
    str, tuple[Callable[..., TensorHolder], Callable[..., np.ndarray], set[str]]
] = {
    "Add": (
        Add,
        np.add,
        {
            "float32",
            "int32",
            "int64",
            "float16",
            "int16",
            "int8",
            "uint8",
            "float64",
            "bfloat16",
        },
    ),
    "Sub": (
        Sub,
        np.subtract,
        {
            "float32",
            "float16",
            "float64",
            "int32",
            "uint8",
            "int8",
            "uint16",
            "int16",
            "int64",
        },
    ),
    "Mul": (
        Mul,
        np.multiply,
        {
            "float16",
            "float32",
            "float64",
            "uint8",
            "int8",
            "uint16",
            "int16",
            "int32",
            "int64",
        },
    ),
    "RealDiv": (
        RealDiv,
        true_div,
        {
            "float32",
            "float16",
            "float64",
            "uint8",
            "int8",
            "uint16",
            "int16",
            "int32",
            "int64",
        },
    ),
    "Div": (
        Div,
        true_div,
        {
            "float32",
            "float16",
            "int8",
            "uint8",
            "int32",
            "float64",
            "int64",
            "uint16",
            "int16",
        },
    ),
    "Maximum": (
        Maximum,
        np.maximum,
        {
            "float16",
            "float32",
            "float64",
            "int32",
            "int64",
            "int8",
            "uint8",
            "bfloat16",
        },
    ),
    "Minimum": (
        Minimum,
        np.minimum,
        {
            "float16",
            "float32",
            "float64",
            "int32",
            "int64",
            "int8",
            "uint8",
            "bfloat16",
        },
    ),
}
# (x1 shape, x2 shape): 0-d, empty, size-1 dims, both sides broadcasting,
# dims that merge, and rows long enough to vectorise.
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
    ([3, 1000], [1000]),
]
DTYPES = [
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
]


def values(shape: list[int], dtype: np.dtype, seed: int) -> np.ndarray:
    """Random values with the edge cases of the dtype mixed in."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape, dtype=np.int64))
    if kind(dtype) == "f":
        data = rng.standard_normal(size) * 4
        specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0]
    else:
        info = np.iinfo(dtype)
        data = rng.integers(info.min, int(info.max) + 1, size=size)
        specials = [0, 1, info.min, info.max] + ([-1] if info.min < 0 else [])
    for i in range(min(size, len(specials))):
        data[rng.integers(size)] = specials[i]
    return np.asarray(data).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_binary_ops_every_broadcast(session: Session, dtype_name: str) -> None:
    dtype = dtype_of(dtype_name)
    ops = [(name, fns) for name, fns in BINARY.items() if dtype_name in fns[2]]
    builder = GraphBuilder(f"binary_{dtype_name}")
    arrays: list[np.ndarray] = []
    expected: list[np.ndarray] = []
    out = 0
    for case, (s1, s2) in enumerate(BROADCASTS):
        a, b = values(s1, dtype, 2 * case), values(s2, dtype, 2 * case + 1)
        if case == 2 and dtype.kind == "i":  # MIN / -1 and x / 0, side by side
            a.flat[0], b.flat[0] = np.iinfo(dtype).min, -1
            b.flat[1] = 0
        x1 = builder.create_input(
            len(arrays), data_type=from_numpy_dtype(dtype), shape=s1
        )
        x2 = builder.create_input(
            len(arrays) + 1, data_type=from_numpy_dtype(dtype), shape=s2
        )
        arrays += [a, b]
        for _, (build, reference, _) in ops:
            builder.set_graph_output(build(x1, x2), out)
            out += 1
            with np.errstate(all="ignore"):
                expected.append(np.asarray(reference(a, b)))
    results = run(session, builder.build_and_reset(), arrays)
    labels = [(name, shapes) for shapes in BROADCASTS for name, _ in ops]
    for (name, shapes), got, want in zip(labels, results, expected, strict=True):
        assert got.dtype == dtype, (name, shapes)
        assert got.shape == want.shape, (name, shapes)
        np.testing.assert_array_equal(
            got, want, err_msg=f"{name} {shapes} {dtype_name}"
        )


def test_add_bool_is_or_every_broadcast(session: Session) -> None:
    """Add on bool is numpy's: logical or (GE's newest Add lists bool)."""
    builder = GraphBuilder("add_bool")
    arrays: list[np.ndarray] = []
    for case, (s1, s2) in enumerate(BROADCASTS):
        rng = np.random.default_rng(case)
        arrays += [rng.random(s1) < 0.5, rng.random(s2) < 0.5]
        x1 = builder.create_input(2 * case, data_type=DataType.DT_BOOL, shape=s1)
        x2 = builder.create_input(2 * case + 1, data_type=DataType.DT_BOOL, shape=s2)
        builder.set_graph_output(Add(x1, x2), case)
    results = run(session, builder.build_and_reset(), arrays)
    for case, got in enumerate(results):
        want = np.add(arrays[2 * case], arrays[2 * case + 1])
        assert got.dtype == np.bool_ and got.shape == want.shape, BROADCASTS[case]
        np.testing.assert_array_equal(got, want, err_msg=str(BROADCASTS[case]))


def test_bool_only_where_ge_lists_it() -> None:
    """Maximum has no bool in GE's declaration, so the builder refuses it;
    GE's newest Sub and Mul declare bool, so they build (the CPU device does
    not run them for bool: refused at compile, test_builtin_ops.py)."""
    builder = GraphBuilder("bool_refused")
    x = builder.create_input(0, data_type=DataType.DT_BOOL, shape=[2])
    with pytest.raises((TypeError, ValueError), match="Maximum"):
        Maximum(x, x)
    for op in (Sub, Mul):
        assert op(x, x).data_type == DataType.DT_BOOL


UNARY_EXACT = {
    "Neg": (
        Neg,
        np.negative,
        {"float32", "float16", "float64", "int32", "int64", "int8", "bfloat16"},
    ),
    "Abs": (
        Abs,
        np.abs,
        {"float16", "float32", "float64", "int8", "int16", "int32", "int64"},
    ),
    "Relu": (
        Relu,
        lambda a: np.maximum(a, np.zeros((), a.dtype)),
        {
            "float32",
            "float16",
            "float64",
            "int8",
            "int32",
            "int16",
            "int64",
            "uint8",
            "uint16",
            "bfloat16",
        },
    ),
    # numpy's float16 and bfloat16 sqrt is float32's rounded once, as ours
    "Sqrt": (Sqrt, np.sqrt, {"float16", "float32", "float64", "bfloat16"}),
}
UNARY_SHAPES = [[], [0], [7], [2, 3, 40]]
# float32 and float16 through the C library's float functions; numpy's may
# differ in the last bit, which a float16 rounding can make one half ulp.
RTOL = {"bfloat16": 8e-3, "float16": 1e-3, "float32": 2e-7, "float64": 1e-15}


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_unary_ops(session: Session, dtype_name: str) -> None:
    dtype = dtype_of(dtype_name)
    builder = GraphBuilder(f"unary_{dtype_name}")
    arrays: list[np.ndarray] = []
    checks: list[tuple[str, np.ndarray, float]] = []
    floating = kind(dtype) == "f"
    for i, shape in enumerate(UNARY_SHAPES):
        a = values(shape, dtype, 100 + i)
        x = builder.create_input(i, data_type=from_numpy_dtype(dtype), shape=shape)
        arrays.append(a)
        nodes: list[tuple[str, TensorHolder, np.ndarray, float]] = []
        with np.errstate(all="ignore"):
            for name, (build, reference, allowed) in UNARY_EXACT.items():
                if dtype_name in allowed:
                    nodes.append((name, build(x), reference(a), 0.0))
            if floating:
                rtol = RTOL[dtype_name]
                # the kernel computes in float (float16 too) or double
                ct = np.float64 if dtype_name == "float64" else np.float32
                c = a.astype(ct)
                nodes.append(("Exp", Exp(x), np.exp(a), rtol))
                nodes.append(("Log", Log(x), np.log(a), rtol))
                nodes.append(
                    (
                        "Exp(base=2, scale=0.5, shift=1)",
                        Exp(x, base=2.0, scale=0.5, shift=1.0),
                        np.exp(ct(np.log(2.0)) * (ct(0.5) * c + ct(1.0))).astype(dtype),
                        rtol,
                    )
                )
                nodes.append(
                    (
                        "Log(base=10, scale=2, shift=1)",
                        Log(x, base=10.0, scale=2.0, shift=1.0),
                        (np.log(ct(2.0) * c + ct(1.0)) / ct(np.log(10.0))).astype(
                            dtype
                        ),
                        rtol,
                    )
                )
        for name, node, want, rtol in nodes:
            builder.set_graph_output(node, len(checks))
            checks.append((f"{name} {shape}", want, rtol))
    results = run(session, builder.build_and_reset(), arrays)
    for (label, want, rtol), got in zip(checks, results, strict=True):
        assert got.dtype == dtype and got.shape == want.shape, label
        if rtol == 0.0:
            np.testing.assert_array_equal(got, want, err_msg=f"{label} {dtype_name}")
        else:
            np.testing.assert_allclose(
                got, want, rtol=rtol, atol=0, err_msg=f"{label} {dtype_name}"
            )


def test_dtypes_must_agree_and_be_allowed() -> None:
    builder = GraphBuilder("mixed")
    f = builder.create_input(
        0, data_type=from_numpy_dtype(np.dtype("float32")), shape=[2]
    )
    i = builder.create_input(
        1, data_type=from_numpy_dtype(np.dtype("int32")), shape=[2]
    )
    with pytest.raises((TypeError, ValueError), match="Add"):
        Add(f, i)
    with pytest.raises((TypeError, ValueError), match="Sqrt"):
        Sqrt(i)


def test_shapes_that_do_not_broadcast_are_refused(session: Session) -> None:
    builder = GraphBuilder("bad_broadcast")
    x = builder.create_input(
        0, data_type=from_numpy_dtype(np.dtype("float32")), shape=[2, 3]
    )
    y = builder.create_input(
        1, data_type=from_numpy_dtype(np.dtype("float32")), shape=[4]
    )
    with pytest.raises(Exception, match="(?i)broadcast"):
        builder.set_graph_output(Add(x, y), 0)
        run(
            session,
            builder.build_and_reset(),
            [np.zeros((2, 3), np.float32), np.zeros(4, np.float32)],
        )


# -- MatMul ---------------------------------------------------------------------

MATMUL_CASES = [
    # (x1 shape, x2 shape, transpose_x1, transpose_x2, bias)
    ((3, 4), (4, 5), False, False, False),
    ((4, 3), (4, 5), True, False, True),
    ((3, 4), (5, 4), False, True, True),
    ((4, 3), (5, 4), True, True, False),
    ((1, 1), (1, 1), False, False, True),
    ((0, 4), (4, 5), False, False, True),
    ((3, 0), (0, 5), False, False, False),
    ((17, 64), (64, 33), False, False, True),
]


@pytest.mark.parametrize("dtype_name", ["float32", "float16", "int32"])
def test_matmul(session: Session, dtype_name: str) -> None:
    dtype = dtype_of(dtype_name)
    rng = np.random.default_rng(3)
    builder = GraphBuilder(f"matmul_{dtype_name}")
    arrays: list[np.ndarray] = []
    expected: list[np.ndarray] = []
    for case, (s1, s2, t1, t2, with_bias) in enumerate(MATMUL_CASES):
        a, b = (rng.integers(-9, 10, size=s).astype(dtype) for s in (s1, s2))
        n = s2[0] if t2 else s2[1]
        bias = rng.integers(-9, 10, size=(n,)).astype(dtype)
        x1 = builder.create_input(
            len(arrays), data_type=from_numpy_dtype(dtype), shape=list(s1)
        )
        x2 = builder.create_input(
            len(arrays) + 1, data_type=from_numpy_dtype(dtype), shape=list(s2)
        )
        arrays += [a, b]
        bias_holder = None
        if with_bias:
            bias_holder = builder.create_input(
                len(arrays), data_type=from_numpy_dtype(dtype), shape=[n]
            )
            arrays.append(bias)
        y = MatMul(x1, x2, bias_holder, transpose_x1=t1, transpose_x2=t2)
        builder.set_graph_output(y, case)
        wide = np.float64 if dtype.kind == "f" else np.int64
        want = (a.T if t1 else a).astype(wide) @ (b.T if t2 else b).astype(wide)
        expected.append((want + (bias if with_bias else 0)).astype(dtype))
    results = run(session, builder.build_and_reset(), arrays)
    for case, (got, want) in enumerate(zip(results, expected, strict=True)):
        assert got.dtype == dtype and got.shape == want.shape, MATMUL_CASES[case]
        # small integers: every partial sum is exact in float16 and float32
        np.testing.assert_array_equal(got, want, err_msg=str(MATMUL_CASES[case]))


def test_matmul_shapes_must_agree(session: Session) -> None:
    builder = GraphBuilder("matmul_bad")
    x1 = builder.create_input(0, shape=[3, 4])
    x2 = builder.create_input(1, shape=[5, 6])
    builder.set_graph_output(MatMul(x1, x2), 0)
    with pytest.raises(Exception, match="inner dims differ"):
        run(
            session,
            builder.build_and_reset(),
            [np.zeros((3, 4), np.float32), np.zeros((5, 6), np.float32)],
        )


# -- Cast -------------------------------------------------------------------------

CAST_DTYPES = [
    "bool",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]


def cast_values(dtype: np.dtype) -> np.ndarray:
    """Every edge the rule names: fractions both ways, NaN, infinities, the
    integer limits of every type, and values that wrap when narrowed."""
    if dtype.kind == "b":
        return np.array([True, False, True], dtype)
    if kind(dtype) == "f":
        base = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            2.5,
            -2.7,
            127.9,
            128.0,
            -129.0,
            255.5,
            256.0,
            65504.0,
        ]
        base += [1e10, -1e10, 3e38, np.nan, np.inf, -np.inf]
        if dtype.itemsize >= 4:
            base += [2.0**31, -(2.0**31), 2.0**32, 2.0**63, -(2.0**63), 2.0**64, 1e300]
        if dtype.itemsize == 8:  # halfway in bfloat16 only after a float rounding
            base += [1 + 2.0**-8 + 2.0**-30, -(1 + 2.0**-8 + 2.0**-30)]
        with np.errstate(over="ignore"):  # 1e10 is inf in float16, as meant
            return np.array(base).astype(dtype)
    info = np.iinfo(dtype)
    base = [
        0,
        1,
        7,
        127,
        128,
        255,
        256,
        300,
        65535,
        65536,
        info.min,
        info.max,
        info.max - 1,
    ]
    if info.min < 0:
        base += [-1, -128, -129, -300]
    # halfway in bfloat16 only after a float rounding (int32: 2**24 + 2**16 + 1)
    base += [2**24 + 2**16 + 1, 2**40 + 2**32 + 1]
    return np.array([v for v in base if info.min <= v <= info.max], dtype=dtype)


def cast_reference(a: np.ndarray, dst: np.dtype) -> np.ndarray:
    """specs/math_cast.yaml's rule in numpy: numpy's own casts where it
    defines them, and NaN -> 0 and saturation where it does not."""
    if dst.kind == "b":
        return a != 0
    if kind(a.dtype) == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        wide = a.astype(np.float64)
        out = np.zeros(a.shape, dst)
        low = wide <= float(info.min) - (1.0 if info.min > -(2**63) else 0.0)
        high = wide >= float(info.max) + 1.0
        ok = ~(np.isnan(wide) | low | high)
        out[ok] = np.trunc(wide[ok]).astype(dst)
        out[low], out[high] = info.min, info.max
        return out
    with np.errstate(all="ignore"):
        return a.astype(dst)


@pytest.mark.parametrize("src_name", CAST_DTYPES)
def test_cast_every_pair(session: Session, src_name: str) -> None:
    src = dtype_of(src_name)
    a = cast_values(src)
    builder = GraphBuilder(f"cast_{src_name}")
    x = builder.create_input(0, data_type=from_numpy_dtype(src), shape=list(a.shape))
    scalar = builder.create_input(1, data_type=from_numpy_dtype(src), shape=[])
    empty = builder.create_input(2, data_type=from_numpy_dtype(src), shape=[0, 3])
    dsts = [dtype_of(d) for d in CAST_DTYPES]
    for i, dst in enumerate(dsts):
        builder.set_graph_output(Cast(x, dst_type=from_numpy_dtype(dst)), i)
    builder.set_graph_output(Cast(scalar, dst_type=DataType.DT_INT32), len(dsts))
    builder.set_graph_output(Cast(empty, dst_type=DataType.DT_DOUBLE), len(dsts) + 1)
    inputs = [a, a[:1].reshape(()), np.zeros((0, 3), src)]
    results = run(session, builder.build_and_reset(), inputs)
    for dst, got in zip(dsts, results, strict=False):
        want = cast_reference(a, dst)
        assert got.dtype == dst and got.shape == a.shape, dst
        np.testing.assert_array_equal(got, want, err_msg=f"{src_name} -> {dst}")
    assert results[-2].dtype == np.int32 and results[-2].shape == ()
    np.testing.assert_array_equal(
        results[-2], cast_reference(inputs[1], np.dtype(np.int32))
    )
    assert results[-1].dtype == np.float64 and results[-1].shape == (0, 3)


def test_cast_refuses_a_dst_type_it_cannot_compute(session: Session) -> None:
    builder = GraphBuilder("cast_bad")
    x = builder.create_input(0, shape=[2])
    builder.set_graph_output(Cast(x, dst_type=DataType.DT_COMPLEX64), 0)
    with pytest.raises(Exception, match="COMPLEX64"):
        run(session, builder.build_and_reset(), [np.zeros(2, np.float32)])
