"""Element-wise fusion (docs/compiler.md; Note [Fusion regions] in
ge.engine.passes.fusion): which nodes join a region and which break it, and that
a fused graph gives the unfused graph's bits for every op and dtype the CPU
device runs."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from _rt_support import unique
from math_harness import math_session

import ge.es.math as m
from ge.custom_op.builtin import OP_TYPES
from ge.engine.compiled import CompiledGraph
from ge.engine.compiler import compile_graph
from ge.engine.errors import CompileError
from ge.engine.passes.fusion import generator
from ge.es import GraphBuilder, TensorHolder
from ge.graph import DataType, Graph, Tensor
from ge.graph.numpy_dtypes import to_numpy_dtype


@pytest.fixture(scope="module", autouse=True)
def _library() -> Iterator[None]:
    with math_session():
        yield


def runs() -> dict[str, frozenset[str]]:
    """The math library's RUNS table (loaded with the library)."""
    gen = generator()
    assert gen is not None
    table: dict[str, frozenset[str]] = importlib.import_module(
        gen.__name__.rpartition(".")[0] + "._runs"
    ).RUNS
    return table


def compiled(graph: Graph, fusion: bool = True, **options: str) -> CompiledGraph:
    saved = os.environ.get("GE_CPU_FUSION")
    os.environ["GE_CPU_FUSION"] = "1" if fusion else "0"
    try:
        return compile_graph(graph, options)
    finally:
        if saved is None:
            del os.environ["GE_CPU_FUSION"]
        else:
            os.environ["GE_CPU_FUSION"] = saved


def outputs(graph: CompiledGraph, arrays: list[np.ndarray]) -> list[np.ndarray]:
    dtypes = [graph.tensors[t].meta.dtype for t in graph.input_ids]
    inputs = [Tensor(a, data_type=d) for a, d in zip(arrays, dtypes)]
    return [t.numpy() for t in graph.run(inputs)]


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def check_bits(graph: Graph, arrays: list[np.ndarray]) -> CompiledGraph:
    """Compile fused and unfused; every output the same bytes. The fused one."""
    fused, plain = compiled(graph), compiled(graph, fusion=False)
    assert not plain.report.regions
    for a, b in zip(outputs(fused, arrays), outputs(plain, arrays)):
        assert same_bits(a, b), (a, b)
    return fused


def regions(graph: CompiledGraph) -> list[tuple[str, ...]]:
    return [r.nodes for r in graph.report.regions]


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# -- which nodes join -----------------------------------------------------------


def test_a_chain_is_one_region_writing_only_the_graph_output() -> None:
    b = GraphBuilder(unique("chain"))
    x, y = b.create_input(0, shape=[3, 40]), b.create_input(1, shape=[40])
    t = m.Add(x, y, name="add")
    t = m.Mul(t, t, name="mul")
    t = m.Exp(m.Relu(t, name="relu"), scale=0.5, name="exp")
    graph = b.build_and_reset([m.Sub(t, y, name="sub")])
    fused = check_bits(graph, [f32(3, 40), f32(40, seed=1)])
    assert regions(fused) == [("add", "mul", "relu", "exp", "sub")]
    assert fused.report.regions[0].outputs == ("sub",)
    assert len(fused.task_specs) == 1  # one kernel launch for five nodes
    assert fused.task_specs[0].kernel.name == "ge_fused"


def test_intermediates_read_outside_or_returned_are_written_out() -> None:
    b = GraphBuilder(unique("outs"))
    x = b.create_input(0, shape=[8, 8])
    w = b.create_input(1, shape=[8, 8])
    t = m.Relu(m.Add(x, x, name="a"), name="r")
    mm = m.MatMul(t, w, name="mm")  # reads r: r is written out
    s = m.Neg(t, name="neg")  # a graph output in the middle of a region
    graph = b.build_and_reset([m.Abs(s, name="abs"), s, mm])
    fused = check_bits(graph, [f32(8, 8), f32(8, 8, seed=2)])
    assert regions(fused) == [("a", "r", "neg", "abs")]
    assert set(fused.report.regions[0].outputs) == {"r", "neg", "abs"}


