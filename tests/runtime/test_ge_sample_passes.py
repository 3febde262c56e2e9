"""Every pass form GE's Python fusion-pass samples use, written here and run
without GE's mirror (tests/runtime/test_ge_fusion_samples.py runs the samples
themselves when the mirror is there; docs/compiler.md, "GE's samples"):

- a FusionBasePass that walks consumers (get_out_data_nodes_and_port_indexes)
  and cuts a subgraph out by its boundary, its replacement built from
  create_inputs of the default dtype;
- a FusionBasePass that edits edges and attrs itself (remove_edge,
  add_data_edge, remove_node, set_attr) with can_fuse / report_fuse;
- a DecomposePass that reads IR-default attrs, sets tensor descs on the
  replacement's nodes (_get_node_snapshot, update_input_desc) and infers;
- PatternFusionPasses that read descs of captured tensors and Const values.

Each rewritten graph computes what the graph without the pass computes. The
Node/TensorDesc queries themselves are checked below them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from math_harness import math_session

import ge.es.math as m
from ge.custom_op import bootstrap
from ge.engine.compiler import compile_graph
from ge.engine.errors import CompileError
from ge.es import GraphBuilder, TensorHolder
from ge.graph import DataType, Format, Graph, Node, Shape, Tensor, TensorDesc
from ge.graph.graph import AttrNotFoundError
from ge.passes import (
    DecomposePass,
    FusionBasePass,
    MatchResult,
    PassContext,
    PassStage,
    PatternFusionPass,
    SubgraphBoundary,
    SubgraphInput,
    SubgraphOutput,
    SubgraphRewriter,
    can_fuse,
    clear_registered_passes,
    create_pattern,
    infer_shape,
    pattern,
    register_decompose_pass,
    register_fusion_pass,
    report_fuse,
)

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(2026)


@pytest.fixture(scope="module", autouse=True)
def _library() -> Iterator[None]:
    with math_session():
        bootstrap.load_custom_op_plugins(
            str(ROOT / "examples" / "add_custom" / "add_custom_op.py")
        )
        yield


@pytest.fixture(autouse=True)
def _no_passes_left() -> Iterator[None]:
    clear_registered_passes()
    yield
    clear_registered_passes()


def normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def with_and_without(
    make: Any, arrays: list[np.ndarray], register: Any
) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, tuple[int, int]]]:
    """The graph's outputs without the pass, with it, and the pass report."""
    plain = compile_graph(make())
    expected = [t.numpy() for t in plain.run([Tensor.from_numpy(a) for a in arrays])]
    register()
    compiled = compile_graph(make())
    got = [t.numpy() for t in compiled.run([Tensor.from_numpy(a) for a in arrays])]
    return expected, got, dict(compiled.report.passes)


