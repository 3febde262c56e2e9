"""Random edits of small math graphs (hypothesis): each edit is either done,
with exactly the effect a plain model of the graph predicts, or refused with
GraphEditError and the graph unchanged; after the edits (and reconnecting
inputs left unconnected), compiling and running gives numpy's answer for
the edited structure."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from math_harness import math_session, run

from ge.engine.graph_order import topological_order
from ge.es import GraphBuilder
from ge.es.math import Add, Mul, Neg, Sub
from ge.graph import Graph, Node
from ge.graph.graph_edit import GraphEditError
from ge.session import Session

OPS: dict[str, tuple[Callable[..., Any], Callable[..., np.ndarray], int]] = {
    "Add": (Add, np.add, 2),
    "Sub": (Sub, np.subtract, 2),
    "Mul": (Mul, np.multiply, 2),
    "Neg": (Neg, np.negative, 1),
}
INPUTS = [
    np.array([1.0, -2.0, 3.0], np.float32),
    np.array([4.0, 0.5, -1.0], np.float32),
]

# A model of the structure: node name -> (input slots, control input names),
# and the graph outputs, all by name.
Model = tuple[
    dict[str, tuple[list[tuple[str, int] | None], list[str]]], list[tuple[str, int]]
]


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with math_session() as s:
        yield s


@st.composite
def base_graph_specs(draw: st.DrawFn) -> tuple[list[tuple[str, list[int]]], list[int]]:
    ops: list[tuple[str, list[int]]] = []
    for k in range(draw(st.integers(2, 5))):
        op = draw(st.sampled_from(sorted(OPS)))
        ops.append((op, [draw(st.integers(0, 1 + k)) for _ in range(OPS[op][2])]))
    outputs = draw(st.lists(st.integers(2, 1 + len(ops)), min_size=1, max_size=2))
    return ops, outputs


def build(spec: tuple[list[tuple[str, list[int]]], list[int]]) -> Graph:
    ops, outputs = spec
    builder = GraphBuilder("edited")
    tensors = [builder.create_input(i, name=f"x{i}", shape=[3]) for i in range(2)]
    for k, (op, args) in enumerate(ops):
        tensors.append(OPS[op][0](*[tensors[a] for a in args], name=f"n{k}"))
    return builder.build_and_reset([tensors[i] for i in outputs])


def snapshot(graph: Graph) -> Model:
    nodes = {
        node.name: (
            [None if e is None else (e.node.name, e.index) for e in node.inputs],
            [c.name for c in node.control_inputs],
        )
        for node in graph.nodes
    }
    return nodes, [(n.name, i) for n, i in graph.outputs]


def feeds(model: Model, start: str, target: str) -> bool:
    """Whether ``start`` reaches ``target`` along data or control edges
    (the test's own walk, forward from producers to readers)."""
    nodes = model[0]
    readers: dict[str, set[str]] = {name: set() for name in nodes}
    for name, (inputs, controls) in nodes.items():
        for producer in [e[0] for e in inputs if e is not None] + controls:
            readers[producer].add(name)
    seen, stack = set(), [start]
    while stack:
        name = stack.pop()
        if name == target:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(readers[name])
    return False


def predict(model: Model, edit: tuple[Any, ...], graph: Graph) -> Model | None:
    """The structure after ``edit``, or None when it must be refused."""
    nodes = {k: (list(v[0]), list(v[1])) for k, v in model[0].items()}
    outputs = list(model[1])
    kind, *args = edit
    if kind == "remove_node":
        (victim,) = args
        del nodes[victim]
        for inputs, controls in nodes.values():
            inputs[:] = [
                None if e is not None and e[0] == victim else e for e in inputs
            ]
            controls[:] = [c for c in controls if c != victim]
        return nodes, [o for o in outputs if o[0] != victim]
    if kind == "add_control_edge":
        src, dst = args
        if src == dst or src in nodes[dst][1] or feeds(model, dst, src):
            return None
        nodes[dst][1].append(src)
        return nodes, outputs
    src, sp, dst, dp = args
    n_outputs = len(_node(graph, src).outputs)
    inputs = nodes[dst][0]
    if kind == "add_data_edge":
        if (
            not (0 <= sp < n_outputs and 0 <= dp < len(inputs))
            or inputs[dp] is not None
        ):
            return None
        if src == dst or feeds(model, dst, src):
            return None
        inputs[dp] = (src, sp)
        return nodes, outputs
    assert kind == "remove_edge"
    if sp == -1 and dp == -1:
        if src not in nodes[dst][1]:
            return None
        nodes[dst][1].remove(src)
        return nodes, outputs
    if not (0 <= sp < n_outputs and 0 <= dp < len(inputs)) or inputs[dp] != (src, sp):
        return None
    inputs[dp] = None
    return nodes, outputs


def _node(graph: Graph, name: str) -> Node:
    node = graph.find_node_by_name(name)
    assert node is not None
    return node


def apply(graph: Graph, edit: tuple[Any, ...]) -> None:
    kind, *args = edit
    if kind == "remove_node":
        graph.remove_node(_node(graph, args[0]))
    elif kind == "add_control_edge":
        graph.add_control_edge(_node(graph, args[0]), _node(graph, args[1]))
    else:
        src, sp, dst, dp = args
        getattr(graph, kind)(_node(graph, src), sp, _node(graph, dst), dp)


def concrete(graph: Graph, raw: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """A drawn edit with node numbers made node names of the graph as it is."""
    names = [n.name for n in graph.nodes]
    ops = [n.name for n in graph.nodes if n.type in OPS]
    kind, *args = raw
    if kind == "remove_node":
        return None if len(ops) < 2 else (kind, ops[args[0] % len(ops)])
    if kind == "add_control_edge":
        return (kind, names[args[0] % len(names)], names[args[1] % len(names)])
    if kind == "rewire":  # remove the data edge feeding a slot, as it is
        node = _node(graph, ops[args[0] % len(ops)])
        edge = node.inputs[args[1] % len(node.inputs)]
        if edge is None:
            return None
        return (
            "remove_edge",
            edge.node.name,
            edge.index,
            node.name,
            node.inputs.index(edge),
        )
    if kind == "fill":  # connect the first unconnected input of an op node
        open_slots = [
            (n.name, i)
            for n in graph.nodes
            for i, e in enumerate(n.inputs)
            if e is None
        ]
        if not open_slots:
            return None
        dst, slot = open_slots[args[1] % len(open_slots)]
        return ("add_data_edge", names[args[0] % len(names)], 0, dst, slot)
    src, sp, dst, dp = args
    return (kind, names[src % len(names)], sp, names[dst % len(names)], dp)


node_no = st.integers(0, 12)
port = st.integers(-1, 2)
edits = st.lists(
    st.one_of(
        st.tuples(st.just("remove_node"), node_no),
        st.tuples(st.just("add_control_edge"), node_no, node_no),
        st.tuples(st.just("rewire"), node_no, st.integers(0, 1)),
        st.tuples(st.just("fill"), node_no, node_no),
        st.tuples(st.just("add_data_edge"), node_no, port, node_no, port),
        st.tuples(st.just("remove_edge"), node_no, port, node_no, port),
    ),
    min_size=4,
    max_size=12,
)


def repair(graph: Graph) -> None:
    """Feed every unconnected input from x0, after dropping control edges into
    the Data nodes (so that no cycle can form), and give the graph an output."""
    data = [n for n in graph.nodes if n.type == "Data"]
    for node in data:
        for control in list(node.control_inputs):
            graph.remove_edge(control, -1, node, -1)
    for node in graph.nodes:
        for slot, edge in enumerate(node.inputs):
            if edge is None:
                graph.add_data_edge(data[0], 0, node, slot)
    if not graph.outputs:
        graph.outputs.append(([n for n in graph.nodes if n.type in OPS][-1], 0))


def expected(graph: Graph) -> list[np.ndarray]:
    values: dict[int, np.ndarray] = {}
    for node in topological_order(graph):
        if node.type == "Data":
            values[id(node)] = INPUTS[int(node.get_attr("index"))]
        else:
            args = [values[id(e.node)] for e in node.inputs if e is not None]
            values[id(node)] = OPS[node.type][1](*args)
    return [values[id(n)] for n, _ in graph.outputs]


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(spec=base_graph_specs(), raw_edits=edits)
def test_random_edits_keep_the_graph_valid_or_are_refused(
    session: Session,
    spec: tuple[list[tuple[str, list[int]]], list[int]],
    raw_edits: list[tuple[Any, ...]],
) -> None:
    graph = build(spec)
    for raw in raw_edits:
        edit = concrete(graph, raw)
        if edit is None:
            continue
        before = snapshot(graph)
        after = predict(before, edit, graph)
        if after is None:
            with pytest.raises(GraphEditError):
                apply(graph, edit)
            assert snapshot(graph) == before, edit
        else:
            apply(graph, edit)
            assert snapshot(graph) == after, edit
            topological_order(graph)  # no cycle
    repair(graph)
    outputs = run(session, graph, INPUTS)
    for got, want in zip(outputs, expected(graph), strict=True):
        np.testing.assert_array_equal(got, want)
