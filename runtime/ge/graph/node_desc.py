"""What a graph pass asks a node beyond its own fields: its consumers (which
need the graph the node is in) and its tensor descs as ge.graph.TensorDesc.

Note [A node's graph]: a Node holds its producers (``inputs``) but not its
consumers; GE's ``get_out_data_nodes_and_port_indexes`` and
``get_out_control_nodes`` look through the graph that holds the node. A
node learns that graph when a Graph query hands it out (get_direct_nodes,
get_all_nodes, find_node_by_name) or when it is reached from such a node
(get_in_data_nodes_and_port_indexes, get_out_data_nodes_and_port_indexes);
the graph is held weakly. A node that was never handed out by a graph, or
that its graph no longer holds (remove_node), is refused with a
RuntimeError that says so. Consumers are listed in the graph's node order,
then input slot order. A graph output is not a node here (GE has a
NetOutput node for them), so a node whose only reader is the graph output
lists no consumer.

Note [Tensor descs of a node]: an output desc is the node's output meta
(``Node.outputs``); ``update_output_desc`` replaces it. An input desc is the
producer's output meta, overlaid by what ``update_input_desc`` set (kept in
``Node.input_descs``): the format and origin format set there are kept,
while a connected input's shape and dtype stay its producer's, as GE's shape
inference refreshes them from the peer output. A TensorMeta has one format;
it is the origin format of the desc (what layout-reading ops such as
Conv2D use), and an unknown-rank shape (None) is GE's ``[-2]``.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from ge.graph.tensor_desc import UNKNOWN_DIM_NUM, TensorDesc
from ge.graph.types import DataType

if TYPE_CHECKING:
    from ge.graph.graph import Graph, Node, TensorMeta

_OWNER = "_ge_owner_graph"  # the attribute a handed-out node keeps


def bind(graph: Graph, nodes: list[Node]) -> list[Node]:
    """Record ``graph`` as the graph of ``nodes`` (Note [A node's graph])."""
    ref = weakref.ref(graph)
    for node in nodes:
        object.__setattr__(node, _OWNER, ref)
    return nodes


def owner_of(node: Node) -> Graph:
    ref = getattr(node, _OWNER, None)
    graph = ref() if ref is not None else None
    if graph is None:
        raise RuntimeError(
            f"node '{node.name}' was not handed out by a graph, so its consumers "
            "are unknown; get it from Graph.get_direct_nodes() or "
            "Graph.find_node_by_name()"
        )
    if not any(n is node for n in graph.nodes):
        raise RuntimeError(
            f"node '{node.name}' is no longer in graph '{graph.name}' (it was "
            "removed or replaced); its consumers are unknown"
        )
    return graph


def same_graph(node: Node, other: Node) -> Node:
    """``other``, bound to ``node``'s graph when ``node`` knows one."""
    ref = getattr(node, _OWNER, None)
    if ref is not None and ref() is not None:
        object.__setattr__(other, _OWNER, ref)
    return other


def out_data_nodes(node: Node, out_index: int) -> list[tuple[Node, int]]:
    """The (consumer, input slot) pairs reading output ``out_index``."""
    _check_index(out_index, "output index")
    graph = owner_of(node)
    if not 0 <= out_index < len(node.outputs):
        raise RuntimeError(
            f"node '{node.name}' has {len(node.outputs)} output(s); output "
            f"{out_index} does not exist"
        )
    found = [
        (consumer, slot)
        for consumer in graph.nodes
        for slot, edge in enumerate(consumer.inputs)
        if edge is not None and edge.node is node and edge.index == out_index
    ]
    bind(graph, [c for c, _ in found])
    return found


def out_control_nodes(node: Node) -> list[Node]:
    graph = owner_of(node)
    found = [n for n in graph.nodes if any(c is node for c in n.control_inputs)]
    return bind(graph, found)


def _check_index(index: object, what: str) -> None:
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"{what} must be an int, got {type(index).__name__}")


def desc_of(meta: TensorMeta) -> TensorDesc:
    shape = [UNKNOWN_DIM_NUM] if meta.shape is None else list(meta.shape)
    dtype = meta.dtype if meta.dtype is not DataType.DT_UNDEFINED else DataType.DT_FLOAT
    return TensorDesc(shape, meta.format, dtype)


def meta_of(desc: TensorDesc) -> TensorMeta:
    from ge.graph.graph import TensorMeta

    if not isinstance(desc, TensorDesc):
        raise TypeError(
            f"tensor_desc must be a ge.graph.TensorDesc, got {type(desc).__name__}"
        )
    dims = list(desc.origin_shape)
    shape = None if dims == [UNKNOWN_DIM_NUM] else tuple(dims)
    return TensorMeta(shape, desc.data_type, desc.origin_format)


def input_desc(node: Node, index: int) -> TensorDesc:
    _check_index(index, "input index")
    if not 0 <= index < len(node.inputs):
        raise RuntimeError(
            f"node '{node.name}' has {len(node.inputs)} input(s); input {index} "
            "does not exist"
        )
    edge = node.inputs[index]
    meta = None
    if edge is not None and edge.index < len(edge.node.outputs):
        meta = edge.node.outputs[edge.index].copy()
    override = node.input_descs.get(index)
    if override is not None:
        if meta is None:
            meta = override.copy()
        else:
            meta.format = override.format
    if meta is None:
        raise RuntimeError(
            f"input {index} of node '{node.name}' is not connected and has no desc"
        )
    return desc_of(meta)


def update_input_desc(node: Node, index: int, desc: TensorDesc) -> None:
    _check_index(index, "input index")
    if not 0 <= index < len(node.inputs):
        raise RuntimeError(
            f"node '{node.name}' has {len(node.inputs)} input(s); input {index} "
            "does not exist"
        )
    node.input_descs[index] = meta_of(desc)


def output_desc(node: Node, index: int) -> TensorDesc:
    _check_index(index, "output index")
    if not 0 <= index < len(node.outputs):
        raise RuntimeError(
            f"node '{node.name}' has {len(node.outputs)} output(s); output {index} "
            "does not exist"
        )
    return desc_of(node.outputs[index])


def update_output_desc(node: Node, index: int, desc: TensorDesc) -> None:
    _check_index(index, "output index")
    if not 0 <= index < len(node.outputs):
        raise RuntimeError(
            f"node '{node.name}' has {len(node.outputs)} output(s); output {index} "
            "does not exist"
        )
    node.outputs[index] = meta_of(desc)


__all__ = [
    "bind",
    "desc_of",
    "input_desc",
    "meta_of",
    "out_control_nodes",
    "out_data_nodes",
    "output_desc",
    "owner_of",
    "same_graph",
    "update_input_desc",
    "update_output_desc",
]