def close(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


# --- a FusionBasePass walking consumers, cutting by a boundary ----------------------


def test_relu_after_concat_moves_before_it() -> None:
    def make() -> Graph:
        b = GraphBuilder("relu_concat")
        x = b.create_input(0, shape=[2, 3])
        y = b.create_input(1, shape=[2, 4])
        return b.build_and_reset([m.Relu(m.ConcatV2([x, y], 1, N=2))])

    def register() -> None:
        @register_fusion_pass(name="ReluFirst", stage=PassStage.BEFORE_INFER_SHAPE)
        class ReluFirst(FusionBasePass):
            def run(self, graph: Graph, context: PassContext) -> bool:
                for concat in graph.get_direct_nodes():
                    if concat.type != "ConcatV2":
                        continue
                    readers = concat.get_out_data_nodes_and_port_indexes(0)
                    if len(readers) != 1 or readers[0][0].type != "Relu":
                        continue
                    n = concat.get_inputs_size()
                    b = GraphBuilder("replacement")
                    ins = b.create_inputs(n)  # all DT_FLOAT, concat_dim too
                    out = m.ConcatV2([m.Relu(t) for t in ins[:-1]], ins[-1], N=n - 1)
                    boundary = SubgraphBoundary()
                    for i in range(n):
                        cut = SubgraphInput()
                        cut.add_input(concat, i)
                        boundary.add_input(i, cut)
                    boundary.add_output(0, SubgraphOutput(readers[0][0], 0))
                    SubgraphRewriter.replace(
                        boundary, b.build_and_reset([out]), context=context
                    )
                return True

    arrays = [normal(2, 3), normal(2, 4)]
    expected, got, passes = with_and_without(make, arrays, register)
    assert passes == {"ReluFirst": (1, 1)}
    close(got, expected)
    close(got, [np.maximum(np.concatenate(arrays, 1), 0)])


# --- a FusionBasePass editing edges and attrs -----------------------------------------


def conv_transpose_graph() -> Graph:
    b = GraphBuilder("conv_format")
    nchw = Format.FORMAT_NCHW
    x = b.create_input(0, shape=[2, 4, 7, 7], format=nchw)
    f = b.create_input(1, shape=[4, 4, 3, 3], format=nchw)
    y = m.Conv2D(x, f, strides=[1, 1, 2, 2], pads=[0, 0, 0, 0], data_format="NCHW")
    y = m.Transpose(m.Transpose(y, [0, 2, 3, 1]) + 1.0, [0, 3, 1, 2])
    # an Identity reads the last Transpose where GE has its NetOutput node
    return b.build_and_reset([m.Identity(y)])


def register_drop_transposes() -> None:
    @register_fusion_pass(name="DropTransposes", stage=PassStage.BEFORE_INFER_SHAPE)
    class DropTransposes(FusionBasePass):
        def run(self, graph: Graph, context: PassContext) -> bool:
            for conv in graph.get_direct_nodes():
                if conv.type != "Conv2D" or conv.get_attr("data_format") != "NCHW":
                    continue
                conv.set_attr("data_format", "NHWC")  # x's format decides
                todo = [n for n, _ in conv.get_out_data_nodes_and_port_indexes(0)]
                while todo:
                    node = todo.pop(0)
                    todo += [n for n, _ in node.get_out_data_nodes_and_port_indexes(0)]
                    if node.type == "Transpose":
                        drop(graph, node, context)
            return True

    def drop(graph: Graph, node: Node, context: PassContext) -> None:
        assert can_fuse([node]).ok
        src, src_out = node.get_in_data_nodes_and_port_indexes(0)
        perm, perm_out = node.get_in_data_nodes_and_port_indexes(1)
        assert perm.type == "Const"
        readers = node.get_out_data_nodes_and_port_indexes(0)
        graph.remove_edge(src, src_out, node, 0)
        graph.remove_edge(perm, perm_out, node, 1)
        for reader, slot in readers:
            graph.remove_edge(node, 0, reader, slot)
            graph.add_data_edge(src, src_out, reader, slot)
        report_fuse([node], [], context)
        graph.remove_node(perm)
        graph.remove_node(node)


def test_conv_format_pass_drops_the_transpose_pair() -> None:
    """Transpose(Transpose(conv) + 1) back is conv + 1: the pass removes both
    Transposes, relinking their readers; the conv, now data_format NHWC,
    still reads its NCHW-format x as NCHW."""
    arrays = [normal(2, 4, 7, 7), normal(4, 4, 3, 3)]
    expected, got, passes = with_and_without(
        conv_transpose_graph, arrays, register_drop_transposes
    )
    assert passes == {"DropTransposes": (2, 2)}  # one report_fuse per Transpose
    close(got, expected)


# --- a DecomposePass setting descs on its replacement ----------------------------------


def test_grouped_conv_decomposes_into_split_convs_and_concat() -> None:
    seen: dict[str, Any] = {}

    def make() -> Graph:
        b = GraphBuilder("grouped")
        x = b.create_input(0, shape=[1, 6, 5, 5])
        f = b.create_input(1, shape=[6, 2, 3, 3])
        y = m.Conv2D(
            x, f, strides=[1, 1, 1, 1], pads=[1, 1, 1, 1], groups=3, data_format="NCHW"
        )
        return b.build_and_reset([y])

    def register() -> None:
        @register_decompose_pass(
            name="SplitGroups", stage=PassStage.AFTER_INFER_SHAPE, op_types=["Conv2D"]
        )
        class SplitGroups(DecomposePass):
            def meet_requirements(self, node: Node) -> bool:
                return bool(node.get_attr("groups") != 1)

            def replacement(self, node: Node) -> Graph:
                groups = node.get_attr("groups")
                seen["dilations"] = list(node.get_attr("dilations"))  # IR default
                b = GraphBuilder("replacement")
                x, f = b.create_inputs(2)
                outs: list[TensorHolder] = []
                for xs, fs in zip(
                    m.Split(1, x, groups, num_split=groups),
                    m.Split(0, f, groups, num_split=groups),
                ):
                    y = m.Conv2D(
                        xs,
                        fs,
                        strides=node.get_attr("strides"),
                        pads=node.get_attr("pads"),
                        dilations=node.get_attr("dilations"),
                        data_format="NCHW",
                    )
                    desc = TensorDesc([], Format.FORMAT_NCHW, DataType.DT_FLOAT)
                    conv = y._get_node_snapshot()
                    conv.update_input_desc(0, desc)
                    conv.update_output_desc(0, desc)
                    seen["input_format"] = conv.get_input_desc(0).format
                    outs.append(y)
                graph = b.build_and_reset([m.Concat(1, outs, N=groups)])
                infer_shape(graph, node)
                seen["shape"] = graph.nodes[-1].get_output_desc(0).shape
                return graph

    arrays = [normal(1, 6, 5, 5), normal(6, 2, 3, 3)]
    expected, got, passes = with_and_without(make, arrays, register)
    assert passes == {"SplitGroups": (1, 1)}
    close(got, expected)
    assert seen == {
        "dilations": [1, 1, 1, 1],
        "input_format": Format.FORMAT_NCHW,
        "shape": [1, 6, 5, 5],
    }


# --- PatternFusionPasses reading descs and Const values -----------------------------------


def test_add_custom_of_a_moved_zero_is_dropped() -> None:
    from ge.es.custom import AddCustom

    def make() -> Graph:
        b = GraphBuilder("add_zero")
        x = b.create_input(0, shape=[2, 8])
        y = b.create_input(1, shape=[2, 8])
        zero = b.create_const(Tensor(np.zeros((2, 8), np.float32)))
        return b.build_and_reset(
            [AddCustom(AddCustom(x, m.TensorMove(m.Identity(zero))), y)]
        )

    values: list[float] = []

    def register() -> None:
        @register_fusion_pass(name="AddZero", stage=PassStage.BEFORE_INFER_SHAPE)
        class AddZero(PatternFusionPass):
            @pattern
            def direct(self, inputs: Any) -> TensorHolder:
                x, y = inputs[:2]
                zero = m.Identity(x.get_owner_builder().create_const_float(0.0))
                return AddCustom(AddCustom(x, zero), y)

            @pattern
            def moved(self, inputs: Any) -> TensorHolder:
                x, y = inputs[:2]
                zero = x.get_owner_builder().create_const_float(0.0)
                return AddCustom(AddCustom(x, m.TensorMove(m.Identity(zero))), y)

            def meet_requirements(self, match: MatchResult) -> bool:
                for node in match.get_matched_nodes():
                    if node.type == "Const":
                        values.append(
                            float(np.asarray(node.get_attr("value").data).flat[0])
                        )
                return all(v == 0.0 for v in values)

            def replacement(self, inputs: Any) -> TensorHolder:
                return AddCustom(inputs[0], inputs[1])

    arrays = [normal(2, 8), normal(2, 8)]
    expected, got, passes = with_and_without(make, arrays, register)
    assert passes == {"AddZero": (1, 1)} and values == [0.0]
    close(got, expected)


def test_captured_tensor_descs_decide_a_match() -> None:
    dtypes: list[DataType] = []

    def make() -> Graph:
        b = GraphBuilder("mm_add")
        x = b.create_input(0, shape=[4, 3])
        w = b.create_input(1, shape=[3, 5])
        c = b.create_input(2, shape=[4, 5])
        return b.build_and_reset([m.MatMul(x, w) + c])

    def register() -> None:
        @register_fusion_pass(name="MatMulBias", stage=PassStage.AFTER_INFER_SHAPE)
        class MatMulBias(PatternFusionPass):
            def patterns(self) -> list[Any]:
                b = GraphBuilder("p")
                a, w, c = b.create_inputs(3)
                mm = m.MatMul(a, w)
                add = mm + c
                found = create_pattern(b.build_and_reset([add]))
                return [found.capture_tensor(mm).capture_tensor(add)]

            def meet_requirements(self, match: MatchResult) -> bool:
                add = match.get_captured_tensor(1).node
                dtypes.extend(add.get_input_desc(i).get_data_type() for i in (0, 1))
                return add.get_input_desc(0).shape == [4, 5]

            def replacement(self, match: MatchResult) -> Graph:
                mm = match.get_captured_tensor(0).node
                assert mm.get_attr("transpose_x1") is False  # an IR default
                b = GraphBuilder("r")
                a, w, c = b.create_inputs(3)
                return b.build_and_reset([m.MatMul(a, w) + c])

    arrays = [normal(4, 3), normal(3, 5), normal(4, 5)]
    expected, got, passes = with_and_without(make, arrays, register)
    assert passes["MatMulBias"][1] == 1
    assert dtypes[:2] == [DataType.DT_FLOAT, DataType.DT_FLOAT]
    close(got, expected)


# --- the Node and TensorDesc queries --------------------------------------------------------


def small_graph() -> Graph:
    b = GraphBuilder("q")
    x = b.create_input(0, shape=[2, 3])
    r = m.Relu(x)
    return b.build_and_reset([m.Neg(r), m.Exp(r) + r])


def test_consumers_in_node_order_then_slot() -> None:
    graph = small_graph()
    relu = graph.find_node_by_name("Relu_0")
    assert relu is not None
    readers = [
        (n.type, slot) for n, slot in relu.get_out_data_nodes_and_port_indexes(0)
    ]
    assert readers == [("Neg", 0), ("Exp", 0), ("Add", 1)]
    data, index = relu.get_in_data_nodes_and_port_indexes(0)
    assert index == 0 and [
        n.type for n, _ in data.get_out_data_nodes_and_port_indexes(0)
    ] == ["Relu"]
    assert relu.get_out_control_nodes() == []


def test_consumers_of_a_node_without_its_graph_are_refused() -> None:
    graph = small_graph()
    relu = graph.nodes[1]  # the field, not a graph query: no graph known
    with pytest.raises(RuntimeError, match="was not handed out by a graph"):
        relu.get_out_data_nodes_and_port_indexes(0)
    (neg,) = [n for n in graph.get_direct_nodes() if n.type == "Neg"]
    graph.remove_node(neg)
    with pytest.raises(RuntimeError, match="no longer in graph 'q'"):
        neg.get_out_data_nodes_and_port_indexes(0)
    relu = graph.get_direct_nodes()[1]
    with pytest.raises(RuntimeError, match="output 3 does not exist"):
        relu.get_out_data_nodes_and_port_indexes(3)
    with pytest.raises(TypeError, match="output index must be an int"):
        relu.get_out_data_nodes_and_port_indexes("0")  # type: ignore[arg-type]


def test_descs_read_and_written() -> None:
    graph = small_graph()
    relu = graph.get_direct_nodes()[1]
    desc = relu.get_input_desc(0)
    assert (desc.shape, desc.format, desc.data_type) == (
        [2, 3],
        Format.FORMAT_ND,
        DataType.DT_FLOAT,
    )
    relu.update_input_desc(0, TensorDesc([9], Format.FORMAT_NCHW, DataType.DT_INT32))
    again = relu.get_input_desc(0)  # connected: shape and dtype stay the producer's
    assert (again.shape, again.format, again.data_type) == (
        [2, 3],
        Format.FORMAT_NCHW,
        DataType.DT_FLOAT,
    )
    relu.update_output_desc(
        0, TensorDesc([-2], Format.FORMAT_NHWC, DataType.DT_FLOAT16)
    )
    assert relu.outputs[0].shape is None  # [-2]: unknown rank
    out = relu.get_output_desc(0)
    assert (out.shape, out.format, out.data_type) == (
        [-2],
        Format.FORMAT_NHWC,
        DataType.DT_FLOAT16,
    )
    with pytest.raises(RuntimeError, match="input 1 does not exist"):
        relu.get_input_desc(1)
    with pytest.raises(TypeError, match="must be a ge.graph.TensorDesc"):
        relu.update_output_desc(0, "NCHW")  # type: ignore[arg-type]


def test_tensor_desc_and_shape() -> None:
    desc = TensorDesc([1, 3, 4, 4], Format.FORMAT_NCHW)
    assert desc.set_shape([2, 3]).set_data_type(DataType.DT_INT32) is desc
    assert (desc.shape, desc.origin_shape, desc.data_type) == (
        [2, 3],
        [1, 3, 4, 4],
        DataType.DT_INT32,
    )
    desc.set_origin_format(Format.FORMAT_NHWC)
    assert (desc.format, desc.origin_format) == (Format.FORMAT_NCHW, Format.FORMAT_NHWC)
    assert Shape([2, 3]).get_shape_size() == 6 and Shape([]).get_shape_size() == 0
    assert Shape([2, -1]).get_shape_size() == -1 and Shape([-2]).is_unknown_shape()
    with pytest.raises(TypeError, match="shape must be a list of ints"):
        TensorDesc([1.5])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="format must be a ge.graph.Format"):
        TensorDesc([1], 0)  # type: ignore[arg-type]


