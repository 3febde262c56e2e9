"""Each execute-path op of ops/custom through GeApi/Session, against numpy:
several shapes (sizes that are and are not multiples of a kernel block,
scalars), every dtype its spec allows, exact for copies and integer results,
tight tolerances for float arithmetic; and the errors, naming the node."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest
from op_harness import ROOT, build, ge_session, run

from ge.es.custom import (
    CastCustom,
    ConcatCustom,
    FillCustom,
    LayerNormCustom,
    NoRefreshAddCustom,
    PadCustom,
    ReduceSumCustom,
    SplitCustom,
)
from ge.graph import DataType
from ge.graph.numpy_dtypes import from_numpy_dtype
from ge.session import CompileError, ExecuteError, Session

F32, F16, I32, I64 = np.float32, np.float16, np.int32, np.int64
CAST_DTYPES = [F32, F16, I32, I64]


@pytest.fixture
def session() -> Iterator[Session]:
    with ge_session() as s:
        yield s


def sample(shape: list[int], dtype: type, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def dtype_id(dtype: type) -> str:
    return np.dtype(dtype).name


# -- ConcatCustom ------------------------------------------------------------------

CONCAT_CASES = [
    ([[2, 3], [4, 3]], 0),
    ([[2, 3, 5], [2, 1, 5], [2, 7, 5]], 1),
    ([[2, 3, 5], [2, 1, 5], [2, 7, 5]], -2),
    ([[3, 1000], [3, 1500]], -1),
    ([[5000], [3000], [1]], 0),
    ([[4, 4]], 1),
    ([[2, 0, 3], [2, 4, 3]], 1),
]


@pytest.mark.parametrize("dtype", [F32, F16, I32], ids=dtype_id)
@pytest.mark.parametrize("shapes, concat_dim", CONCAT_CASES)
def test_concat(
    session: Session, dtype: type, shapes: list[list[int]], concat_dim: int
) -> None:
    arrays = [sample(s, dtype, seed) for seed, s in enumerate(shapes)]
    graph = build(
        "concat", arrays, lambda b, *xs: ConcatCustom(list(xs), concat_dim=concat_dim)
    )
    (got,) = run(session, graph, *arrays)
    expected = np.concatenate(arrays, axis=concat_dim)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected, strict=True)


# -- SplitCustom -------------------------------------------------------------------

SPLIT_CASES = [
    ([6, 4], 3, 0),
    ([2, 9, 5], 3, -2),
    ([4, 3000], 2, 1),
    ([7, 3], 1, 0),
    ([3, 8192], 4, -1),
    ([12], 12, 0),
]


@pytest.mark.parametrize("dtype", [F32, F16, I32], ids=dtype_id)
@pytest.mark.parametrize("shape, num_split, split_dim", SPLIT_CASES)
def test_split(
    session: Session, dtype: type, shape: list[int], num_split: int, split_dim: int
) -> None:
    x = sample(shape, dtype)
    graph = build(
        "split",
        [x],
        lambda b, x: SplitCustom(x, num_split=num_split, split_dim=split_dim),
    )
    got = run(session, graph, x)
    expected = np.split(x, num_split, axis=split_dim)
    assert len(got) == num_split
    for part, want in zip(got, expected):
        np.testing.assert_array_equal(part, want, strict=True)


# -- LayerNormCustom ---------------------------------------------------------------


def layer_norm(
    x: np.ndarray,
    gamma: np.ndarray | None,
    beta: np.ndarray | None,
    axis: int,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reference, in float64: population variance, keep-dims statistics."""
    axis %= x.ndim
    dims = tuple(range(axis, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=dims, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=dims, keepdims=True)
    rstd = 1.0 / np.sqrt(var + epsilon)
    y = (x64 - mean) * rstd
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y.astype(np.float32), mean.astype(np.float32), rstd.astype(np.float32)


LAYER_NORM_CASES = [
    ([4, 16], -1, 1e-5),
    ([2, 3, 5], 1, 1e-5),
    ([3, 2500], -1, 1e-5),
    ([1, 7], 0, 1e-3),
    ([2, 3, 4, 5], -2, 1e-5),
    ([5], 0, 0.5),
    ([8200, 3], 1, 1e-5),
]


@pytest.mark.parametrize("affine", ["none", "gamma", "beta", "both"])
@pytest.mark.parametrize("shape, axis, epsilon", LAYER_NORM_CASES)
def test_layer_norm(
    session: Session, shape: list[int], axis: int, epsilon: float, affine: str
) -> None:
    x = sample(shape, F32) * 3 + 1
    norm_shape = shape[axis % len(shape) :]
    gamma = sample(norm_shape, F32, 1) if affine in ("gamma", "both") else None
    beta = sample(norm_shape, F32, 2) if affine in ("beta", "both") else None
    arrays = [a for a in (x, gamma, beta) if a is not None]

    def body(b, x, *rest):  # type: ignore[no-untyped-def]
        given = iter(rest)
        g = next(given) if gamma is not None else None
        bt = next(given) if beta is not None else None
        return list(LayerNormCustom(x, g, bt, begin_norm_axis=axis, epsilon=epsilon))

    got = run(session, build("layer_norm", arrays, body), *arrays)
    expected = layer_norm(x, gamma, beta, axis, epsilon)
    for name, g, want in zip(("y", "mean", "rstd"), got, expected):
        assert g.dtype == np.float32 and g.shape == want.shape, name
        np.testing.assert_allclose(g, want, rtol=2e-6, atol=2e-6, err_msg=name)


def test_layer_norm_statistics_keep_the_normalised_dims_as_ones(
    session: Session,
) -> None:
    x = sample([2, 3, 4], F32)
    graph = build("ln", [x], lambda b, x: list(LayerNormCustom(x, begin_norm_axis=1)))
    y, mean, rstd = run(session, graph, x)
    assert (y.shape, mean.shape, rstd.shape) == ((2, 3, 4), (2, 1, 1), (2, 1, 1))


# -- CastCustom --------------------------------------------------------------------


def cast_input(dtype: type, dst: type) -> np.ndarray:
    """Values that exercise the conversion: ties and fractions for float to
    int; overflow to inf, NaN and tiny values for float to float; values
    beyond the destination's range for int to int and int to float16."""
    rng = np.random.default_rng(7)
    src_float = np.dtype(dtype).kind == "f"
    if src_float:
        ties = [-3.5, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.5, 2.49, -2.51]
        values = np.concatenate([ties, rng.uniform(-1000, 1000, 5000)])
        if np.dtype(dst).kind == "f":
            values = np.concatenate([values, [np.nan, np.inf, -np.inf, 7e4, 1e-8]])
        with np.errstate(over="ignore"):
            return values.astype(dtype)
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, size=5000, dtype=dtype)
    small = rng.integers(-3000, 3000, size=1000, dtype=dtype)
    return np.concatenate([small, values, [0, -1, 1, info.min, info.max]]).astype(dtype)