def test_a_non_elementwise_node_breaks_the_chain() -> None:
    b = GraphBuilder(unique("matmul"))
    x, w = b.create_input(0, shape=[6, 6]), b.create_input(1, shape=[6, 6])
    t = m.Relu(m.Add(x, x, name="a1"), name="r1")
    t = m.MatMul(t, w, name="mm")
    graph = b.build_and_reset([m.Relu(m.Add(t, x, name="a2"), name="r2")])
    fused = check_bits(graph, [f32(6, 6), f32(6, 6, seed=3)])
    assert regions(fused) == [("a1", "r1"), ("a2", "r2")]


def test_a_smaller_broadcast_producer_is_written_and_read_broadcast() -> None:
    b = GraphBuilder(unique("bcast"))
    a, c = b.create_input(0, shape=[4, 1]), b.create_input(1, shape=[4, 5])
    small = m.Neg(m.Mul(a, a, name="mul"), name="neg")  # [4, 1]
    graph = b.build_and_reset([m.Relu(m.Add(small, c, name="add"), name="relu")])
    fused = check_bits(graph, [f32(4, 1), f32(4, 5, seed=4)])
    assert regions(fused) == [("mul", "neg"), ("add", "relu")]
    assert "shape differs" in fused.report.breaks["add"]


def test_joining_through_an_outside_node_would_make_a_cycle() -> None:
    b = GraphBuilder(unique("cycle"))
    x, w = b.create_input(0, shape=[5, 5]), b.create_input(1, shape=[5, 5])
    a = m.Relu(m.Add(x, x, name="a"), name="r")
    mm = m.MatMul(a, w, name="mm")  # reads the region, and z reads it
    graph = b.build_and_reset([m.Add(a, mm, name="z")])
    fused = check_bits(graph, [f32(5, 5), f32(5, 5, seed=5)])
    assert regions(fused) == [("a", "r")]
    assert "cycle" in fused.report.breaks["z"]


def test_two_producer_regions_merge_through_their_consumer() -> None:
    b = GraphBuilder(unique("merge"))
    x, y = b.create_input(0, shape=[64]), b.create_input(1, shape=[64])
    left = m.Exp(m.Neg(x, name="n1"), name="e1")
    right = m.Tanh(m.Abs(y, name="abs"), name="t1")
    graph = b.build_and_reset([m.Maximum(left, right, name="max")])
    fused = check_bits(graph, [f32(64), f32(64, seed=6)])
    assert regions(fused) == [("n1", "e1", "abs", "t1", "max")]


def test_dtype_changes_stay_inside_a_region() -> None:
    b = GraphBuilder(unique("dtypes"))
    x = b.create_input(0, shape=[50], data_type=DataType.DT_INT32)
    h = b.create_input(1, shape=[50], data_type=DataType.DT_FLOAT16)
    t = m.Add(x, x, name="add")  # int32
    p = m.Pow(t, h, name="pow")  # int32 ** float16 -> float16 (promotion)
    c = m.Cast(p, dst_type=DataType.DT_BF16, name="cast")
    graph = b.build_and_reset([m.Relu(c, name="relu")])
    ints = np.arange(-25, 25, dtype=np.int32) % 7
    halves = (np.arange(50) % 5 * 0.5 - 1).astype(np.float16)
    fused = check_bits(graph, [ints, halves])
    assert regions(fused) == [("add", "pow", "cast", "relu")]


def test_single_nodes_and_empty_tensors_keep_their_own_kernels() -> None:
    b = GraphBuilder(unique("single"))
    x = b.create_input(0, shape=[0, 3])
    y = b.create_input(1, shape=[7])
    graph = b.build_and_reset([m.Relu(m.Neg(x)), m.Sqrt(y)])
    fused = check_bits(graph, [np.zeros((0, 3), np.float32), np.abs(f32(7))])
    assert regions(fused) == []


# -- switches ---------------------------------------------------------------------


def chain_graph() -> Graph:
    b = GraphBuilder(unique("switch"))
    x = b.create_input(0, shape=[16])
    return b.build_and_reset([m.Relu(m.Add(x, x))])


