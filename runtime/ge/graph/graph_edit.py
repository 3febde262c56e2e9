"""Editing a graph's nodes and edges: GE's ``Graph.remove_node``,
``remove_edge``, ``add_data_edge`` and ``add_control_edge``.

Every edit is checked in full before anything changes, so a refused edit
leaves the graph as it was (Note [Graph edits]).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ge.graph.graph import Graph, Node

__all__ = [
    "GraphEditError",
    "add_control_edge",
    "add_data_edge",
    "is_vacant",
    "remove_edge",
    "remove_node",
]


class GraphEditError(RuntimeError, ValueError):
    """A graph edit that was refused. A RuntimeError, as GE's Python API
    raises for a failed edit, and a ValueError, as the arguments are wrong;
    the graph is unchanged."""


# Note [Graph edits]: the semantics follow GE's ge::Graph (metadef's
# normal_graph sources: Graph::RemoveNode and its neighbours):
#
# - remove_node(node): the node must be a direct node of this graph. GE
#   unlinks every edge of the node (NodeUtils::UnlinkAll) and removes it,
#   without relinking: a reader of its outputs keeps its input slot, now
#   unconnected, and a graph output it produced is gone. We do the same: the
#   readers' slots become unconnected (the compiler names any required input
#   left so), control edges from and to it are dropped, and graph outputs it
#   produced are removed from Graph.outputs (the others keep their order).
#   A node's subgraphs leave with it.
# - remove_edge(src, src_port, dst, dst_port): (-1, -1) removes the control
#   edge src -> dst; a data port pair removes the data edge from output
#   src_port to input dst_port. GE refuses src_port -1 with a data dst_port;
#   a data output to a control input does not exist here either.
# - add_data_edge(src, src_port, dst, dst_port): GE links the out data anchor
#   to the in data anchor, which fails when the input already has a peer;
#   ports out of range fail (no anchor).
# - add_control_edge(src, dst).
#
# Beyond GE, which checks none of this when an edge is added (a cycle is found
# only when the graph is compiled): both nodes must be direct nodes of this
# graph, a node cannot feed itself, an edge that would close a cycle (through
# data or control edges) is refused, and a control edge that already exists is
# refused (GE's anchors refuse a second link to the same peer).


def _where(graph: Graph) -> str:
    return f"graph '{graph.name}'"


def _check_node(graph: Graph, node: object, what: str) -> Node:
    from ge.graph.graph import Node

    if not isinstance(node, Node):
        raise TypeError(f"{what} must be a Node, got {type(node).__name__}")
    if not any(n is node for n in graph.nodes):
        owner = "no graph" if not _in_any_subgraph(graph, node) else "a subgraph"
        raise GraphEditError(
            f"{what} '{node.name}' is not a node of {_where(graph)} (it is in "
            f"{owner}); edit the graph that holds it (graph.get_subgraph(name) "
            "for a subgraph's nodes)"
        )
    return node


def _in_any_subgraph(graph: Graph, node: Node) -> bool:
    return any(n is node for n in graph.get_all_nodes())


def _check_port(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}")
    return value


def _check_edge(
    graph: Graph, src_node: object, src_port: object, dst_node: object, dst_port: object
) -> tuple[Node, int, Node, int]:
    """An edge's four arguments, each checked (in GE's parameter order)."""
    return (
        _check_node(graph, src_node, "src_node"),
        _check_port(src_port, "src_port_index"),
        _check_node(graph, dst_node, "dst_node"),
        _check_port(dst_port, "dst_port_index"),
    )


def _data_ports(
    graph: Graph, src: Node, src_port: int, dst: Node, dst_port: int
) -> None:
    if not 0 <= src_port < len(src.outputs):
        raise GraphEditError(
            f"{_where(graph)}: src_port_index {src_port} is out of range: node "
            f"'{src.name}' has {len(src.outputs)} output(s), ports "
            f"0..{len(src.outputs) - 1}"
        )
    if not 0 <= dst_port < len(dst.inputs):
        raise GraphEditError(
            f"{_where(graph)}: dst_port_index {dst_port} is out of range: node "
            f"'{dst.name}' has {len(dst.inputs)} input slot(s), ports "
            f"0..{len(dst.inputs) - 1}"
        )


def _upstream(start: Node, target: Node) -> bool:
    """Whether ``target`` feeds ``start``, through data or control edges."""
    seen: set[int] = set()
    stack = [start]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(e.node for e in node.inputs if e is not None)
        stack.extend(node.control_inputs)
    return False


def _refuse_loop(graph: Graph, src: Node, dst: Node, kind: str) -> None:
    if src is dst:
        raise GraphEditError(
            f"{_where(graph)}: a {kind} edge from node '{src.name}' to itself "
            "would make a cycle; a node cannot depend on itself"
        )
    if _upstream(src, dst):
        raise GraphEditError(
            f"{_where(graph)}: a {kind} edge from '{src.name}' to '{dst.name}' "
            f"would make a cycle, as '{dst.name}' already feeds '{src.name}'; "
            "remove an edge of that path first, or connect the other way"
        )


def add_data_edge(
    graph: Graph,
    src_node: Node,
    src_port_index: int,
    dst_node: Node,
    dst_port_index: int,
) -> None:
    from ge.graph.graph import Edge

    src, src_port, dst, dst_port = _check_edge(
        graph, src_node, src_port_index, dst_node, dst_port_index
    )
    _data_ports(graph, src, src_port, dst, dst_port)
    fed = dst.inputs[dst_port]
    if fed is not None:
        raise GraphEditError(
            f"{_where(graph)}: input {dst_port} of node '{dst.name}' is already "
            f"fed by '{fed.node.name}':{fed.index}; an input has one producer: "
            f"remove_edge(<'{fed.node.name}'>, {fed.index}, <'{dst.name}'>, "
            f"{dst_port}) first"
        )
    _refuse_loop(graph, src, dst, "data")
    dst.inputs[dst_port] = Edge(src, src_port)


def add_control_edge(graph: Graph, src_node: Node, dst_node: Node) -> None:
    src = _check_node(graph, src_node, "src_node")
    dst = _check_node(graph, dst_node, "dst_node")
    if any(c is src for c in dst.control_inputs):
        raise GraphEditError(
            f"{_where(graph)}: node '{dst.name}' already has a control edge from "
            f"'{src.name}'; it is added once"
        )
    _refuse_loop(graph, src, dst, "control")
    dst.control_inputs.append(src)


def remove_edge(
    graph: Graph,
    src_node: Node,
    src_port_index: int,
    dst_node: Node,
    dst_port_index: int,
) -> None:
    src, src_port, dst, dst_port = _check_edge(
        graph, src_node, src_port_index, dst_node, dst_port_index
    )
    if src_port == -1 and dst_port == -1:
        for i, control in enumerate(dst.control_inputs):
            if control is src:
                del dst.control_inputs[i]
                return
        raise GraphEditError(
            f"{_where(graph)}: there is no control edge from '{src.name}' to "
            f"'{dst.name}' to remove (a data edge is removed with its port indices)"
        )
    if src_port == -1 or dst_port == -1:
        raise GraphEditError(
            f"{_where(graph)}: port indices ({src_port}, {dst_port}) name no edge: "
            "a control edge is removed with (-1, -1), a data edge with both port "
            "indices; there are no edges between a data port and a control port"
        )
    _data_ports(graph, src, src_port, dst, dst_port)
    edge = dst.inputs[dst_port]
    if edge is None or edge.node is not src or edge.index != src_port:
        now = (
            "is not connected"
            if edge is None
            else f"is fed by '{edge.node.name}':{edge.index}"
        )
        raise GraphEditError(
            f"{_where(graph)}: there is no data edge from '{src.name}':{src_port} "
            f"to '{dst.name}':{dst_port} to remove; that input {now}"
        )
    dst.inputs[dst_port] = None


def remove_node(graph: Graph, node: Node) -> None:
    target = _check_node(graph, node, "node")
    for other in graph.nodes:
        if other is target:
            continue
        other.inputs[:] = [
            None if e is not None and e.node is target else e for e in other.inputs
        ]
        other.control_inputs[:] = [c for c in other.control_inputs if c is not target]
    graph.outputs[:] = [(n, i) for n, i in graph.outputs if n is not target]
    graph.nodes[:] = [n for n in graph.nodes if n is not target]
    target.inputs[:] = [None] * len(target.inputs)
    target.control_inputs.clear()
    for graphs in target.subgraphs.values():
        for sub in graphs:
            if sub.owner is target:
                sub._owner = None


def is_vacant(graph: Graph) -> bool:
    """Whether ``graph`` stands for a subgraph removed from its node's slot
    (ge/graph/subgraph_edit.py)."""
    return getattr(graph, "vacant", False) is True
