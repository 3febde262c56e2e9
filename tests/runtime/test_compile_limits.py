"""Graphs the CPU device cannot hold, and graphs missing what GE's Data and
Const nodes need (issue 8, finding 5): Session.compile_graph and
ge.engine.compiler raise CompileError naming the node, never MemoryError,
KeyError or numpy's ValueError; ge.graph.Tensor refuses sizes it cannot
allocate with ValueError naming the shape."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import (
    get_declare_launch_args_ctx,
    register_op,
    register_op_impl,
)
from ge.engine import compiler
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Tensor
from ge.offline import model_file
from ge.runtime import TensorDesc
from ge.session import CompileError, Session

OP = unique("LimitOp")
OP_DEF = api.OpDef(
    OP,
    inputs=(api.Input("x", "float32"),),
    outputs=(api.Output("y", "float32"),),
)


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    @register_op(op_type=OP, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=OP)
    class Impl:
        def execute(self, x):  # type: ignore[no-untyped-def]
            raise AssertionError("not reached: compiling fails first")

    yield Session()


def chain(shape: list[int]) -> Graph:
    """x -> op -> op: the middle tensor lives in the arena."""
    builder = GraphBuilder(unique("chain"))
    x = builder.create_input(0, name="x", shape=shape)
    first = OP_DEF.build(inputs={"x": x}, name="first")
    return builder.build_and_reset([OP_DEF.build(inputs={"x": first}, name="second")])


def compile_(session: Session, graph: Graph) -> None:
    session.add_graph(0, graph)
    session.compile_graph(0)


def test_the_limits_are_the_model_files(session: Session) -> None:
    """What compiles online fits a model file."""
    assert compiler.MAX_TENSOR_BYTES == model_file.MAX_BUFFER_BYTES
    assert compiler.MAX_DEVICE_BYTES == model_file.MAX_TOTAL_BYTES


@pytest.mark.parametrize(
    "shape, node",
    [
        ([10**6, 10**6], "x"),  # 4e12 bytes: the MemoryError
        ([1 << 40], "x"),
        ([1 << 62, 1 << 62, 1 << 62], "x"),  # a product past int64
        ([(1 << 32) + 1], "x"),  # one float past 16 GiB
    ],
)
def test_a_tensor_too_big_for_the_device(
    session: Session, shape: list[int], node: str
) -> None:
    with pytest.raises(CompileError, match=f"node '{node}' \\(Data\\) output 0.*bytes"):
        compile_(session, chain(shape))


def test_an_intermediate_too_big_for_the_device(session: Session) -> None:
    @register_op(op_type=OP + "Grow", output_names=("y",))
    def grow(x: TensorDesc) -> TensorDesc:
        return TensorDesc([1 << 40], x.data_type)

    register_op_impl(op_type=OP + "Grow")(type("G", (), {"execute": lambda s, x: None}))
    grow_def = api.OpDef(
        OP + "Grow",
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )
    builder = GraphBuilder(unique("grow"))
    x = builder.create_input(0, shape=[4])
    graph = builder.build_and_reset([grow_def.build(inputs={"x": x}, name="grower")])
    with pytest.raises(
        CompileError,
        match=rf"node 'grower' \({OP}Grow\) output 0 \(float32\[1099511627776\]\)",
    ):
        compile_(session, graph)


def test_an_arena_too_big_for_the_device(session: Session) -> None:
    """Each tensor fits, the intermediates together do not."""
    builder = GraphBuilder(unique("wide"))
    x = builder.create_input(0, shape=[1 << 32])  # 16 GiB, the most a tensor holds
    a = OP_DEF.build(inputs={"x": x}, name="a")
    b = OP_DEF.build(inputs={"x": a}, name="b")
    c = OP_DEF.build(inputs={"x": b}, name="c")
    graph = builder.build_and_reset([OP_DEF.build(inputs={"x": c}, name="d")])
    with pytest.raises(CompileError, match="arena"):
        compile_(session, graph)


def test_a_declared_workspace_too_big_for_the_device(session: Session) -> None:
    op = unique("HugeWorkspace")

    @register_op(op_type=op, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op)
    class Impl:
        def declare_launch_args(self, x, y) -> None:  # type: ignore[no-untyped-def]
            get_declare_launch_args_ctx().malloc_workspace(1 << 40)

    op_def = api.OpDef(
        op, inputs=(api.Input("x", "float32"),), outputs=(api.Output("y", "float32"),)
    )
    builder = GraphBuilder(unique("ws"))
    x = builder.create_input(0, shape=[4])
    graph = builder.build_and_reset([op_def.build(inputs={"x": x}, name="ws")])
    with pytest.raises(CompileError, match=rf"node 'ws' \({op}\).*workspace"):
        compile_(session, graph)


# --- Data and Const nodes ---------------------------------------------------------


def io_graph() -> Graph:
    builder = GraphBuilder(unique("io"))
    x = builder.create_input(0, name="x", shape=[2])
    c = builder.create_const(Tensor(np.ones(2, np.float32)))
    return builder.build_and_reset([x, c])


def test_a_data_node_without_index(session: Session) -> None:
    graph = io_graph()
    del graph.nodes[0].attrs["index"]
    with pytest.raises(ValueError, match="Data node 'x'.*index"):
        _ = graph.input_nodes
    with pytest.raises(ValueError, match="Data node 'x'.*index"):
        graph.graph_inputs()
    with pytest.raises(CompileError, match="Data node 'x'.*index"):
        compiler.compile_graph(graph)
    with pytest.raises(CompileError, match="Data node 'x'.*index"):
        session.add_graph(1, graph)


def _edit_index(graph: Graph, how: str) -> None:
    """One way a Data node's ``index`` can be wrong."""
    data = graph.nodes[0]
    if how == "missing":
        del data.attrs["index"]
    elif how == "string":
        data.set_attr("index", "0")
    elif how == "float":
        data.set_attr("index", 0.0)
    elif how == "list":
        data.set_attr("index", [0])
    else:
        data.set_attr("index", int(how))