def test_the_environment_switch_turns_fusion_off() -> None:
    assert regions(compiled(chain_graph())) != []
    plain = compiled(chain_graph(), fusion=False)
    assert regions(plain) == [] and not plain.report.fusion


@pytest.mark.parametrize(
    "switch, fused",
    [
        ({"GraphFusion": {"ALL": "off"}}, False),
        ({"UBFusion": {"ElementwiseFusionPass": "off"}}, False),
        ({"GraphFusion": {"ConstantFoldingPass": "off"}}, True),
        ({"UBFusion": {"ALL": "on"}}, True),
    ],
)
def test_the_fusion_switch_file(
    tmp_path: Path, switch: dict[str, Any], fused: bool
) -> None:
    path = tmp_path / "fusion_switch.cfg"
    path.write_text(json.dumps({"Switch": switch}))
    graph = compiled(chain_graph(), **{"ge.fusionSwitchFile": str(path)})
    assert bool(regions(graph)) is fused


def test_a_bad_switch_file_is_a_compile_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.cfg"
    path.write_text("{not json")
    with pytest.raises(CompileError, match="fusion switch file"):
        compiled(chain_graph(), **{"ge.fusionSwitchFile": str(path)})


# -- bit equality for every op and dtype -------------------------------------------

BINARY = ("Add", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum", "Pow")
UNARY = ("Neg", "Abs", "Relu", "Sqrt", "Rsqrt", "Sigmoid", "Tanh", "Exp", "Log")


def _spec_name(dtype: DataType) -> str | None:
    try:
        return dtype.spec_name
    except KeyError:
        return None


NAME_TO_DTYPE = {name: d for d in DataType for name in [_spec_name(d)] if name}
SHAPE = (5, 67)


def values(dtype: DataType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values of ``dtype`` with the awkward ones in: NaN, +-inf, -0, zero
    divisors, MIN, the integer limits."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    np_dtype = to_numpy_dtype(dtype)
    if dtype is DataType.DT_BOOL:
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        data = rng.integers(-9, 10, n).astype(np.int64)
        data[:4] = [0, 1, -1, 2]
        data = np.clip(data, info.min, info.max).astype(np_dtype)
        data[4], data[5] = info.min, info.max
        return data.reshape(shape)
    data = (rng.standard_normal(n) * 3).astype(np.float32)
    data[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5]
    if np_dtype == ml_dtypes.bfloat16:
        return data.astype(ml_dtypes.bfloat16).reshape(shape)
    return data.astype(np_dtype).reshape(shape)


with math_session():
    TABLE = runs()  # for the parametrisation, before any fixture runs


@pytest.mark.parametrize(
    "dtype_name", sorted({n for op in (*BINARY, *UNARY) for n in TABLE[op]})
)
def test_every_op_gives_the_unfused_bits(dtype_name: str) -> None:
    """One region per dtype: every element-wise op that runs the dtype
    (binary ones on a full and a broadcast row input), their results summed
    (or combined by the first op that runs it) inside the region, and every
    op's result a graph output."""
    table = TABLE
    dtype = NAME_TO_DTYPE[dtype_name]
    b = GraphBuilder(unique(f"bits_{dtype_name}"))
    x = b.create_input(0, shape=list(SHAPE), data_type=dtype)
    y = b.create_input(1, shape=[SHAPE[1]], data_type=dtype)
    results: list[TensorHolder] = []
    for op in BINARY:
        if dtype_name in table[op]:
            results.append(getattr(m, op)(x, y, name=op.lower()))
    for op in UNARY:
        if dtype_name in table[op]:
            fn: Callable[..., TensorHolder] = getattr(m, op)
            kwargs = {"scale": 0.5, "shift": 0.25} if op in ("Exp", "Log") else {}
            results.append(fn(x, name=op.lower(), **kwargs))
    combine = next(op for op in ("Add", "Sub", "Maximum") if dtype_name in table[op])
    total = results[0]
    for r in [*results[1:], x]:
        total = getattr(m, combine)(total, r)
    graph = b.build_and_reset([*results, total])
    fused = check_bits(graph, [values(dtype, SHAPE, 1), values(dtype, SHAPE[1:], 2)])
    assert len(fused.report.regions) == 1
    assert len(fused.report.regions[0].nodes) == 2 * len(results)


CAST_NAMES = sorted(TABLE["Cast"])


@pytest.mark.parametrize("src", CAST_NAMES)
def test_casts_give_the_unfused_bits(src: str) -> None:
    """src -> every other dtype -> back to src (or bool), in one region."""
    dtype = NAME_TO_DTYPE[src]
    b = GraphBuilder(unique(f"cast_{src}"))
    x = b.create_input(0, shape=[257], data_type=dtype)
    results = []
    for dst in CAST_NAMES:
        there = m.Cast(x, dst_type=NAME_TO_DTYPE[dst])
        results.append(m.Cast(there, dst_type=dtype))
    graph = b.build_and_reset(results)
    fused = check_bits(graph, [values(dtype, (257,), 3)])
    assert sum(len(r.nodes) for r in fused.report.regions) == 2 * len(CAST_NAMES)


def test_the_fusible_ops_are_the_libraries_elementwise_ones() -> None:
    host = {
        "Identity",
        "TensorMove",
        "Split",
        "Concat",
        "ConcatV2",
        "Transpose",
        "Conv2D",
        "GEMM",
        "BatchMatMulV2",
    }  # numpy execute ops (ops/math/_host.py): never fused
    assert set(BINARY) | set(UNARY) | {"Cast", "MatMul"} | host == set(OP_TYPES)


def test_a_dead_node_in_a_region_is_computed_and_dropped() -> None:
    b = GraphBuilder(unique("dead"))
    x = b.create_input(0, shape=[9])
    t = m.Add(x, x, name="a")
    m.Mul(t, x, name="dead")  # nothing reads it, not an output
    graph = b.build_and_reset([m.Relu(t, name="r")])
    fused = check_bits(graph, [f32(9)])
    assert regions(fused) == [("a", "dead", "r")]


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16", "float32", "int8"])
def test_one_element_constants_are_written_into_the_kernel(dtype_name: str) -> None:
    """A scalar Const is no kernel argument; its bits (a NaN's payload
    included) are the load's."""
    dtype = NAME_TO_DTYPE[dtype_name]
    b = GraphBuilder(unique(f"scalars_{dtype_name}"))
    x = b.create_input(0, shape=[3, 70], data_type=dtype)
    pool = values(dtype, (8,), 5)  # NaN, inf, -0 or 0, 1, -1, MIN ... first
    consts = [pool[k : k + 1] for k in (0, 1, 3, 6)]
    if dtype_name == "float32":
        consts[0] = np.array([0x7FC12345], np.uint32).view(np.float32)  # NaN payload
    t = x
    for k, c in enumerate(consts):
        node = b.create_const(Tensor(c.reshape(()), data_type=dtype))
        t = (m.Maximum if k % 2 else m.Add)(t, node)
    graph = b.build_and_reset([m.Relu(t)])
    fused = check_bits(graph, [values(dtype, (3, 70), 9)])
    assert regions(fused) and fused.task_specs[0].nslots == 2  # x and y only


def test_siblings_reading_one_tensor_merge() -> None:
    b = GraphBuilder(unique("siblings"))
    x, w = b.create_input(0, shape=[4, 4]), b.create_input(1, shape=[4, 4])
    e = m.Exp(x, name="exp")
    s = m.Sigmoid(m.Neg(x, name="neg"), name="sig")
    mm = m.MatMul(m.Abs(x, name="abs"), w, name="mm")  # abs: a sibling too
    late = m.Add(mm, x, name="late")  # reads x, but after mm, which reads abs
    graph = b.build_and_reset([e, s, late])
    fused = check_bits(graph, [np.abs(f32(4, 4)), f32(4, 4, seed=8)])
    assert regions(fused) == [("exp", "neg", "sig", "abs")]
    assert set(fused.report.regions[0].outputs) == {"exp", "sig", "abs"}
    assert len(fused.task_specs) == 3  # the region, mm, late
