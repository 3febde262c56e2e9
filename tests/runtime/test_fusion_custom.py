"""Custom ops whose specs declare ``elementwise:`` join element-wise fusion
regions (docs/compiler.md, "Element-wise fusion"; Note [Element-wise
expressions] in ge_ir.elementwise): which join, which break a region, and
that the fused kernel gives the bits of the ops' own kernels over random
and special values."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import ge.es.math as m
from ge.custom_op import (
    bootstrap,
    get_registered_op_impl,
    register_op,
    register_op_impl,
)
from ge.engine.compiled import CompiledGraph
from ge.engine.compiler import compile_graph
from ge.engine.errors import CompileError
from ge.es import GraphBuilder
from ge.graph import DataType, Graph, Tensor
from ge.runtime import Tensor as RtTensor
from ge.runtime import TensorDesc

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    ROOT / "examples/annotated_args_refresh/add_ops.py",
    ROOT / "ops/custom/scale_custom.py",
    ROOT / "ops/custom/sum_n_custom.py",
    ROOT / "examples/add_custom/add_custom_op.py",
]
N = 2048  # a multiple of the sample kernels' blocks (1024 and 64)


@pytest.fixture(scope="module", autouse=True)
def _ops() -> Iterator[None]:
    bootstrap.load_custom_op_plugins(os.pathsep.join(str(p) for p in MODULES))
    bootstrap.load_builtin_ops()
    yield


def compiled(graph: Graph, fusion: bool = True) -> CompiledGraph:
    saved = os.environ.get("GE_CPU_FUSION")
    os.environ["GE_CPU_FUSION"] = "1" if fusion else "0"
    try:
        return compile_graph(graph)
    finally:
        if saved is None:
            del os.environ["GE_CPU_FUSION"]
        else:
            os.environ["GE_CPU_FUSION"] = saved


def run(graph: CompiledGraph, arrays: list[np.ndarray]) -> list[np.ndarray]:
    return [t.numpy() for t in graph.run([Tensor(a) for a in arrays])]


def special(dtype: type, n: int, seed: int) -> np.ndarray:
    """Random values with the special ones at random places."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 8).astype(dtype)
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, info.tiny / 4, info.max, -info.max]
    values += [info.tiny, 1.0, -1.0, info.eps]
    x[rng.choice(n, len(values), replace=False)] = np.array(values, dtype)
    return x


def same_bits_fused_and_unfused(
    graph: Graph, arrays: list[np.ndarray]
) -> CompiledGraph:
    fused, plain = compiled(graph), compiled(graph, fusion=False)
    assert not plain.report.regions
    for a, b in zip(run(fused, arrays), run(plain, arrays)):
        assert a.tobytes() == b.tobytes(), (a, b)
    return fused


def inputs(b: GraphBuilder, k: int, dtype: DataType = DataType.DT_FLOAT) -> list:
    return [
        b.create_input(i, name=f"x{i}", data_type=dtype, shape=[N]) for i in range(k)
    ]


def test_a_chain_of_custom_ops_is_one_region_with_the_unfused_bits() -> None:
    from ge.es.custom import (
        AddCustom,
        AnnotatedAddCustom,
        NoRefreshAddCustom,
        ScaleCustom,
    )

    b = GraphBuilder("custom_chain")
    x, y = inputs(b, 2)
    t = AnnotatedAddCustom(x, y)
    t = NoRefreshAddCustom(t, y)
    t = ScaleCustom(t, None, alpha=-2.5)
    t = ScaleCustom(t, y, alpha=0.3)
    b.set_graph_output(AddCustom(t, x), 0)
    graph = b.build_and_reset()
    for seed in range(3):
        arrays = [special(np.float32, N, seed), special(np.float32, N, seed + 10)]
        fused = same_bits_fused_and_unfused(graph, arrays)
    assert [len(r.nodes) for r in fused.report.regions] == [5]
    # The execute-path nodes (NoRefreshAddCustom, AddCustom) are in the
    # kernel: no Python runs per run.
    assert fused.only_tasks and not compiled(graph, fusion=False).only_tasks


@pytest.mark.parametrize(
    "alpha", [1.0, -2.5, 0.0, -0.0, 0.1, 3.4e38, float("inf"), float("nan"), 1e-45]
)
def test_scale_custom_fused_gives_its_kernels_bits(alpha: float) -> None:
    from ge.es.custom import ScaleCustom

    b = GraphBuilder("scale_chain")
    x, y = inputs(b, 2)
    t = ScaleCustom(ScaleCustom(x, y, alpha=alpha), None, alpha=alpha)
    b.set_graph_output(ScaleCustom(t, x, alpha=alpha), 0)
    arrays = [special(np.float32, N, 1), special(np.float32, N, 2)]
    fused = same_bits_fused_and_unfused(b.build_and_reset(), arrays)
    assert len(fused.report.regions) == 1


def test_float16_add_custom_fused_gives_its_kernels_bits() -> None:
    from ge.es.custom import AddCustom

    b = GraphBuilder("half_chain")
    x, y = inputs(b, 2, DataType.DT_FLOAT16)
    b.set_graph_output(AddCustom(AddCustom(AddCustom(x, y), y), x), 0)
    arrays = [special(np.float16, N, 3), special(np.float16, N, 4)]
    fused = same_bits_fused_and_unfused(b.build_and_reset(), arrays)
    assert len(fused.report.regions[0].nodes) == 3


