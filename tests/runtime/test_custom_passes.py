"""Team-written passes (``ge.passes``; docs/compiler.md, "Writing passes"):
patterns written with ge.es builders are found in the graph being compiled
and replaced, at compile time, in the stages GE names; the rewritten graph
computes what the original does (against numpy and against the graph
compiled with the pass switched off), the caller's graph is unchanged, and
what the passes did is in the report, the dumps and fusion_result.json."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from math_harness import math_session

import ge.es.math as m
from ge.engine.compiler import compile_graph
from ge.engine.errors import CompileError
from ge.es import GraphBuilder, TensorHolder
from ge.graph import DataType, Graph, Node, Tensor
from ge.passes import (
    DecomposePass,
    FusionBasePass,
    MatchResult,
    PassContext,
    PassStage,
    PatternFusionPass,
    PatternMatcherConfigBuilder,
    SubgraphBoundary,
    SubgraphInput,
    SubgraphOutput,
    SubgraphRewriter,
    can_fuse,
    clear_registered_passes,
    create_pattern,
    create_replacement,
    get_registered_pass_dicts,
    infer_shape,
    pattern,
    register_decompose_pass,
    register_fusion_pass,
)

F = DataType.DT_FLOAT
RNG = np.random.default_rng(26)
X = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((3, 5)).astype(np.float32)
C = RNG.standard_normal(5).astype(np.float32)


@pytest.fixture(scope="module", autouse=True)
def _library() -> Iterator[None]:
    with math_session():
        yield


@pytest.fixture(autouse=True)
def _no_passes_left() -> Iterator[None]:
    clear_registered_passes()
    yield
    clear_registered_passes()


def switch_file(tmp_path: Path, **entries: str) -> dict[str, str]:
    path = tmp_path / "switch.json"
    path.write_text(json.dumps({"Switch": {"GraphFusion": entries}}))
    return {"ge.fusionSwitchFile": str(path)}


def run(graph: Graph, arrays: list[np.ndarray], **options: str) -> list[np.ndarray]:
    compiled = compile_graph(graph, dict(options))
    return [t.numpy() for t in compiled.run([Tensor.from_numpy(a) for a in arrays])]


def mlp_graph() -> Graph:
    b = GraphBuilder("mlp")
    x = b.create_input(0, shape=[4, 3])
    w = b.create_input(1, shape=[3, 5])
    c = b.create_input(2, shape=[5])
    y = m.Relu(m.MatMul(x, w) + c)
    return b.build_and_reset([y])


def register_matmul_add() -> type:
    @register_fusion_pass(name="FuseMatMulAdd", stage=PassStage.BEFORE_INFER_SHAPE)
    class FuseMatMulAdd(PatternFusionPass):
        @pattern
        def matmul_add(self, inputs: Any) -> TensorHolder:
            a, b, c = inputs[:3]
            return m.MatMul(a, b) + c

        def replacement(self, inputs: Any) -> TensorHolder:
            a, b, c = inputs[:3]
            return m.MatMul(a, b, c)

    return FuseMatMulAdd


def test_matmul_add_becomes_matmul_with_bias(tmp_path: Path) -> None:
    register_matmul_add()
    graph = mlp_graph()
    before = [(n.name, n.type) for n in graph.nodes]
    compiled = compile_graph(graph)
    assert compiled.report.passes == {"FuseMatMulAdd": (1, 1)}
    producers = {t.producer for t in compiled.tensors}
    assert not any(name.startswith("Add") for name in producers), producers
    (y,) = compiled.run([Tensor.from_numpy(a) for a in (X, W, C)])
    expected = np.maximum(X @ W + C, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)
    off = run(graph, [X, W, C], **switch_file(tmp_path, FuseMatMulAdd="off"))[0]
    np.testing.assert_allclose(y.numpy(), off, rtol=1e-6, atol=1e-6)
    assert [(n.name, n.type) for n in graph.nodes] == before  # caller's graph


def test_switch_file_and_all_turn_a_pass_off(tmp_path: Path) -> None:
    register_matmul_add()
    off = compile_graph(mlp_graph(), switch_file(tmp_path, ALL="off"))
    assert off.report.passes == {}
    on = compile_graph(
        mlp_graph(), switch_file(tmp_path, ALL="off", FuseMatMulAdd="on")
    )
    assert on.report.passes == {"FuseMatMulAdd": (1, 1)}


def test_meet_requirements_refuses_and_counts_the_match() -> None:
    seen: list[str] = []

    @register_fusion_pass(name="Never", stage=PassStage.BEFORE_INFER_SHAPE)
    class Never(PatternFusionPass):
        @pattern
        def p(self, inputs: Any) -> TensorHolder:
            return m.MatMul(inputs[0], inputs[1]) + inputs[2]

        def meet_requirements(self, match_result: MatchResult) -> bool:
            seen.append(match_result.get_pattern_graph_name())
            seen.extend(n.type for n in match_result.get_matched_nodes())
            cap = match_result.get_captured_tensor(3)
            seen.append(cap.node.type)
            return False

        def replacement(self, inputs: Any) -> TensorHolder:
            raise AssertionError("not called")

    compiled = compile_graph(mlp_graph())
    assert compiled.report.passes == {"Never": (1, 0)}
    assert seen == ["Never_p_pattern", "MatMul", "Add", "Add"]


def test_intermediate_read_outside_is_not_matched() -> None:
    register_matmul_add()
    b = GraphBuilder("shared")
    x, w, c = (b.create_input(i) for i in range(3))
    mm = m.MatMul(x, w)
    y = mm + c
    b.set_graph_output(y, 0)
    b.set_graph_output(m.Relu(mm), 1)
    graph = b.build_and_reset()
    for i, meta in enumerate([(4, 3), (3, 5), (5,)]):
        graph.nodes[i].outputs[0].shape = meta
    compiled = compile_graph(graph)
    assert compiled.report.passes == {"FuseMatMulAdd": (0, 0)}
    y1, y2 = [
        t.numpy() for t in compiled.run([Tensor.from_numpy(a) for a in (X, W, C)])
    ]
    np.testing.assert_allclose(y1, X @ W + C, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(y2, np.maximum(X @ W, 0), rtol=1e-6, atol=1e-6)


def add_zero_graph() -> Graph:
    b = GraphBuilder("add_zero")
    x = b.create_input(0, shape=[2, 3])
    y = m.Exp(x + 0.0) + 1.0
    return b.build_and_reset([y])


def test_add_zero_removed_with_const_value_match() -> None:
    @register_fusion_pass(name="AddZero", stage=PassStage.BEFORE_INFER_SHAPE)
    class AddZero(PatternFusionPass):
        def __init__(self) -> None:
            super().__init__(
                PatternMatcherConfigBuilder().enable_const_value_match().build()
            )

        @pattern
        def add_zero(self, inputs: Any) -> TensorHolder:
            return inputs[0] + 0.0

        def replacement(self, inputs: Any) -> TensorHolder:
            return inputs[0]

    x = X[:2].copy()
    compiled = compile_graph(add_zero_graph())
    assert compiled.report.passes == {"AddZero": (1, 1)}
    (y,) = compiled.run([Tensor.from_numpy(x)])
    np.testing.assert_allclose(y.numpy(), np.exp(x) + 1.0, rtol=1e-6)


def test_legacy_patterns_capture_and_graph_replacement() -> None:
    attrs: list[Any] = []

    @register_fusion_pass(name="Legacy", stage=PassStage.AFTER_INFER_SHAPE)
    class Legacy(PatternFusionPass):
        def patterns(self) -> list[Any]:
            b = GraphBuilder("pattern")
            a, w, c = b.create_inputs(3)
            mm = m.MatMul(a, w)
            add = m.Add(mm, c)
            pat = create_pattern(b.build_and_reset([add]))
            return [pat.capture_tensor(mm).capture_tensor(add)]

        def meet_requirements(
            self, match_result: MatchResult, context: PassContext
        ) -> bool:
            mm = match_result.get_captured_tensor(0).node
            attrs.append(mm.outputs[0].shape)  # inferred: AfterInferShape
            attrs.append(context.get_pass_name())
            return True

        def replacement(self, match_result: MatchResult) -> Graph:
            b = GraphBuilder("replacement")
            a, w, c = b.create_inputs(3)
            return create_replacement(b.build_and_reset([m.MatMul(a, w, c)]))

    (y,) = run(mlp_graph(), [X, W, C])
    np.testing.assert_allclose(y, np.maximum(X @ W + C, 0), rtol=1e-6, atol=1e-6)
    assert attrs == [(4, 5), "Legacy"]


def test_decompose_pass_rewrites_every_node_of_its_type() -> None:
    @register_decompose_pass(
        name="SigmoidByExp", stage=PassStage.AFTER_INFER_SHAPE, op_types=["Sigmoid"]
    )
    class SigmoidByExp(DecomposePass):
        def replacement(self, node: Node) -> Graph:
            b = GraphBuilder("replacement")
            x = b.create_input(0)
            y = 1.0 / (m.Exp(m.Neg(x)) + 1.0)
            graph = b.build_and_reset([y])
            infer_shape(graph, node)
            assert graph.nodes[-1].outputs[0].shape == (2, 3)
            return graph

    b = GraphBuilder("sig")
    x = b.create_input(0, shape=[2, 3])
    graph = b.build_and_reset([m.Sigmoid(m.Sigmoid(x))])
    x_value = X[:2].copy()
    compiled = compile_graph(graph)
    assert compiled.report.passes == {"SigmoidByExp": (2, 2)}
    (y,) = compiled.run([Tensor.from_numpy(x_value)])

    def sigmoid(v: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-v))

    np.testing.assert_allclose(y.numpy(), sigmoid(sigmoid(x_value)), rtol=1e-6)


def test_fusion_base_pass_with_subgraph_rewriter() -> None:
    """A FusionBasePass cuts a subgraph out by its boundary: Neg(Neg(y))
    becomes Relu(y), which is y where y = Abs(x) >= 0."""

    @register_fusion_pass(
        name="DropDoubleNeg", stage=PassStage.AFTER_BUILTIN_FUSION_PASS
    )
    class DropDoubleNeg(FusionBasePass):
        def run(self, graph: Graph, context: PassContext) -> bool:
            for node in list(graph.nodes):
                src = (
                    node.inputs[0].node
                    if node.type == "Neg" and node.inputs[0]
                    else None
                )
                if src is None or src.type != "Neg" or not can_fuse([src, node]).ok:
                    continue
                boundary = SubgraphBoundary()
                boundary.add_input(0, SubgraphInput([(src, 0)]))
                boundary.add_output(0, SubgraphOutput(node, 0))
                b = GraphBuilder("replacement")
                x = b.create_input(0)
                SubgraphRewriter.replace(
                    boundary, b.build_and_reset([m.Relu(x)]), context=context
                )
            return True

    b = GraphBuilder("neg")
    x = b.create_input(0, shape=[2, 3])
    graph = b.build_and_reset([m.Neg(m.Neg(m.Abs(x))) * 2.0])
    compiled = compile_graph(graph)
    assert compiled.report.passes == {"DropDoubleNeg": (1, 1)}
    x_value = X[:2].copy()
    (y,) = compiled.run([Tensor.from_numpy(x_value)])
    np.testing.assert_allclose(y.numpy(), np.abs(x_value) * 2.0, rtol=1e-6)


def test_a_failing_pass_fails_the_compile_naming_it() -> None:
    @register_fusion_pass(name="Broken", stage=PassStage.BEFORE_INFER_SHAPE)
    class Broken(FusionBasePass):
        def run(self, graph: Graph, context: PassContext) -> bool:
            context.set_error_message("invariant violated")
            return False

    with pytest.raises(CompileError, match="Broken.*invariant violated"):
        compile_graph(mlp_graph())


def test_registry_refuses_duplicates_and_run_overrides() -> None:
    register_matmul_add()
    with pytest.raises(ValueError, match="already exists"):
        register_matmul_add()
    assert get_registered_pass_dicts()[0]["stage"] == "BeforeInferShape"
    with pytest.raises(TypeError, match="run"):

        class Bad(PatternFusionPass):
            def run(self, graph: Graph, context: PassContext) -> bool:
                return True


def test_fusion_result_json_and_dumps(tmp_path: Path, monkeypatch: Any) -> None:
    register_matmul_add()
    monkeypatch.setenv("ASCEND_WORK_PATH", str(tmp_path))
    monkeypatch.setenv("DUMP_GE_GRAPH", "1")
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path / "dump"))
    compile_graph(mlp_graph(), {"ge.exportCompileStat": "2"})
    result = json.loads(
        (tmp_path / "FE" / str(os.getpid()) / "fusion_result.json").read_text()
    )
    (entry,) = [v for k, v in result.items() if k.startswith("session_and_graph_id_")][
        -1:
    ]
    assert entry["graph_fusion"]["FuseMatMulAdd"] == {
        "match_times": "1",
        "effect_times": "1",
    }
    dumps = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert any(
        name.endswith("_00_run_custom_pass_BeforeInferShape.txt") for name in dumps
    )


def test_passes_load_from_ascend_ge_py_pass_path(
    tmp_path: Path, monkeypatch: Any
) -> None:
    (tmp_path / "my_pass.py").write_text(
        "import ge.es.math as m\n"
        "from ge.passes import PassStage, PatternFusionPass, pattern, register_fusion_pass\n"
        "@register_fusion_pass(name='FromFile', stage=PassStage.BEFORE_INFER_SHAPE)\n"
        "class FromFile(PatternFusionPass):\n"
        "    @pattern\n"
        "    def p(self, inputs):\n"
        "        return m.Relu(m.Relu(inputs[0]))\n"
        "    def replacement(self, inputs):\n"
        "        return m.Relu(inputs[0])\n"
    )
    monkeypatch.setenv("ASCEND_GE_PY_PASS_PATH", str(tmp_path))
    b = GraphBuilder("relu2")
    x = b.create_input(0, shape=[2, 3])
    compiled = compile_graph(b.build_and_reset([m.Relu(m.Relu(x))]))
    assert compiled.report.passes == {"FromFile": (1, 1)}
    (y,) = compiled.run([Tensor.from_numpy(X[:2].copy())])
    np.testing.assert_array_equal(y.numpy(), np.maximum(X[:2], 0))


def test_an_input_used_twice_binds_one_tensor() -> None:
    """x * x matches Mul(inputs[0], inputs[0]); x * y does not."""

    @register_fusion_pass(name="Square", stage=PassStage.BEFORE_INFER_SHAPE)
    class Square(PatternFusionPass):
        @pattern
        def square(self, inputs: Any) -> TensorHolder:
            return inputs[0] * inputs[0]

        def replacement(self, inputs: Any) -> TensorHolder:
            return m.Pow(inputs[0], 2.0)

    b = GraphBuilder("sq")
    x = b.create_input(0, shape=[2, 3])
    y = b.create_input(1, shape=[2, 3])
    graph = b.build_and_reset([x * x + x * y])
    compiled = compile_graph(graph)
    assert compiled.report.passes == {"Square": (1, 1)}
    a, c = X[:2].copy(), X[2:].copy()
    (out,) = compiled.run([Tensor.from_numpy(a), Tensor.from_numpy(c)])
    np.testing.assert_allclose(out.numpy(), a**2 + a * c, rtol=1e-6)


def test_ir_attr_match_compares_the_attrs_the_pattern_sets() -> None:
    @register_fusion_pass(name="TransposedOnly", stage=PassStage.BEFORE_INFER_SHAPE)
    class TransposedOnly(PatternFusionPass):
        def __init__(self) -> None:
            super().__init__(
                PatternMatcherConfigBuilder().enable_ir_attr_match().build()
            )

        @pattern
        def p(self, inputs: Any) -> TensorHolder:
            return m.MatMul(inputs[0], inputs[1], transpose_x2=True)

        def replacement(self, inputs: Any) -> TensorHolder:
            return m.MatMul(inputs[0], inputs[1], transpose_x2=True)

    b = GraphBuilder("attrs")
    x, w = b.create_input(0, shape=[4, 3]), b.create_input(1, shape=[3, 5])
    graph = b.build_and_reset([m.MatMul(x, w)])
    assert compile_graph(graph).report.passes == {"TransposedOnly": (0, 0)}


def test_graph_output_intermediate_is_not_cut_and_context_options() -> None:
    seen: list[str] = []

    @register_fusion_pass(name="Opt", stage=PassStage.AFTER_ORIGIN_GRAPH_OPTIMIZE)
    class Opt(PatternFusionPass):
        @pattern
        def p(self, inputs: Any) -> TensorHolder:
            return m.Relu(m.Relu(inputs[0]))

        def meet_requirements(
            self, match_result: MatchResult, context: PassContext
        ) -> bool:
            seen.append(context.get_option_value("my.option"))
            with pytest.raises(RuntimeError, match="not set"):
                context.get_option_value("no.such.option")
            return True

        def replacement(self, inputs: Any, context: PassContext) -> TensorHolder:
            seen.append(context.get_pass_name())
            return m.Relu(inputs[0])

    b = GraphBuilder("outs")
    x = b.create_input(0, shape=[2, 3])
    r1 = m.Relu(x)
    b.set_graph_output(m.Relu(r1), 0)
    b.set_graph_output(m.Relu(m.Relu(m.Abs(x))), 1)
    b.set_graph_output(r1, 2)
    graph = b.build_and_reset()
    compiled = compile_graph(graph, {"my.option": "yes"})
    assert compiled.report.passes == {"Opt": (1, 1)}
    assert seen == ["yes", "Opt"]
    x_value = X[:2].copy()
    outs = [t.numpy() for t in compiled.run([Tensor.from_numpy(x_value)])]
    relu = np.maximum(x_value, 0)
    for got, want in zip(outs, [relu, np.abs(x_value), relu]):
        np.testing.assert_array_equal(got, want)


def test_can_fuse_finds_a_cycle_through_an_outside_node() -> None:
    b = GraphBuilder("cyc")
    x = b.create_input(0, shape=[2])
    a = m.Abs(x)
    outside = m.Neg(a)
    c = m.Add(a, outside)
    graph = b.build_and_reset([c])
    by_name = {n.name: n for n in graph.nodes}
    inner, add = by_name[a.name], by_name[c.name]
    check = can_fuse([inner, add])
    assert not check.ok and "cycle" in check.reason
    assert can_fuse([inner, by_name[outside.name], add]).ok
    assert can_fuse([inner, by_name[x.name]]).ok is not False


def test_a_replacement_of_the_wrong_arity_fails_the_compile() -> None:
    @register_fusion_pass(name="TwoOutputs", stage=PassStage.BEFORE_INFER_SHAPE)
    class TwoOutputs(PatternFusionPass):
        @pattern
        def p(self, inputs: Any) -> TensorHolder:
            return m.Abs(inputs[0])

        def replacement(self, inputs: Any) -> list[TensorHolder]:
            return [m.Abs(inputs[0]), m.Neg(inputs[0])]

    b = GraphBuilder("bad")
    x = b.create_input(0, shape=[2])
    with pytest.raises(CompileError, match="TwoOutputs.*2 output"):
        compile_graph(b.build_and_reset([m.Abs(x)]))


def test_infer_shape_from_a_match_result() -> None:
    shapes: list[Any] = []

    @register_fusion_pass(name="Shapes", stage=PassStage.AFTER_INFER_SHAPE)
    class Shapes(PatternFusionPass):
        @pattern
        def p(self, inputs: Any) -> TensorHolder:
            return m.MatMul(inputs[0], inputs[1]) + inputs[2]

        def replacement(self, match_result: MatchResult) -> Graph:
            b = GraphBuilder("replacement")
            a, w, c = b.create_inputs(3)
            graph = b.build_and_reset([m.MatMul(a, w, c)])
            infer_shape(graph, match_result)
            shapes.append([n.outputs[0].shape for n in graph.nodes])
            return graph

    (y,) = run(mlp_graph(), [X, W, C])
    np.testing.assert_allclose(y, np.maximum(X @ W + C, 0), rtol=1e-6, atol=1e-6)
    assert shapes == [[(4, 3), (3, 5), (5,), (4, 5)]]


def test_stages_run_in_order_and_see_the_graph_of_their_stage() -> None:
    """BeforeInferShape sees no inferred shapes, AfterInferShape does;
    AfterBuiltinFusionPass and AfterOriginGraphOptimize run after constant
    folding (the constant Exp is a Const by then)."""
    seen: list[tuple[str, Any, list[str]]] = []

    def recorder(stage: PassStage) -> None:
        @register_fusion_pass(name=f"Look{stage.value}", stage=stage)
        class Look(FusionBasePass):
            def run(self, graph: Graph, context: PassContext) -> bool:
                mm = next(n for n in graph.nodes if n.type == "MatMul")
                kinds = sorted({n.type for n in graph.nodes})
                seen.append((stage.value, mm.outputs[0].shape, kinds))
                return True

    for stage in reversed(list(PassStage)):  # registration order is not stage order
        recorder(stage)
    b = GraphBuilder("stages")
    x = b.create_input(0, shape=[4, 3])
    w = m.Exp(b.create_const(Tensor(W)))
    y = m.MatMul(x, w)
    compiled = compile_graph(b.build_and_reset([y]))
    assert [s for s, _, _ in seen] == [s.value for s in PassStage]
    assert seen[0][1] != (4, 5) and seen[1][1] == (4, 5)
    assert "Exp" in seen[1][2] and "Exp" not in seen[2][2] and "Exp" not in seen[3][2]
    (out,) = compiled.run([Tensor.from_numpy(X)])
    np.testing.assert_allclose(out.numpy(), X @ np.exp(W), rtol=1e-5)
    assert compiled.report.passes == {
        f"Look{s.value}": (0, 0) for s in reversed(PassStage)
    }


def test_node_queries_ge_passes_use() -> None:
    graph = mlp_graph()
    add = next(n for n in graph.nodes if n.type == "Add")
    mm = next(n for n in graph.nodes if n.type == "MatMul")
    assert add.get_inputs_size() == 2 and mm.get_inputs_size() == 3  # bias slot
    assert add.get_outputs_size() == 1
    assert add.get_in_data_nodes_and_port_indexes(0) == (mm, 0)
    with pytest.raises(RuntimeError, match="not connected"):
        mm.get_in_data_nodes_and_port_indexes(2)
    assert not add.has_attr("value") and add.get_in_control_nodes() == []