def test_get_attr_finds_ir_defaults_and_refuses_others() -> None:
    b = GraphBuilder("attrs")
    x = b.create_input(0, shape=[1, 2, 4, 4])
    f = b.create_input(1, shape=[2, 2, 1, 1])
    graph = b.build_and_reset(
        [m.Conv2D(x, f, strides=[1, 1, 1, 1], pads=[0, 0, 0, 0], data_format="NCHW")]
    )
    conv = graph.nodes[-1]
    assert not conv.has_attr("dilations")  # left off the node at its default
    assert list(conv.get_attr("dilations")) == [1, 1, 1, 1]
    assert conv.get_attr("groups") == 1
    with pytest.raises(AttrNotFoundError, match="no_such_attr"):
        conv.get_attr("no_such_attr")
    with pytest.raises(RuntimeError):  # what GE's samples catch
        conv.get_attr("no_such_attr")


# --- inputs of the default dtype; Conv2D's layout --------------------------------------------


def test_a_default_float_input_is_checked_at_compile() -> None:
    """An input made without a data_type (DT_FLOAT) that breaks a dtype rule
    is let through by the builder and refused by the compiler, naming the
    node and the input; one given DT_FLOAT explicitly is refused at once."""
    b = GraphBuilder("soft")
    x = b.create_input(0, shape=[2, 3], data_type=DataType.DT_INT32)
    y = b.create_input(1, shape=[2, 3])
    graph = b.build_and_reset([m.Add(x, y)])
    with pytest.raises(CompileError, match=r"node 'Add_0' \(Add\): .*float32"):
        compile_graph(graph)
    b = GraphBuilder("hard")
    x = b.create_input(0, shape=[2, 3], data_type=DataType.DT_INT32)
    y = b.create_input(1, shape=[2, 3], data_type=DataType.DT_FLOAT)
    with pytest.raises(ValueError, match="float32"):
        m.Add(x, y)


def test_conv2d_takes_its_layout_from_x_format() -> None:
    """data_format NHWC on an NCHW-format x is computed NCHW, as GE's conv
    infer reads x's format; an ND x follows data_format."""
    from ops.math._reference import conv2d as reference

    xv, fv = normal(1, 4, 6, 6), normal(4, 4, 3, 3)
    attrs = dict(strides=[1, 1, 1, 1], pads=[0, 0, 0, 0])
    b = GraphBuilder("layout")
    x = b.create_input(0, shape=[1, 4, 6, 6], format=Format.FORMAT_NCHW)
    f = b.create_input(1, shape=[4, 4, 3, 3], format=Format.FORMAT_NCHW)
    graph = b.build_and_reset([m.Conv2D(x, f, data_format="NHWC", **attrs)])
    (y,) = compile_graph(graph).run([Tensor.from_numpy(xv), Tensor.from_numpy(fv)])
    expected = reference(
        xv,
        fv,
        None,
        None,
        dilations=[1, 1, 1, 1],
        groups=1,
        data_format="NCHW",
        offset_x=0,
        **attrs,
    )
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)
