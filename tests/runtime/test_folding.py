"""Constant folding (docs/compiler.md; Note [Constant folding] in
ge.engine.passes.folding): every built-in op with constant inputs becomes a
Const holding its own kernel's result, visible in the compile report and in
the DUMP_GE_GRAPH stage dumps; the caller's graph is unchanged."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from _rt_support import unique
from math_harness import math_session

import ge.es.math as m
from ge.custom_op.builtin import OP_TYPES
from ge.engine.compiled import CompiledGraph
from ge.engine.compiler import compile_graph
from ge.es import GraphBuilder, TensorHolder
from ge.graph import DataType, Graph, Tensor


@pytest.fixture(scope="module", autouse=True)
def _library() -> Iterator[None]:
    with math_session():
        yield


def compiled(graph: Graph, folding: bool = True) -> CompiledGraph:
    saved = os.environ.get("GE_CPU_FOLDING")
    os.environ["GE_CPU_FOLDING"] = "1" if folding else "0"
    try:
        return compile_graph(graph)
    finally:
        if saved is None:
            del os.environ["GE_CPU_FOLDING"]
        else:
            os.environ["GE_CPU_FOLDING"] = saved


def run(graph: CompiledGraph, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [t.numpy() for t in graph.run([Tensor.from_numpy(a) for a in arrays])]


def const(b: GraphBuilder, array: np.ndarray, dtype: DataType) -> TensorHolder:
    return b.create_const(Tensor(array, data_type=dtype))


F = DataType.DT_FLOAT
A = np.array([[0.5, -1.5, 2.0], [4.0, 0.25, -0.0]], np.float32)
B = np.array([1.5, -2.0, 0.75], np.float32)
W = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0]], np.float32)

# op -> a builder of the folded node from constants (float32 unless said)
CASES: dict[str, Callable[[GraphBuilder], TensorHolder]] = {
    "Add": lambda b: m.Add(const(b, A, F), const(b, B, F), name="op"),
    "Sub": lambda b: m.Sub(const(b, A, F), const(b, B, F), name="op"),
    "Mul": lambda b: m.Mul(const(b, A, F), const(b, B, F), name="op"),
    "RealDiv": lambda b: m.RealDiv(const(b, A, F), const(b, B, F), name="op"),
    "Div": lambda b: m.Div(const(b, A, F), const(b, B, F), name="op"),
    "Maximum": lambda b: m.Maximum(const(b, A, F), const(b, B, F), name="op"),
    "Minimum": lambda b: m.Minimum(const(b, A, F), const(b, B, F), name="op"),
    "Pow": lambda b: m.Pow(const(b, np.abs(A), F), const(b, B, F), name="op"),
    "Neg": lambda b: m.Neg(const(b, A, F), name="op"),
    "Abs": lambda b: m.Abs(const(b, A, F), name="op"),
    "Relu": lambda b: m.Relu(const(b, A, F), name="op"),
    "Sqrt": lambda b: m.Sqrt(const(b, A, F), name="op"),
    "Rsqrt": lambda b: m.Rsqrt(const(b, A, F), name="op"),
    "Sigmoid": lambda b: m.Sigmoid(const(b, A, F), name="op"),
    "Tanh": lambda b: m.Tanh(const(b, A, F), name="op"),
    "Exp": lambda b: m.Exp(const(b, A, F), scale=0.5, name="op"),
    "Log": lambda b: m.Log(const(b, A, F), base=2.0, name="op"),
    "MatMul": lambda b: m.MatMul(
        const(b, A, F), const(b, W, F), const(b, W[0], F), name="op"
    ),
    "Cast": lambda b: m.Cast(const(b, A, F), dst_type=DataType.DT_INT32, name="op"),
    # GE's built-in ops of its fusion-pass samples (numpy execute callbacks)
    "Identity": lambda b: m.Identity(const(b, A, F), name="op"),
    "TensorMove": lambda b: m.TensorMove(const(b, A, F), name="op"),
    # one output: folding replaces a node by one Const (a Split of several
    # outputs is left to run)
    "Split": lambda b: m.Split(1, const(b, A.T.copy(), F), 1, num_split=1, name="op")[
        0
    ],
    "Concat": lambda b: m.Concat(0, [const(b, A, F), const(b, A, F)], N=2, name="op"),
    "ConcatV2": lambda b: m.ConcatV2(
        [const(b, A, F), const(b, A, F)], 1, N=2, name="op"
    ),
    "Transpose": lambda b: m.Transpose(const(b, A, F), [1, 0], name="op"),
    "Conv2D": lambda b: m.Conv2D(
        const(b, A.reshape(1, 1, 2, 3), F),
        const(b, W[:2, :].reshape(1, 1, 2, 2), F),
        strides=[1, 1, 1, 1],
        pads=[0, 0, 0, 0],
        data_format="NCHW",
        name="op",
    ),
    "GEMM": lambda b: m.GEMM(
        const(b, A, F),
        const(b, W, F),
        const(b, W[0], F),
        const(b, np.array([2.0], np.float32), F),
        const(b, np.array([0.5], np.float32), F),
        name="op",
    ),
    "BatchMatMulV2": lambda b: m.BatchMatMulV2(
        const(b, A, F), const(b, W, F), name="op"
    ),
}


def test_every_builtin_op_has_a_case() -> None:
    assert set(CASES) == set(OP_TYPES)


@pytest.mark.parametrize("op", sorted(CASES))
def test_every_builtin_op_folds_to_its_kernels_bits(op: str) -> None:
    b = GraphBuilder(unique(f"fold_{op}"))
    x = b.create_input(0, shape=[1])
    folded_value = CASES[op](b)
    dtype = DataType.DT_INT32 if op == "Cast" else F  # Cast's: known at compile
    out = m.Add(folded_value, m.Cast(x, dst_type=int(dtype)))
    graph = b.build_and_reset([out, folded_value])
    before = [n.type for n in graph.nodes]
    folded, plain = compiled(graph), compiled(graph, folding=False)
    assert folded.report.folded == ["op"]
    assert plain.report.folded == [] and not plain.report.folding
    assert [n.type for n in graph.nodes] == before  # the caller's graph
    data = [np.array([0.5], np.float32)]
    for a, c in zip(run(folded, data), run(plain, data)):
        assert a.dtype == c.dtype and a.tobytes() == c.tobytes()
    # one Const (the result) in place of the node and its constant inputs
    assert len(folded.consts) == 1


def test_chains_fold_and_their_inputs_are_dropped() -> None:
    b = GraphBuilder(unique("fold_chain"))
    x = b.create_input(0, shape=[3])
    c = m.Exp(m.Mul(const(b, B, F), const(b, B, F), name="sq"), name="e")
    graph = b.build_and_reset([m.Add(x, c, name="y")])
    folded = compiled(graph)
    assert folded.report.folded == ["sq", "e"]
    assert len(folded.consts) == 1
    data = [np.array([1, 2, 3], np.float32)]
    assert (
        run(folded, data)[0].tobytes() == run(compiled(graph, False), data)[0].tobytes()
    )
    assert "folded sq -> Const" in folded.report.text()


def test_a_node_with_a_graph_input_is_not_folded() -> None:
    b = GraphBuilder(unique("no_fold"))
    x = b.create_input(0, shape=[3])
    graph = b.build_and_reset([m.Add(x, const(b, B, F))])
    assert compiled(graph).report.folded == []


def test_dump_ge_graph_writes_each_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DUMP_GE_GRAPH", "2")
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path))
    b = GraphBuilder(unique("dumped"))
    x = b.create_input(0, shape=[3])
    c = m.Neg(const(b, B, F), name="negc")
    graph = b.build_and_reset([m.Relu(m.Add(x, c, name="add"), name="relu")])
    compiled(graph)
    files = sorted(tmp_path.iterdir())
    stages = [f.name.rsplit("_", 3)[-3:] for f in files]
    assert [s[-1] for s in stages] == ["begin.txt", "folding.txt", "fusion.txt"]
    begin, after_folding, after_fusion = (f.read_text() for f in files)
    assert "%negc" in begin and "Node[type=Neg]" in begin
    assert "Node[type=Neg]" not in after_folding and "%negc" in after_folding
    assert "region 0 [3]: add -> relu" in after_fusion