def test_custom_and_math_ops_share_a_region() -> None:
    from ge.es.custom import AnnotatedAddCustom, ScaleCustom

    b = GraphBuilder("mixed")
    x, y = inputs(b, 2)
    t = m.Relu(AnnotatedAddCustom(m.Mul(x, y), y))
    b.set_graph_output(m.Sqrt(ScaleCustom(t, None, alpha=2.0)), 0)
    arrays = [special(np.float32, N, 5), special(np.float32, N, 6)]
    fused = same_bits_fused_and_unfused(b.build_and_reset(), arrays)
    assert [len(r.nodes) for r in fused.report.regions] == [5]


def test_an_op_without_an_expression_breaks_the_region() -> None:
    from ge.es.custom import AnnotatedAddCustom, SumNCustom

    b = GraphBuilder("no_expression")
    x, y = inputs(b, 2)
    t = AnnotatedAddCustom(AnnotatedAddCustom(x, y), y)
    s = SumNCustom([t, y])  # no elementwise: in its spec
    b.set_graph_output(AnnotatedAddCustom(AnnotatedAddCustom(s, x), y), 0)
    arrays = [special(np.float32, N, 7), special(np.float32, N, 8)]
    fused = same_bits_fused_and_unfused(b.build_and_reset(), arrays)
    regions = [r.nodes for r in fused.report.regions]
    assert len(regions) == 2 and all(len(r) == 2 for r in regions)
    assert not any(s.node.name in r for r in regions)


def test_control_edges_and_shapes_break_custom_ops_too() -> None:
    from ge.es import control_dependency_scope
    from ge.es.custom import AddCustom, AnnotatedAddCustom

    b = GraphBuilder("custom_breaks")
    x, y = inputs(b, 2)
    first = AnnotatedAddCustom(x, y)
    with control_dependency_scope([first]):
        held = AnnotatedAddCustom(first, y)
    small = b.create_input(2, name="small", data_type=DataType.DT_FLOAT, shape=[1])
    wide = AddCustom(AnnotatedAddCustom(held, y), small)  # x + [1]: not its shape
    b.set_graph_output(wide, 0)
    graph = b.build_and_reset()
    fused = compiled(graph)
    assert "control edges" in fused.report.breaks[held.node.name]
    assert "shape" in fused.report.breaks[wide.node.name]
    assert fused.report.regions == []


def test_a_shape_its_compile_refuses_is_refused_fused_too() -> None:
    from ge.es.custom import AnnotatedAddCustom

    b = GraphBuilder("refused")
    x = b.create_input(0, name="x", data_type=DataType.DT_FLOAT, shape=[1000])
    b.set_graph_output(AnnotatedAddCustom(AnnotatedAddCustom(x, x), x), 0)
    graph = b.build_and_reset()
    for fusion in (True, False):
        with pytest.raises(CompileError, match="multiple of 1024"):
            compiled(graph, fusion)


# An op registered here, computing with every part of the grammar. Its
# execute never runs: a region of two of its nodes is one fused kernel,
# checked against numpy computing the same float32 operations in order.
GRAMMAR = "-(abs(x) * k + sqrt(abs(x))) / 2 + flag if b is None else x - b * k"


def _register_grammar() -> None:
    """Registered in the test (other tests may empty the registries)."""
    if get_registered_op_impl("GrammarCustom") is not None:
        return

    @register_op(op_type="GrammarCustom", elementwise=GRAMMAR)
    def _grammar(
        x: TensorDesc, b: TensorDesc | None, *, k: int = 3, flag: bool = True
    ) -> TensorDesc:
        return x

    @register_op_impl(op_type="GrammarCustom")
    class _GrammarImpl:
        def execute(
            self, x: RtTensor, b: RtTensor | None, *, k: int, flag: bool
        ) -> None:
            raise NotImplementedError("fused only")


def test_every_part_of_the_grammar_computes_in_float32() -> None:
    _register_grammar()
    from ge.es._op_api import Attr, Input, OpDef, Output

    op = OpDef(
        "GrammarCustom",
        inputs=(Input("x", ("float32",)), Input("b", ("float32",), optional=True)),
        outputs=(Output("y", ("float32",)),),
        attrs=(Attr("k", "int", default=3), Attr("flag", "bool", default=True)),
    )
    b = GraphBuilder("grammar")
    x, y = inputs(b, 2)
    first = op.build(inputs={"x": x, "b": None}, attrs={"k": 5, "flag": True})
    b.set_graph_output(
        op.build(inputs={"x": first, "b": y}, attrs={"k": -2, "flag": True}), 0
    )
    arrays = [special(np.float32, N, 9), special(np.float32, N, 10)]
    fused = compiled(b.build_and_reset())
    assert [len(r.nodes) for r in fused.report.regions] == [2]
    a, c = arrays
    f = np.float32
    with np.errstate(all="ignore"):
        first = -(np.abs(a) * f(5) + np.sqrt(np.abs(a))) / f(2) + f(1)
        expected = first - c * f(-2)
    (got,) = run(fused, arrays)
    expected = expected.astype(np.float32)
    # Bit for bit but for the sign of a NaN the arithmetic makes (x86's
    # default NaN is negative; numpy's loops may give either).
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan)
    assert got[~nan].tobytes() == expected[~nan].tobytes()


def test_register_op_refuses_a_bad_expression() -> None:
    def proto(x: TensorDesc, *, mode: str = "a") -> TensorDesc:
        return x

    for text, message in [
        ("x ** 2", "not allowed"),
        ("erf(x)", "not one of"),
        ("x * scale", "not an input or attr"),
        ("x * mode", "type str"),
    ]:
        with pytest.raises(ValueError, match=message):
            register_op(op_type="BadExpressionCustom", elementwise=text)(proto)
