"""Graph editing (GE's Graph.remove_node, remove_edge, add_data_edge,
add_control_edge, get_subgraph, add_subgraph, remove_subgraph) and
dump_to_stream: docs/runtime.md, "Editing graphs"; Note [Graph edits] in
ge/graph/graph_edit.py, Note [Subgraph editing] in ge/graph/subgraph_edit.py,
Note [GE's readable dump] in ge/graph/dump.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from math_harness import math_session, run

from ge.es import GraphBuilder
from ge.es.control import CaseCustom, IfCustom
from ge.es.custom import ScaleCustom, SplitCustom
from ge.es.math import Add, Mul, Neg
from ge.graph import DataType, DumpFormat, Graph, Node, Tensor
from ge.graph.air import graph_document
from ge.graph.graph_edit import GraphEditError
from ge.session import CompileError, Session


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with math_session() as s:
        yield s


def chain() -> tuple[Graph, dict[str, Node]]:
    """x, y -> s = x + y -> m = s * x -> n = -m; outputs (n, s)."""
    builder = GraphBuilder("chain")
    x = builder.create_input(0, name="x", shape=[3])
    y = builder.create_input(1, name="y", shape=[3])
    s = Add(x, y, name="s")
    m = Mul(s, x, name="m")
    n = Neg(m, name="n")
    graph = builder.build_and_reset([n, s])
    return graph, {node.name: node for node in graph.nodes}


X = np.array([1.0, -2.0, 3.0], np.float32)
Y = np.array([4.0, 5.0, -6.0], np.float32)


def refused(graph: Graph, match: str, edit: object, *args: object) -> None:
    """The edit raises GraphEditError matching ``match``; the graph is unchanged."""
    before = graph.dump()
    with pytest.raises(GraphEditError, match=match) as info:
        edit(*args)  # type: ignore[operator]
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ValueError)
    assert graph.dump() == before


# --- remove_node -------------------------------------------------------------------


def test_remove_node_removes_its_edges_and_leaves_readers_unconnected(
    session: Session,
) -> None:
    graph, n = chain()
    graph.add_control_edge(n["s"], n["n"])
    graph.remove_node(n["s"])
    assert [node.name for node in graph.nodes] == ["x", "y", "m", "n"]
    assert n["m"].inputs[0] is None and n["m"].inputs[1].node is n["x"]  # type: ignore[union-attr]
    assert n["n"].control_inputs == []
    assert [(node.name, i) for node, i in graph.outputs] == [("n", 0)]
    with pytest.raises(CompileError, match="'x1' is not connected"):
        run(session, graph, [X, Y])
    graph.add_data_edge(n["y"], 0, n["m"], 0)  # m = y * x
    (out,) = run(session, graph, [X, Y])
    np.testing.assert_array_equal(out, -(Y * X))


def test_remove_node_refusals() -> None:
    graph, n = chain()
    other, o = chain()
    refused(graph, "node 'm' is not a node of graph 'chain'", graph.remove_node, o["m"])
    graph.remove_node(n["n"])
    refused(graph, "node 'n' is not a node of graph 'chain'", graph.remove_node, n["n"])
    with pytest.raises(TypeError, match="node must be a Node, got str"):
        graph.remove_node("m")  # type: ignore[arg-type]


# --- add_data_edge / remove_edge ------------------------------------------------------


def test_add_data_edge_refusals_name_the_node_and_port() -> None:
    graph, n = chain()
    x, s, m, neg = n["x"], n["s"], n["m"], n["n"]
    refused(
        graph,
        r"input 0 of node 'm' is already fed by 's':0; .* remove_edge\(<'s'>, 0, <'m'>, 0\)",
        graph.add_data_edge,
        x,
        0,
        m,
        0,
    )
    refused(
        graph,
        r"src_port_index 1 is out of range: node 'x' has 1 output\(s\), ports 0..0",
        graph.add_data_edge,
        x,
        1,
        m,
        0,
    )
    refused(
        graph,
        r"dst_port_index 2 is out of range: node 'm' has 2 input slot\(s\)",
        graph.add_data_edge,
        x,
        0,
        m,
        2,
    )
    refused(
        graph, "dst_port_index -1 is out of range", graph.add_data_edge, x, 0, m, -1
    )
    graph.remove_edge(s, 0, m, 0)
    refused(graph, "from node 'm' to itself", graph.add_data_edge, m, 0, m, 0)
    refused(
        graph,
        "from 'n' to 'm' would make a cycle, as 'm' already feeds 'n'",
        graph.add_data_edge,
        neg,
        0,
        m,
        0,
    )
    with pytest.raises(TypeError, match="src_port_index must be an integer, got bool"):
        graph.add_data_edge(x, True, m, 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dst_node must be a Node"):
        graph.add_data_edge(x, 0, "m", 0)  # type: ignore[arg-type]


def test_remove_edge_then_add_data_edge_rewires(session: Session) -> None:
    graph, n = chain()
    graph.remove_edge(n["x"], 0, n["m"], 1)
    assert n["m"].inputs[1] is None
    graph.add_data_edge(n["s"], 0, n["m"], 1)  # m = s * s
    out_n, out_s = run(session, graph, [X, Y])
    np.testing.assert_array_equal(out_s, X + Y)
    np.testing.assert_array_equal(out_n, -((X + Y) * (X + Y)))


def test_remove_edge_refusals() -> None:
    graph, n = chain()
    x, y, s, m = n["x"], n["y"], n["s"], n["m"]
    refused(
        graph,
        r"no data edge from 'y':0 to 'm':0 to remove; that input is fed by 's':0",
        graph.remove_edge,
        y,
        0,
        m,
        0,
    )
    refused(graph, "no control edge from 'x' to 's'", graph.remove_edge, x, -1, s, -1)
    refused(
        graph, r"port indices \(-1, 0\) name no edge", graph.remove_edge, s, -1, m, 0
    )
    refused(
        graph, r"port indices \(0, -1\) name no edge", graph.remove_edge, s, 0, m, -1
    )
    graph.remove_edge(s, 0, m, 0)
    refused(graph, "that input is not connected", graph.remove_edge, s, 0, m, 0)


# --- control edges ---------------------------------------------------------------------


def test_add_control_edge_refusals() -> None:
    graph, n = chain()
    x, y, s, m = n["x"], n["y"], n["s"], n["m"]
    graph.add_control_edge(y, x)
    refused(
        graph,
        "node 'x' already has a control edge from 'y'",
        graph.add_control_edge,
        y,
        x,
    )
    refused(graph, "control edge from node 's' to itself", graph.add_control_edge, s, s)
    refused(
        graph,
        "control edge from 'm' to 's' would make a cycle, as 's' already feeds 'm'",
        graph.add_control_edge,
        m,
        s,
    )
    refused(  # through the control edge y -> x and the data edge x -> s
        graph,
        "from 's' to 'y' would make a cycle, as 'y' already feeds 's'",
        graph.add_control_edge,
        s,
        y,
    )
    graph.remove_edge(y, -1, x, -1)
    assert x.control_inputs == []


def test_the_compiler_runs_nodes_in_control_edge_order(session: Session) -> None:
    """Two independent nodes run in the order nodes were added, unless a
    control edge says otherwise (ge/engine/graph_order.py)."""
    from ge.engine.graph_order import topological_order

    builder = GraphBuilder("order")
    x = builder.create_input(0, name="x", shape=[3])
    first = Neg(x, name="first")
    second = Mul(x, x, name="second")
    graph = builder.build_and_reset([first, second])
    n = {node.name: node for node in graph.nodes}
    assert [v.name for v in topological_order(graph)] == ["x", "first", "second"]
    graph.add_control_edge(n["second"], n["first"])
    assert [v.name for v in topological_order(graph)] == ["x", "second", "first"]
    out_first, out_second = run(session, graph, [X])
    np.testing.assert_array_equal(out_first, -X)
    np.testing.assert_array_equal(out_second, X * X)


# --- subgraphs ---------------------------------------------------------------------------


def branch(name: str, scale: float) -> Graph:
    builder = GraphBuilder(name)
    x = builder.create_input(0, shape=[4])
    return builder.build_and_reset([ScaleCustom(x, alpha=scale)])


def with_branches() -> Graph:
    builder = GraphBuilder("main")
    x = builder.create_input(0, name="x", shape=[4])
    cond = builder.create_const(Tensor([True], data_type=DataType.DT_BOOL, shape=[]))
    (y,) = IfCustom(
        cond,
        [x],
        1,
        then_branch=branch("then", 2.0),
        else_branch=branch("else", 3.0),
        name="if",
    )
    (z,) = CaseCustom(
        builder.create_const_int32(1),
        [y],
        1,
        branches=[branch("b0", 1.0), branch("b1", 0.5)],
        name="case",
    )
    return builder.build_and_reset([z])


def test_get_subgraph_finds_any_nodes_subgraph_by_name() -> None:
    graph = with_branches()
    then = graph.get_subgraph("then")
    assert then is not None and then.name == "then" and then.owner is graph.nodes[2]
    assert graph.get_subgraph("b1") is graph.nodes[-1].subgraphs["branches"][1]
    assert graph.get_subgraph("nope") is None
    with pytest.raises(TypeError, match="name must be a str, got int"):
        graph.get_subgraph(1)  # type: ignore[arg-type]


def test_remove_subgraph_then_add_subgraph_replaces_a_branch(tmp_path: Path) -> None:
    graph = with_branches()
    old = graph.get_subgraph("then")
    assert old is not None
    graph.remove_subgraph("then")
    assert graph.get_subgraph("then") is None and old.owner is None
    assert [g.name for g in graph.get_all_subgraphs()] == ["else", "b0", "b1"]
    assert "subgraph then_branch: vacant ('then' removed)" in graph.dump()
    assert "then_branch: %then, else_branch: %else" in str(graph)
    assert 'graph("then")' not in str(graph)
    with pytest.raises(
        ValueError, match="vacant subgraph slot 'then_branch'.*add_subgraph"
    ):
        graph.save_to_air(tmp_path / "g.air")
    new = branch("then", 7.0)
    graph.add_subgraph(new)
    assert graph.get_subgraph("then") is new and new.owner is graph.nodes[2]
    assert graph.nodes[2].subgraphs["then_branch"] == (new,)
    graph.save_to_air(tmp_path / "g.air")
    assert Graph.load_from_air(tmp_path / "g.air").dump() == graph.dump()


def test_subgraph_edit_refusals() -> None:
    graph = with_branches()
    refused(
        graph,
        r"graph 'main' has no subgraph named 'thn' \(its subgraphs: 'then', 'else', 'b0', 'b1'\)",
        graph.remove_subgraph,
        "thn",
    )
    refused(
        graph,
        r"already has a subgraph named 'else' \(under node 'if'\); .* remove_subgraph\('else'\)",
        graph.add_subgraph,
        branch("else", 1.0),
    )
    refused(
        graph,
        r"no node of graph 'main' has a vacant subgraph slot named 'extra'.*vacant slots: none",
        graph.add_subgraph,
        branch("extra", 1.0),
    )
    graph.remove_subgraph("b0")
    refused(
        graph,
        "graph 'b1' is already a subgraph of node 'case'",
        graph.add_subgraph,
        graph.get_subgraph("b1"),
    )
    refused(
        graph,
        "graph 'main' cannot be a subgraph of graph 'main'",
        graph.add_subgraph,
        graph,
    )
    with pytest.raises(TypeError, match="subgraph must be a Graph, got str"):
        graph.add_subgraph("b0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name must be a str"):
        graph.remove_subgraph(None)  # type: ignore[arg-type]


def test_a_subgraphs_nodes_are_edited_on_the_subgraph() -> None:
    graph = with_branches()
    then = graph.get_subgraph("then")
    assert then is not None
    scale = then.nodes[1]
    refused(
        graph,
        "node 'ScaleCustom_0' is not a node of graph 'main' .*in a subgraph.*get_subgraph",
        graph.remove_node,
        scale,
    )
    then.remove_node(scale)
    assert [n.name for n in then.nodes] == ["input_0"] and then.outputs == []


# --- dump_to_stream ------------------------------------------------------------------------


def test_dump_to_stream_readable_is_ges_readable_form() -> None:
    builder = GraphBuilder("dumped")
    x = builder.create_input(0, name="x", shape=[4])
    parts = SplitCustom(x, num_split=2, name="split")
    total = Add(parts[0], parts[1], name="sum")
    cond = builder.create_const(Tensor([True], data_type=DataType.DT_BOOL, shape=[]))
    (y,) = IfCustom(
        cond,
        [total],
        1,
        then_branch=branch("then", 2.0),
        else_branch=branch("else", 3.0),
        name="if",
    )
    graph = builder.build_and_reset([y, parts[1]])
    const_value = "[true]"
    assert graph.dump_to_stream() == (
        'graph("dumped"):\n'
        "  %x : [#users=1] = Node[type=Data] (attrs = {index: 0})\n"
        "  %split : [#users=2] = Node[type=SplitCustom] "
        "(inputs = (x=%x), attrs = {num_split: 2})\n"  # split_dim at its default
        "  %ret : [#users=1] = get_element[node=%split](0)\n"
        "  %ret_1 : [#users=2] = get_element[node=%split](1)\n"
        "  %sum : [#users=1] = Node[type=Add] (inputs = (x1=%ret, x2=%ret_1))\n"
        f"  %Const_0 : [#users=1] = Node[type=Const] (attrs = {{value: {const_value}}})\n"
        "  %if : [#users=1] = Node[type=IfCustom] (inputs = (cond=%Const_0, input_0=%sum), "
        "attrs = {then_branch: %then, else_branch: %else})\n"
        "\n"
        "  return (output_0=%if, output_1=%ret_1)\n"
        "\n"
        'graph("then"):\n'
        "  %input_0 : [#users=1] = Node[type=Data] (attrs = {index: 0})\n"
        "  %ScaleCustom_0 : [#users=1] = Node[type=ScaleCustom] "
        "(inputs = (x=%input_0), attrs = {alpha: 2.0})\n"
        "\n"
        "  return (%ScaleCustom_0)\n"
        "\n"
        'graph("else"):\n'
        "  %input_0 : [#users=1] = Node[type=Data] (attrs = {index: 0})\n"
        "  %ScaleCustom_0 : [#users=1] = Node[type=ScaleCustom] "
        "(inputs = (x=%input_0), attrs = {alpha: 3.0})\n"
        "\n"
        "  return (%ScaleCustom_0)\n"
    )
    assert str(graph) == graph.dump_to_stream(DumpFormat.kReadable)


def test_dump_to_stream_txt_is_the_graph_files_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph, _ = chain()
    text = graph.dump_to_stream(DumpFormat.kTxt)
    assert json.loads(text) == json.loads(json.dumps(graph_document(graph)))
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(tmp_path))
    path = graph.dump_to_file(DumpFormat.kTxt, suffix="_1")
    assert path == str(tmp_path / "ge_txt_chain_1.json")
    assert Path(path).read_text() == text
    assert graph.dump_to_file() == str(tmp_path / "ge_readable_chain.txt")


def test_dump_to_stream_refusals() -> None:
    graph, _ = chain()
    with pytest.raises(
        ValueError, match="DumpFormat.kOnnx is not supported.*kReadable"
    ):
        graph.dump_to_stream(DumpFormat.kOnnx)
    with pytest.raises(TypeError, match="format must be a DumpFormat, got int"):
        graph.dump_to_stream(2)  # type: ignore[arg-type]
    assert [f.value for f in DumpFormat] == [0, 1, 2]  # GE's values


def test_the_editing_methods_have_ges_signatures() -> None:
    import inspect

    expected = {
        "remove_node": ["node"],
        "remove_edge": ["src_node", "src_port_index", "dst_node", "dst_port_index"],
        "add_data_edge": ["src_node", "src_port_index", "dst_node", "dst_port_index"],
        "add_control_edge": ["src_node", "dst_node"],
        "get_subgraph": ["name"],
        "add_subgraph": ["subgraph"],
        "remove_subgraph": ["name"],
        "dump_to_stream": ["format"],
        "dump_to_file": ["format", "suffix"],
    }
    for name, params in expected.items():
        signature = inspect.signature(getattr(Graph, name))
        assert list(signature.parameters)[1:] == params, name
    assert inspect.signature(Graph.dump_to_stream).parameters["format"].default is (
        DumpFormat.kReadable
    )