def numpy_cast(x: np.ndarray, dst: type, truncate: bool) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        if x.dtype.kind == "f" and np.dtype(dst).kind == "i":
            return (np.trunc(x) if truncate else np.rint(x)).astype(dst)
        return x.astype(dst)


@pytest.mark.parametrize("truncate", [False, True])
@pytest.mark.parametrize("dst", CAST_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("src", CAST_DTYPES, ids=dtype_id)
def test_cast(session: Session, src: type, dst: type, truncate: bool) -> None:
    x = cast_input(src, dst)
    graph = build(
        "cast",
        [x],
        lambda b, x: CastCustom(
            x, dst_type=from_numpy_dtype(np.dtype(dst)), truncate=truncate
        ),
    )
    (got,) = run(session, graph, x)
    np.testing.assert_array_equal(got, numpy_cast(x, dst, truncate), strict=True)


@pytest.mark.parametrize("shape", [[], [1], [3, 7], [2, 2049]])
def test_cast_shapes(session: Session, shape: list[int]) -> None:
    x = (sample(shape, F32) * 10).astype(F32)
    graph = build("cast", [x], lambda b, x: CastCustom(x, dst_type=DataType.DT_INT32))
    (got,) = run(session, graph, x)
    np.testing.assert_array_equal(got, np.rint(x).astype(I32), strict=True)


def test_chained_casts_know_their_dtypes(session: Session) -> None:
    """A builder takes a cast's output dtype from dst_type (the spec's
    infer_meta rule), so a second cast can derive its src_type."""
    x = (sample([3, 5], F32) * 10).astype(F32)

    def body(b: object, x: object) -> object:
        wide = CastCustom(
            CastCustom(x, dst_type=DataType.DT_INT32), dst_type=DataType.DT_INT64
        )
        assert wide.data_type is DataType.DT_INT64
        return CastCustom(wide, dst_type=DataType.DT_FLOAT16)

    graph = build("casts", [x], body)
    (got,) = run(session, graph, x)
    np.testing.assert_array_equal(got, np.rint(x).astype(F16), strict=True)


def saturated(value: float, dst: type) -> int:
    """The documented float-to-int rule: NaN 0, out of range saturates,
    else rounded half to even (Python's round)."""
    info = np.iinfo(dst)
    if math.isnan(value):
        return 0
    if value >= -float(info.min):
        return int(info.max)
    if value <= float(info.min):
        return int(info.min)
    return round(value)


@pytest.mark.parametrize("dst", [I32, I64], ids=dtype_id)
@pytest.mark.parametrize("src", [F32, F16], ids=dtype_id)
def test_cast_float_to_int_saturates_and_maps_nan_to_zero(
    session: Session, src: type, dst: type
) -> None:
    with np.errstate(over="ignore"):
        x = np.array([np.nan, np.inf, -np.inf, 6e4, -6e4, 3e9, -3e9, 2.5], src)
    graph = build(
        "cast",
        [x],
        lambda b, x: CastCustom(x, dst_type=from_numpy_dtype(np.dtype(dst))),
    )
    (got,) = run(session, graph, x)
    expected = np.array([saturated(float(v), dst) for v in x], dtype=dst)
    np.testing.assert_array_equal(got, expected, strict=True)


# -- PadCustom ---------------------------------------------------------------------

PAD_CASES = [
    ([3, 4], [[1, 2], [0, 3]]),
    ([2, 3, 4], [[0, 0], [1, 1], [2, 0]]),
    ([5000], [[3, 7]]),
    ([2, 2], [[0, 0], [0, 0]]),
    ([1, 2, 1, 2, 1], [[1, 0], [0, 1], [2, 2], [0, 0], [1, 1]]),
    ([70, 130], [[2, 3], [5, 1]]),
    ([], []),
]


@pytest.mark.parametrize("dtype", [F32, F16, I32], ids=dtype_id)
@pytest.mark.parametrize("shape, paddings", PAD_CASES)
def test_pad(
    session: Session, dtype: type, shape: list[int], paddings: list[list[int]]
) -> None:
    x = sample(shape, dtype)
    value = 7.0 if np.dtype(dtype).kind == "i" else -1.25
    graph = build(
        "pad", [x], lambda b, x: PadCustom(x, paddings=paddings, pad_value=value)
    )
    (got,) = run(session, graph, x)
    # np.pad cannot take a scalar; padding one by nothing is a copy.
    expected = (
        np.pad(x, paddings, constant_values=np.array(value, dtype)) if shape else x
    )
    np.testing.assert_array_equal(got, expected, strict=True)


def test_pad_value_rounds_to_float16(session: Session) -> None:
    x = sample([2, 3], F16)
    graph = build(
        "pad", [x], lambda b, x: PadCustom(x, paddings=[[1, 1], [1, 1]], pad_value=0.1)
    )
    (got,) = run(session, graph, x)
    np.testing.assert_array_equal(got, np.pad(x, 1, constant_values=F16(0.1)))


# -- ReduceSumCustom ---------------------------------------------------------------

REDUCE_CASES = [
    ([4, 5], [], False),
    ([4, 5], [0], True),
    ([4, 5], [1], False),
    ([4, 5], [-1], True),
    ([2, 3, 4, 5], [1, 3], False),
    ([2, 3, 4, 5], [0, 2], True),
    ([2, 3, 4, 5], [-1, 0], False),
    ([3, 5000], [1], False),
    ([10000], [], False),
    ([3, 9000], [0, 1], True),
    ([6], [0], True),
    ([], [], False),
    ([2, 0, 3], [1], False),
]


@pytest.mark.parametrize("dtype", [F32, F16], ids=dtype_id)
@pytest.mark.parametrize("shape, axes, keep_dims", REDUCE_CASES)
def test_reduce_sum(
    session: Session, dtype: type, shape: list[int], axes: list[int], keep_dims: bool
) -> None:
    x = sample(shape, dtype)
    graph = build(
        "reduce",
        [x],
        lambda b, x: ReduceSumCustom(x, axes=axes, keep_dims=keep_dims),
    )
    (got,) = run(session, graph, x)
    expected = x.astype(np.float64).sum(
        axis=tuple(axes) if axes else None, keepdims=keep_dims
    )
    expected = np.asarray(expected).astype(dtype)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if dtype is F16:
        # float16 values sum exactly in double; both round once.
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


# -- FillCustom --------------------------------------------------------------------

FILL_CASES = [
    ([2, 3], F32, 2.5),
    ([5000], F16, -1.25),
    ([3], F16, 0.1),
    ([], I32, 7.0),
    ([3, 4, 5], I64, -3.0),
    ([4097], I32, 0.0),
    ([2, 3], I64, float(2**40)),
    ([0, 3], F32, 1.0),
]


@pytest.mark.parametrize("shape, dtype, value", FILL_CASES)
def test_fill(session: Session, shape: list[int], dtype: type, value: float) -> None:
    graph = build(
        "fill",
        [],
        lambda b: FillCustom(
            b, shape=shape, dtype=from_numpy_dtype(np.dtype(dtype)), value=value
        ),
    )
    (got,) = run(session, graph)
    np.testing.assert_array_equal(got, np.full(shape, value, dtype=dtype), strict=True)


# -- NoRefreshAddCustom ------------------------------------------------------------


# The sample kernel adds 1024 floats per block (like GE's sample).
@pytest.mark.parametrize("shape", [[1024], [8192], [4, 2048], [2, 3, 1024]])
def test_no_refresh_add(session: Session, shape: list[int]) -> None:
    x, y = sample(shape, F32, 1), sample(shape, F32, 2)
    graph = build("add", [x, y], lambda b, x, y: NoRefreshAddCustom(x, y))
    (got,) = run(session, graph, x, y)
    np.testing.assert_array_equal(got, x + y, strict=True)


# -- errors: they name the node ----------------------------------------------------


def compile_error(session: Session, arrays: list[np.ndarray], body) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(CompileError) as info:
        run(session, build("bad", arrays, body), *arrays)
    return str(info.value)


def test_split_that_does_not_divide(session: Session) -> None:
    x = sample([7, 3], F32)
    message = compile_error(
        session, [x], lambda b, x: SplitCustom(x, num_split=2, name="bad_split")
    )
    assert "node 'bad_split' (SplitCustom)" in message
    assert "num_split 2 does not divide dim 0" in message


def test_split_dim_out_of_range(session: Session) -> None:
    x = sample([4, 4], F32)
    message = compile_error(
        session,
        [x],
        lambda b, x: SplitCustom(x, num_split=2, split_dim=2, name="split_far"),
    )
    assert "node 'split_far'" in message and "split_dim 2 is out of range" in message


@pytest.mark.parametrize("mode", ["reflect", "edge", "CONSTANT"])
def test_pad_mode_other_than_constant(session: Session, mode: str) -> None:
    x = sample([2, 2], F32)
    message = compile_error(
        session,
        [x],
        lambda b, x: PadCustom(x, paddings=[[1, 1], [1, 1]], mode=mode, name="bad_pad"),
    )
    assert "node 'bad_pad' (PadCustom)" in message
    assert f"mode {mode!r} is not supported" in message


@pytest.mark.parametrize(
    "paddings", [[[1, 1]], [[1, -1], [0, 0]], [[1, 1, 1], [0, 0]]], ids=str
)
def test_pad_bad_paddings(session: Session, paddings: list[list[int]]) -> None:
    x = sample([2, 2], F32)
    message = compile_error(
        session, [x], lambda b, x: PadCustom(x, paddings=paddings, name="pads")
    )
    assert "node 'pads'" in message and "[before, after] pairs" in message


def test_pad_value_must_be_whole_for_int32(session: Session) -> None:
    x = sample([2, 2], I32)
    message = compile_error(
        session,
        [x],
        lambda b, x: PadCustom(x, paddings=[[1, 1], [0, 0]], pad_value=0.5, name="p"),
    )
    assert "node 'p'" in message and "not a whole number" in message


@pytest.mark.parametrize(
    "shapes, concat_dim, words",
    [
        ([[2, 3], [2, 4]], 0, "they may differ only in dim 0"),
        ([[2, 3], [2, 3, 1]], 1, "they may differ only in dim 1"),
        ([[2, 3], [2, 3]], 2, "concat_dim 2 is out of range"),
        ([[2, 3], [2, 3]], -3, "concat_dim -3 is out of range"),
    ],
)
def test_concat_mismatched_dims(
    session: Session, shapes: list[list[int]], concat_dim: int, words: str
) -> None:
    arrays = [sample(s, F32) for s in shapes]
    message = compile_error(
        session,
        arrays,
        lambda b, *xs: ConcatCustom(list(xs), concat_dim=concat_dim, name="bad_cat"),
    )
    assert "node 'bad_cat' (ConcatCustom)" in message and words in message


def test_layer_norm_bad_gamma_and_axis(session: Session) -> None:
    x, gamma = sample([2, 4], F32), sample([3], F32)
    message = compile_error(
        session, [x, gamma], lambda b, x, g: LayerNormCustom(x, g, name="ln_g")[0]
    )
    assert "node 'ln_g'" in message and "gamma has shape [3]" in message
    message = compile_error(
        session, [x], lambda b, x: LayerNormCustom(x, begin_norm_axis=2, name="ln_a")[0]
    )
    assert "node 'ln_a'" in message and "begin_norm_axis 2 is out of range" in message


@pytest.mark.parametrize(
    "axes, words",
    [([0, -2], "name a dim more than once"), ([2], "axes [2] are out of range")],
)
def test_reduce_sum_bad_axes(session: Session, axes: list[int], words: str) -> None:
    x = sample([2, 3], F32)
    message = compile_error(
        session, [x], lambda b, x: ReduceSumCustom(x, axes=axes, name="sum")
    )
    assert "node 'sum' (ReduceSumCustom)" in message and words in message


def test_fill_int_value_must_be_whole(session: Session) -> None:
    graph = build(
        "fill",
        [],
        lambda b: FillCustom(
            b, shape=[2], dtype=DataType.DT_INT32, value=2.5, name="bad_fill"
        ),
    )
    with pytest.raises(ExecuteError) as info:
        run(session, graph)
    assert "node 'bad_fill' (FillCustom)" in str(info.value)
    assert "value 2.5 is not a whole number" in str(info.value)


def test_no_refresh_add_needs_one_shape(session: Session) -> None:
    x, y = sample([3, 1], F32), sample([3, 4], F32)
    graph = build("add", [x, y], lambda b, x, y: NoRefreshAddCustom(x, y, name="nr"))
    with pytest.raises(ExecuteError) as info:
        run(session, graph, x, y)
    assert "node 'nr' (NoRefreshAddCustom)" in str(info.value)
    assert "infer_meta said float32[3,4], execute asked for float32[3, 1]" in str(
        info.value
    )


@pytest.mark.parametrize("shape", [[1000], [3, 4097], []])
def test_no_refresh_add_needs_whole_blocks(session: Session, shape: list[int]) -> None:
    x = sample(shape, F32)
    graph = build("add", [x, x], lambda b, x, y: NoRefreshAddCustom(x, y, name="nr"))
    with pytest.raises(ExecuteError) as info:
        run(session, graph, x, x)
    assert "node 'nr' (NoRefreshAddCustom)" in str(info.value)
    assert "positive multiple of 1024 elements" in str(info.value)


# -- loading from ASCEND_CUSTOM_OPP_PATH -------------------------------------------

LOAD_SCRIPT = """
import numpy as np
from ge.custom_op import get_registered_op_impls
from ge.es import GraphBuilder
from ge.es.custom import ConcatCustom, FillCustom
from ge.ge_global import GeApi
from ge.session import Session

GeApi().ge_initialize({"ge.exec.deviceId": "0"})
session = Session({})
b = GraphBuilder("g")
f = FillCustom(b, shape=[2, 3], value=1.5)
b.set_graph_output(ConcatCustom([f, f], concat_dim=-1), 0)
session.add_graph(0, b.build_and_reset())
(y,) = session.run_graph(0, [])  # compiling loads ASCEND_CUSTOM_OPP_PATH
assert (y.numpy() == np.full([2, 6], 1.5, np.float32)).all()
for impl in get_registered_op_impls():
    print(impl.op_type, impl.module_name)
"""


def test_ascend_custom_opp_path_directory_loads_every_op() -> None:
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH="ops/custom")
    result = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # Op modules are members of the directory's private package (Note [Op
    # module names]): _ge_py_custom_op_custom_<hash>.<module>.
    loaded = {
        op: module.rpartition(".")[2]
        for op, module in (line.split() for line in result.stdout.splitlines())
        if module.startswith("_ge_py_custom_op_custom_")
    }
    for op_type, module in [
        ("CastCustom", "cast_custom"),
        ("ConcatCustom", "concat_custom"),
        ("FillCustom", "fill_custom"),
        ("LayerNormCustom", "layer_norm_custom"),
        ("PadCustom", "pad_custom"),
        ("ReduceSumCustom", "reduce_sum_custom"),
        ("SplitCustom", "split_custom"),
    ]:
        assert loaded.get(op_type) == module, (op_type, loaded)
