"""A run order of a graph's nodes: data edges and control edges respected."""

from __future__ import annotations

from ge.engine.errors import CompileError
from ge.graph.graph import Graph, Node


def topological_order(graph: Graph) -> list[Node]:
    """Nodes so that every producer comes before its readers; ties keep the
    order nodes were added. CompileError on a cycle or a foreign node."""
    index = {id(node): i for i, node in enumerate(graph.nodes)}
    readers: dict[int, list[Node]] = {id(n): [] for n in graph.nodes}
    pending: dict[int, int] = {}
    for node in graph.nodes:
        producers = {id(e.node) for e in node.inputs if e is not None}
        producers |= {id(c) for c in node.control_inputs}
        for producer in producers:
            if producer not in index:
                raise CompileError(
                    f"node '{node.name}' reads from a node that is not in graph "
                    f"'{graph.name}'"
                )
            readers[producer].append(node)
        pending[id(node)] = len(producers)
    import heapq

    ready = [(index[id(n)], n) for n in graph.nodes if pending[id(n)] == 0]
    heapq.heapify(ready)
    order: list[Node] = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for reader in readers[id(node)]:
            pending[id(reader)] -= 1
            if pending[id(reader)] == 0:
                heapq.heappush(ready, (index[id(reader)], reader))
    if len(order) != len(graph.nodes):
        stuck = [n.name for n in graph.nodes if pending[id(n)] > 0]
        raise CompileError(
            f"graph '{graph.name}' has a cycle through {', '.join(stuck[:5])}"
        )
    return order
