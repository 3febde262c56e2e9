"""One graph of 50+ op nodes mixing every execute-path op with AddCustom
(examples/add_custom): LayerNormCustom with and without gamma/beta, Split
and Concat (dynamic outputs and inputs), multi-output nodes feeding later
nodes, Cast, Pad, ReduceSum and Fill. It runs twice, on two input sets, and
every graph output is checked against numpy.

``model`` describes the graph once, against an ``ops`` object: ``GeOps``
adds nodes to a GraphBuilder, ``NumpyOps`` computes the same thing with
numpy (float arithmetic in float64, rounded like the kernels round).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from op_harness import ge_session, inputs

from ge.es import GraphBuilder
from ge.es.custom import (
    AddCustom,
    CastCustom,
    ConcatCustom,
    FillCustom,
    LayerNormCustom,
    PadCustom,
    ReduceSumCustom,
    SplitCustom,
)
from ge.graph.numpy_dtypes import from_numpy_dtype
from ge.session import Session

F32, F16, I32, I64 = np.float32, np.float16, np.int32, np.int64


class GeOps:
    """The ops as graph nodes."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.builder = builder

    def add(self, x: Any, y: Any) -> Any:
        return AddCustom(x, y)

    def layer_norm(
        self, x: Any, gamma: Any = None, beta: Any = None, axis: int = -1
    ) -> tuple[Any, Any, Any]:
        return tuple(LayerNormCustom(x, gamma, beta, begin_norm_axis=axis))

    def split(self, x: Any, num_split: int, split_dim: int) -> list[Any]:
        return SplitCustom(x, num_split=num_split, split_dim=split_dim)

    def concat(self, xs: Sequence[Any], concat_dim: int) -> Any:
        return ConcatCustom(list(xs), concat_dim=concat_dim)

    # The builder leaves the dtype of CastCustom's and FillCustom's output
    # undefined (it comes from an attr, not a type variable), and CastCustom
    # derives src_type from its input's dtype when built: so say it here.
    def cast(self, x: Any, dtype: type, truncate: bool = False) -> Any:
        dst_type = from_numpy_dtype(np.dtype(dtype))
        return CastCustom(x, dst_type=dst_type, truncate=truncate).set_data_type(
            dst_type
        )

    def pad(self, x: Any, paddings: list[list[int]], value: float) -> Any:
        return PadCustom(x, paddings=paddings, pad_value=value)

    def reduce_sum(self, x: Any, axes: list[int], keep_dims: bool = False) -> Any:
        return ReduceSumCustom(x, axes=axes, keep_dims=keep_dims)

    def fill(self, shape: list[int], dtype: type, value: float) -> Any:
        data_type = from_numpy_dtype(np.dtype(dtype))
        return FillCustom(
            self.builder, shape=shape, dtype=data_type, value=value
        ).set_data_type(data_type)


class NumpyOps:
    """The same ops in numpy."""

    def add(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        assert x.shape == y.shape and x.dtype == y.dtype
        return x + y

    def layer_norm(
        self,
        x: np.ndarray,
        gamma: np.ndarray | None = None,
        beta: np.ndarray | None = None,
        axis: int = -1,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dims = tuple(range(axis % x.ndim, x.ndim))
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=dims, keepdims=True)
        rstd = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=dims, keepdims=True) + 1e-5)
        y = (x64 - mean) * rstd
        y = y * gamma if gamma is not None else y
        y = y + beta if beta is not None else y
        return y.astype(F32), mean.astype(F32), rstd.astype(F32)

    def split(self, x: np.ndarray, num_split: int, split_dim: int) -> list[np.ndarray]:
        return np.split(x, num_split, axis=split_dim)

    def concat(self, xs: Sequence[np.ndarray], concat_dim: int) -> np.ndarray:
        assert len({x.dtype for x in xs}) == 1
        return np.concatenate(xs, axis=concat_dim)

    def cast(self, x: np.ndarray, dtype: type, truncate: bool = False) -> np.ndarray:
        if x.dtype.kind == "f" and np.dtype(dtype).kind == "i":
            x = np.trunc(x) if truncate else np.rint(x)
        return x.astype(dtype)

    def pad(self, x: np.ndarray, paddings: list[list[int]], value: float) -> np.ndarray:
        return np.pad(x, paddings, constant_values=np.array(value, x.dtype))

    def reduce_sum(
        self, x: np.ndarray, axes: list[int], keep_dims: bool = False
    ) -> np.ndarray:
        total = x.astype(np.float64).sum(axis=tuple(axes) or None, keepdims=keep_dims)
        return np.asarray(total).astype(x.dtype)

    def fill(self, shape: list[int], dtype: type, value: float) -> np.ndarray:
        return np.full(shape, value, dtype=dtype)


