"""A control edge added with Graph.add_control_edge decides the order the
compiled graph runs its nodes in (ge/engine/graph_order.py), and removing it
with remove_edge(src, -1, dst, -1) gives the order back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import get_execute_ctx, register_op, register_op_impl
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import Graph, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import Session


@pytest.fixture
def probe(ge_api: GeApi, registries: None) -> Iterator[tuple[api.OpDef, list[int]]]:
    """An op whose execute records its ``tag`` attr, in the order nodes run."""
    calls: list[int] = []
    op = api.OpDef(
        unique("EditProbe"),
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
        attrs=(api.Attr("tag", "int", required=True),),
    )

    @register_op(op_type=op.op_type, output_names=("y",))
    def infer(x: TensorDesc, *, tag: int) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op.op_type)
    class Probe:
        def execute(self, x: RuntimeTensor, *, tag: int) -> None:
            calls.append(tag)
            get_execute_ctx().malloc_output_tensor(0, x.shape, x.format, x.data_type)

    yield op, calls


def probes(op: api.OpDef) -> Graph:
    builder = GraphBuilder(unique("order"))
    x = builder.create_input(0, name="x", shape=[2])
    outs = [op.build(inputs={"x": x}, attrs={"tag": t}, name=f"p{t}") for t in range(3)]
    return builder.build_and_reset(outs)


def run_order(op: api.OpDef, calls: list[int], graph: Graph) -> list[int]:
    calls.clear()
    session = Session()
    session.add_graph(1, graph)
    session.run_graph(1, [Tensor(np.zeros(2, np.float32))])
    return list(calls)


def test_control_edges_added_by_editing_order_the_run(
    probe: tuple[api.OpDef, list[int]],
) -> None:
    op, calls = probe
    assert run_order(op, calls, probes(op)) == [0, 1, 2]
    graph = probes(op)
    n: dict[str, Any] = {node.name: node for node in graph.nodes}
    graph.add_control_edge(n["p2"], n["p0"])
    graph.add_control_edge(n["p1"], n["p0"])
    assert run_order(op, calls, graph) == [1, 2, 0]
    graph = probes(op)
    n = {node.name: node for node in graph.nodes}
    graph.add_control_edge(n["p2"], n["p1"])
    graph.remove_edge(n["p2"], -1, n["p1"], -1)
    assert run_order(op, calls, graph) == [0, 1, 2]
    graph = probes(op)
    n = {node.name: node for node in graph.nodes}
    graph.add_control_edge(n["p2"], n["p1"])
    assert run_order(op, calls, graph) == [0, 2, 1]