@pytest.mark.parametrize(
    "how", ["missing", "string", "float", "list", "-1", "1", "7", str(1 << 62)]
)
def test_add_graph_reports_a_bad_data_index_as_a_compile_error(
    session: Session, how: str
) -> None:
    """Issue 21, finding 8: every way a Data node's index is wrong is a
    CompileError naming the node, at Session.add_graph (not a ValueError)."""
    graph = io_graph()
    _edit_index(graph, how)
    with pytest.raises(CompileError, match=r"graph 'io\S*': Data node 'x'.*index"):
        session.add_graph(3, graph)
    with pytest.raises(CompileError, match="Data node 'x'.*index"):
        compiler.compile_graph(graph)


def test_add_graph_reports_two_data_nodes_with_one_index(session: Session) -> None:
    builder = GraphBuilder(unique("twice"))
    x = builder.create_input(0, name="x", shape=[2])
    y = builder.create_input(1, name="y", shape=[2])
    graph = builder.build_and_reset([x, y])
    graph.nodes[1].set_attr("index", 0)
    with pytest.raises(CompileError, match="Data nodes 'x' and 'y'.*index 0"):
        session.add_graph(4, graph)


@pytest.mark.parametrize("index", [-1, 1, 7])
def test_a_data_index_out_of_range(session: Session, index: int) -> None:
    graph = io_graph()
    graph.nodes[0].set_attr("index", index)
    with pytest.raises(CompileError, match=f"Data node 'x'.*index {index}"):
        compiler.compile_graph(graph)


def test_a_data_index_of_another_type(session: Session) -> None:
    graph = io_graph()
    graph.nodes[0].set_attr("index", "0")
    with pytest.raises(CompileError, match="Data node 'x'.*index"):
        compiler.compile_graph(graph)


def test_two_data_nodes_with_one_index(session: Session) -> None:
    builder = GraphBuilder(unique("twice"))
    x = builder.create_input(0, name="x", shape=[2])
    y = builder.create_input(1, name="y", shape=[2])
    graph = builder.build_and_reset([x, y])
    graph.nodes[1].set_attr("index", 0)
    with pytest.raises(CompileError, match="'x' and 'y'.*index 0"):
        compiler.compile_graph(graph)


def test_a_const_without_value(session: Session) -> None:
    graph = io_graph()
    const = graph.nodes[1]
    del const.attrs["value"]
    with pytest.raises(CompileError, match=f"Const node '{const.name}'.*value"):
        compile_(session, graph)


def test_a_const_whose_value_is_not_a_tensor(session: Session) -> None:
    graph = io_graph()
    const = graph.nodes[1]
    const.set_attr("value", 3)
    with pytest.raises(CompileError, match=f"Const node '{const.name}'.*value"):
        compiler.compile_graph(graph)


def test_a_required_input_without_its_instance(session: Session) -> None:
    graph = chain([4])
    node = graph.nodes[1]
    from ge.graph.graph import InputKind, IrInput

    node.ir_inputs = (IrInput("x", InputKind.REQUIRED, 0),)
    with pytest.raises(CompileError, match="node 'first'.*required input 'x'"):
        compiler.compile_graph(graph)


# --- ge.graph.Tensor ------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape", [[10**12], [1 << 40, 4], [1 << 62, 1 << 62], [(1 << 32) + 1]]
)
def test_a_host_tensor_too_big_is_a_value_error(shape: list[int]) -> None:
    with pytest.raises(
        ValueError, match=rf"shape \[.*\]: .* bytes; a tensor holds at most {1 << 34}"
    ):
        Tensor(shape=shape)


@pytest.mark.parametrize("shape", [[0, 1 << 70], [1 << 70]])
def test_a_tensor_with_a_dim_beyond_int64_is_refused(shape: list[int]) -> None:
    with pytest.raises(ValueError, match="int64"):
        Tensor(b"", data_type=DataType.DT_FLOAT, shape=shape)


def test_a_required_input_that_is_not_connected(session: Session) -> None:
    graph = chain([4])
    graph.nodes[2].inputs[0] = None
    with pytest.raises(
        CompileError, match="node 'second'.*required input 'x' is not connected"
    ):
        compiler.compile_graph(graph)


# --- arguments of the wrong type ---------------------------------------------------------


def test_compile_graph_checks_its_arguments(session: Session) -> None:
    with pytest.raises(TypeError, match="takes a ge.graph.Graph, got str"):
        compiler.compile_graph("graph.air")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options must be a dict of str to str"):
        compiler.compile_graph(io_graph(), 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="option 'ge.socVersion' is int 1"):
        compiler.compile_graph(io_graph(), {"ge.socVersion": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="options must be a dict"):
        session.add_graph(5, io_graph(), {"ge.x": 2})  # type: ignore[dict-item]
        session.compile_graph(5)


def test_graph_file_contents_are_bytes() -> None:
    from ge.graph.air import graph_bytes, graph_from_bytes

    with pytest.raises(TypeError, match="contents are bytes, got str"):
        graph_from_bytes("GECPUAIR")  # type: ignore[arg-type]
    data = graph_bytes(io_graph())
    assert graph_from_bytes(bytearray(data)).name == graph_from_bytes(data).name