def model(ops: Any, a: Any, b: Any, g: Any, bt: Any, h: Any, i: Any) -> list[Any]:
    """The graph: a, b float32 [4, 6, 8]; g, bt float32 [8]; h float16
    [4, 10]; i int32 [6, 5]. Returns its outputs."""
    # Layer norms (with gamma and beta, with neither, with gamma only) whose
    # three outputs all feed later nodes; splits and concats around them.
    s = ops.add(a, b)
    y1, mean1, rstd1 = ops.layer_norm(s, g, bt)
    y2, mean2, rstd2 = ops.layer_norm(a, axis=1)
    y3, _, rstd3 = ops.layer_norm(b, gamma=g)
    p = ops.split(y1, 3, 1)  # 3 x [4, 2, 8]
    q = ops.split(y2, 4, -1)  # 4 x [4, 6, 2]
    c1 = ops.concat([ops.add(p[0], p[2]), ops.add(p[1], p[1]), p[2]], 1)
    c2 = ops.concat(q[::-1], -1)
    t = ops.add(ops.add(c1, c2), y3)
    stats = ops.concat([mean1, rstd1, rstd3], -1)  # [4, 6, 3]
    r_sum = ops.add(
        ops.reduce_sum(t, [-1], keep_dims=True), ops.reduce_sum(stats, [2], True)
    )
    r2 = ops.reduce_sum(t, [0, 2])  # [6]
    m2 = ops.add(mean2, rstd2)  # [4, 1, 1]
    # A residual stack: layer norm, split, add, concat, add.
    x = t
    for k in range(3):
        n, _, _ = ops.layer_norm(x, g if k != 1 else None, bt if k == 1 else None)
        halves = ops.split(n, 2, 0)  # 2 x [2, 6, 8]
        x = ops.add(ops.concat([ops.add(halves[0], halves[1]), halves[1]], 0), t)
    # Exact float arithmetic (quarters) into casts: ties round to even.
    m = ops.add(
        ops.pad(ops.add(a, b), [[1, 0], [0, 2], [3, 1]], 0.5),
        ops.fill([5, 8, 12], F32, 2.0),
    )
    c16 = ops.cast(m, F16)
    rounded = ops.cast(m, I32)
    wide = ops.cast(ops.cast(m, I32, truncate=True), I64)
    diff = ops.add(ops.cast(wide, F32), ops.cast(rounded, F32))
    rs = ops.reduce_sum(ops.cast(c16, F32), [0, 2], keep_dims=True)  # [1, 8, 1]
    # Integers: pad, split into rows, concat every other row with a fill.
    rows = ops.split(ops.pad(i, [[0, 1], [2, 0]], 7), 7, 0)  # 7 x [1, 7]
    ci = ops.concat(rows[::2] + [ops.fill([2, 7], I32, -3)], 0)  # [6, 7]
    ci2 = ops.concat([ci, ops.cast(ops.cast(ci, I64), I32)], 1)  # [6, 14]
    rcf = ops.reduce_sum(ops.cast(ci2, F32), [1])  # [6]
    odd = ops.concat(rows[1::2], 0)  # [3, 7]
    # float16: pad, sums, split, concat, add, fill, then a layer norm.
    ph = ops.pad(h, [[0, 0], [1, 1]], 0.25)  # [4, 12]
    sh = ops.split(ph, 2, -1)  # 2 x [4, 6]
    ch = ops.concat([sh[1], sh[0]], 0)  # [8, 6]
    hh = ops.add(ops.add(sh[0], sh[1]), ops.fill([4, 6], F16, 0.5))
    ln_h = ops.layer_norm(ops.cast(hh, F32), axis=0)
    return [
        t,
        r_sum,
        r2,
        m2,
        x,
        c16,
        rounded,
        wide,
        diff,
        rs,
        ci2,
        rcf,
        odd,
        ops.reduce_sum(ph, [1]),
        ops.reduce_sum(ch, [0], keep_dims=True),
        hh,
        *ln_h,
    ]


def input_set(seed: int) -> list[np.ndarray]:
    """Quarters (so sums and ties are exact), of the model's shapes."""
    rng = np.random.default_rng(seed)

    def quarters(shape: list[int], dtype: type) -> np.ndarray:
        return (rng.integers(-20, 21, size=shape) / 4).astype(dtype)

    return [
        quarters([4, 6, 8], F32),
        quarters([4, 6, 8], F32),
        quarters([8], F32),
        quarters([8], F32),
        quarters([4, 10], F16),
        rng.integers(-1000, 1000, size=[6, 5]).astype(I32),
    ]


@pytest.fixture
def session() -> Iterator[Session]:
    with ge_session() as s:
        yield s


def test_big_graph_matches_numpy_on_two_input_sets(session: Session) -> None:
    from ge.graph import Tensor

    sets = [input_set(1), input_set(2)]
    builder = GraphBuilder("big")
    graph = builder.build_and_reset(model(GeOps(builder), *inputs(builder, *sets[0])))
    ops = [n for n in graph.nodes if n.type not in ("Data", "Const")]
    assert len(ops) >= 50, len(ops)
    assert {n.type for n in ops} == {
        "AddCustom",
        "CastCustom",
        "ConcatCustom",
        "FillCustom",
        "LayerNormCustom",
        "PadCustom",
        "ReduceSumCustom",
        "SplitCustom",
    }
    session.add_graph(0, graph)
    runs = []
    for arrays in sets:
        outputs = session.run_graph(0, [Tensor.from_numpy(a) for a in arrays])
        got = [t.numpy() for t in outputs]
        expected = model(NumpyOps(), *arrays)
        assert len(got) == len(expected)
        for index, (g, want) in enumerate(zip(got, expected)):
            assert g.dtype == want.dtype and g.shape == want.shape, index
            if want.dtype.kind == "i":
                np.testing.assert_array_equal(g, want, err_msg=f"output {index}")
            else:
                np.testing.assert_allclose(
                    g, want, rtol=1e-5, atol=1e-5, err_msg=f"output {index}"
                )
        runs.append(got)
    # One compiled graph served both runs, and the second saw its own inputs.
    assert all(not np.array_equal(x, y) for x, y in zip(runs[0], runs[1]))
