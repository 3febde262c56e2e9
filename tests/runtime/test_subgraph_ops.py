"""Subgraph ops run (Note [Subgraph ops] in ge.custom_op.subgraphs): IfCustom
and CaseCustom of ops/control, with branches of GE's built-in math ops,
checked against numpy; nested subgraphs; graph files; the errors."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from ge.custom_op import bootstrap
from ge.engine.errors import CompileError
from ge.es import GraphBuilder
from ge.es.control import CaseCustom, IfCustom
from ge.es.math import Relu
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Tensor
from ge.graph.attrs import AttrType
from ge.session import Session

ROOT = Path(__file__).resolve().parents[2]
F32 = DataType.DT_FLOAT
SHAPE = [2, 3]


@pytest.fixture
def session() -> Iterator[Session]:
    bootstrap.load_custom_op_plugins(str(ROOT / "ops" / "control"))
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        yield Session({})
    finally:
        api.ge_finalize()


def branch(name: str, body, inputs: int = 2, index: int = 0) -> Graph:  # type: ignore[no-untyped-def]
    """A subgraph of ``inputs`` float32 Data nodes (indices from ``index``)
    whose outputs are ``body(*data)``."""
    builder = GraphBuilder(name)
    data = [
        builder.create_input(index + i, name=f"{name}_x{i}", data_type=F32, shape=SHAPE)
        for i in range(inputs)
    ]
    out = body(*data)
    return builder.build_and_reset(out if isinstance(out, list) else [out])


def if_graph(then: Graph, other: Graph, outputs: int = 1, cond_shape=()) -> Graph:  # type: ignore[no-untyped-def]
    builder = GraphBuilder("if_graph")
    cond = builder.create_input(
        0, name="cond", data_type=DataType.DT_INT32, shape=list(cond_shape)
    )
    xs = [
        builder.create_input(i + 1, name=f"x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    out = IfCustom(cond, xs, outputs, then, other, name="if")
    return builder.build_and_reset(out)


def run(session: Session, graph: Graph, *arrays: np.ndarray) -> list[np.ndarray]:
    """One run of ``graph`` (added to ``session`` as graph 0)."""
    session.add_graph(0, graph)
    return [
        t.numpy() for t in session.run_graph(0, [Tensor.from_numpy(a) for a in arrays])
    ]


X = np.arange(-3, 3, dtype=np.float32).reshape(SHAPE)
Y = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -4.0]], dtype=np.float32)


def scalar(value: int) -> np.ndarray:
    return np.array(value, dtype=np.int32)


def test_if_runs_the_branch_cond_selects(session: Session) -> None:
    graph = if_graph(
        branch("then", lambda x, y: Relu(x * 2.0 + y)),
        branch("else", lambda x, y: x - y),
    )
    session.add_graph(0, graph)
    for cond, want in (
        (1, np.maximum(X * 2 + Y, 0)),
        (0, X - Y),
        (-7, np.maximum(X * 2 + Y, 0)),
    ):
        (out,) = session.run_graph(
            0, [Tensor.from_numpy(a) for a in (scalar(cond), X, Y)]
        )
        np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize(
    "shape, value, then",
    [((2,), 0, True), ((0,), 0, False), ((1, 0), 0, False), ((1,), 5, True)],
)
def test_if_cond_of_other_shapes_is_true_when_it_has_elements(
    session: Session, shape: tuple[int, ...], value: int, then: bool
) -> None:
    graph = if_graph(
        branch("then", lambda x, y: x + y),
        branch("else", lambda x, y: x * y),
        cond_shape=shape,
    )
    cond = np.full(shape, value, dtype=np.int32)
    (out,) = run(session, graph, cond, X, Y)
    np.testing.assert_array_equal(out, X + Y if then else X * Y)


def test_dynamic_outputs_come_from_the_branch(session: Session) -> None:
    graph = if_graph(
        branch("then", lambda x, y: [x + y, x - y, y]),
        branch("else", lambda x, y: [x * y, x, x * 0.5]),
        outputs=3,
    )
    session.add_graph(0, graph)
    for cond, want in ((1, [X + Y, X - Y, Y]), (0, [X * Y, X, X * 0.5])):
        outs = session.run_graph(
            0, [Tensor.from_numpy(a) for a in (scalar(cond), X, Y)]
        )
        assert len(outs) == 3
        for got, expected in zip(outs, want):
            np.testing.assert_array_equal(got.numpy(), expected)


def case_graph(branches: Sequence[Graph]) -> Graph:
    builder = GraphBuilder("case_graph")
    index = builder.create_input(0, name="index", data_type=DataType.DT_INT32, shape=[])
    xs = [
        builder.create_input(i + 1, name=f"x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    return builder.build_and_reset(
        CaseCustom(index, xs, 1, list(branches), name="case")
    )


CASE_BRANCHES = (
    (lambda x, y: x + y, X + Y),
    (lambda x, y: x * y, X * Y),
    (lambda x, y: Relu(x - y), np.maximum(X - Y, 0)),
)


@pytest.mark.parametrize(
    "index, chosen", [(0, 0), (1, 1), (2, 2), (3, 2), (-1, 2), (2**31 - 1, 2)]
)
def test_case_runs_each_branch_and_the_last_when_out_of_range(
    session: Session, index: int, chosen: int
) -> None:
    """GE's GenIndexForCase: an index below 0 or past the end picks the last
    branch (docs/ge-compat.md, Control ops)."""
    graph = case_graph(
        [branch(f"b{k}", body) for k, (body, _) in enumerate(CASE_BRANCHES)]
    )
    (out,) = run(session, graph, scalar(index), X, Y)
    np.testing.assert_array_equal(out, CASE_BRANCHES[chosen][1])


def test_nested_subgraphs_run(session: Session) -> None:
    """A Case branch holding an If whose then_branch holds a Case."""
    inner_case = case_graph_as_branch()
    inner_if = branch_with_if(inner_case)
    graph = case_graph([branch("plain", lambda x, y: x - y), inner_if])
    session.add_graph(0, graph)
    for index, want in ((0, X - Y), (1, X * Y * 2.0), (9, X * Y * 2.0)):
        (out,) = session.run_graph(
            0, [Tensor.from_numpy(a) for a in (scalar(index), X, Y)]
        )
        np.testing.assert_array_equal(out.numpy(), want)


def case_graph_as_branch() -> Graph:
    """Branch graph: Case(const 1, x, y) over [x + y, (x * y) * 2]."""
    builder = GraphBuilder("inner_case")
    xs = [
        builder.create_input(i, name=f"ic_x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    index = builder.create_const_int32(1)
    out = CaseCustom(
        index,
        xs,
        1,
        [
            branch("ic_b0", lambda x, y: x + y),
            branch("ic_b1", lambda x, y: (x * y) * 2.0),
        ],
        name="inner_case_node",
    )
    return builder.build_and_reset(out)


def branch_with_if(then: Graph) -> Graph:
    """Branch graph: If(a constant shape-[1] cond, x, y): then runs."""
    builder = GraphBuilder("outer_if_branch")
    xs = [
        builder.create_input(i, name=f"ob_x{i}", data_type=F32, shape=SHAPE)
        for i in range(2)
    ]
    cond = builder.create_const_int32([1])
    out = IfCustom(
        cond, xs, 1, then, branch("ob_else", lambda x, y: x), name="nested_if"
    )
    return builder.build_and_reset(out)


def test_a_saved_graph_keeps_its_subgraphs_and_runs(
    session: Session, tmp_path: Path
) -> None:
    graph = case_graph(
        [branch("s0", lambda x, y: x + y), branch_with_if(case_graph_as_branch())]
    )
    path = tmp_path / "nested.air"
    graph.save_to_air(path)
    loaded = Graph.load_from_air(path)
    (out,) = run(session, loaded, scalar(1), X, Y)
    np.testing.assert_array_equal(out, X * Y * 2.0)


def test_a_branch_whose_data_indices_do_not_match_is_refused(session: Session) -> None:
    other = branch("else_gap", lambda x, y: x * y)
    data = [n for n in other.nodes if n.type == "Data"]
    data[0].attrs["index"] = (AttrType.INT, 2)  # Data 2 and 1: no Data 0
    graph = if_graph(branch("then", lambda x, y: x + y), other)
    session.add_graph(0, graph)
    with pytest.raises(CompileError) as info:
        session.compile_graph(0)
    text = str(info.value)
    assert "node 'if' (IfCustom): subgraph 'else_branch' (graph 'else_gap')" in text
    assert "Data node" in text and "numbered 0..1" in text, text


def test_a_branch_taking_more_inputs_than_the_op_passes_is_refused(
    session: Session,
) -> None:
    graph = if_graph(
        branch("then", lambda x, y: x + y),
        branch("else3", lambda x, y, z: x * y + z, inputs=3),
    )
    session.add_graph(0, graph)
    with pytest.raises(
        CompileError,
        match=r"subgraph 'else_branch' \(graph 'else3'\).*has 3 input\(s\), got 2",
    ):
        session.compile_graph(0)


def test_branches_giving_other_outputs_are_refused(session: Session) -> None:
    graph = if_graph(
        branch("then", lambda x, y: x + y), branch("else", lambda x, y: [x, y])
    )
    session.add_graph(0, graph)
    with pytest.raises(
        CompileError, match="every branch must give outputs of the same"
    ):
        session.compile_graph(0)


def test_an_output_num_other_than_the_branches_is_refused(session: Session) -> None:
    graph = if_graph(
        branch("t", lambda x, y: x + y), branch("e", lambda x, y: x), outputs=2
    )
    session.add_graph(0, graph)
    with pytest.raises(CompileError, match="give 1 output.*output_num 2"):
        session.compile_graph(0)


def test_a_removed_branch_is_refused(session: Session) -> None:
    graph = if_graph(branch("t", lambda x, y: x + y), branch("e", lambda x, y: x))
    graph.remove_subgraph("e")
    session.add_graph(0, graph)
    with pytest.raises(CompileError, match="subgraph 'e' .*was removed"):
        session.compile_graph(0)


def test_subgraphs_are_handed_only_by_name(session: Session) -> None:
    """A callback asking for a subgraph the node lacks is told which it has."""
    from ge.custom_op.subgraphs import SubgraphTable

    table = SubgraphTable("n", {})
    with pytest.raises(
        KeyError, match="node 'n' has no subgraph 'body' \\(its subgraphs: none\\)"
    ):
        table.get("body")
