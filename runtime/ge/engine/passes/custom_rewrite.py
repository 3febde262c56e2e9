"""Rewriting the graph being compiled: a replacement graph spliced in place
of matched nodes, GE's SubgraphBoundary / SubgraphRewriter, ``can_fuse``,
``report_fuse`` and ``infer_shape`` (docs/compiler.md, "Writing passes").

Note [Splicing a replacement]: the replacement graph's Data node i reads
boundary input i (a tensor of the graph), its output j takes the place of
boundary output j: every reader of that tensor, and the graph output it
was, reads the replacement's output j instead (when that output is a Data
node, the boundary input itself: ``replacement(self, inputs): return
inputs[0]`` deletes the match). The replacement's other nodes are copied
into the graph (a name already taken gets ``<pass>/`` in front, then a
number); the replaced nodes are removed unless something outside still
reads them (a shared Const). A splice that would make a cycle is refused.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from ge.engine import infer
from ge.engine.errors import CompileError
from ge.engine.graph_order import topological_order
from ge.engine.passes.custom_api import MatchResult, NodeIo, PassContext
from ge.engine.passes.custom_match import is_data
from ge.graph.graph import Edge, Graph, Node, TensorMeta

_STATE = threading.local()  # the graph the running pass edits


def current_graph() -> Graph:
    graph: Graph | None = getattr(_STATE, "graph", None)
    if graph is None:
        raise RuntimeError("no pass is running: a graph is rewritten only by a pass")
    return graph


def set_current_graph(graph: Graph | None) -> None:
    _STATE.graph = graph


def copy_graph(graph: Graph) -> Graph:
    """A graph of copied nodes (the caller's graph is never rewritten)."""
    new: dict[int, Node] = {}
    for node in graph.nodes:
        new[id(node)] = dataclasses.replace(
            node,
            outputs=[m.copy() for m in node.outputs],
            attrs=dict(node.attrs),
            input_descs={i: m.copy() for i, m in node.input_descs.items()},
        )
    for node in new.values():
        node.inputs = [
            None if e is None else Edge(new[id(e.node)], e.index) for e in node.inputs
        ]
        node.control_inputs = [new[id(c)] for c in node.control_inputs]
    result = Graph(graph.name)
    result.attrs = dict(graph.attrs)
    result.nodes = [new[id(n)] for n in graph.nodes]
    result.outputs = [(new[id(n)], i) for n, i in graph.outputs]
    return result


def _meta_of(edge: Edge | NodeIo | None) -> TensorMeta | None:
    if edge is None or edge.index >= len(edge.node.outputs):
        return None
    return edge.node.outputs[edge.index]


def infer_metas(graph: Graph, data: Sequence[TensorMeta | None] = ()) -> None:
    """Fill each node's output metas in place, as far as they infer (a node
    that does not is left as it is). ``data[i]``: graph input i's meta."""
    for node in topological_order(graph):
        if is_data(node):
            index = node.attrs.get("index", (None, -1))[1]
            if isinstance(index, int) and 0 <= index < len(data):
                given = data[index]
                if given is not None and node.outputs:
                    node.outputs[0] = given.copy()
            continue
        if node.type in ("Const", "Constant", "Variable"):
            continue
        try:
            proto = infer.prototype_of(node)
            metas = [None if e is None else _meta_of(e) for e in node.inputs]
            node.outputs = infer.infer_op(node, proto, metas)
        except Exception:
            continue


def _unique(name: str, taken: set[str], prefix: str) -> str:
    if name not in taken:
        return name
    base = f"{prefix}/{name}"
    candidate, k = base, 1
    while candidate in taken:
        candidate, k = f"{base}_{k}", k + 1
    return candidate


def splice(
    graph: Graph,
    replacement: Graph,
    inputs: Sequence[Edge],
    outputs: Sequence[tuple[Node, int]],
    removed: Iterable[Node],
    prefix: str,
) -> list[Node]:
    """Note [Splicing a replacement]; the nodes added."""
    if not replacement.nodes:
        raise ValueError(f"replacement graph '{replacement.name}' is empty")
    if len(replacement.outputs) != len(outputs):
        raise ValueError(
            f"replacement graph '{replacement.name}' has {len(replacement.outputs)} "
            f"output(s); the part it replaces has {len(outputs)}"
        )
    taken = {n.name for n in graph.nodes}
    copies: dict[int, Node] = {}
    added: list[Node] = []

    def source(edge: Edge) -> Edge:
        if is_data(edge.node):
            index = int(edge.node.attrs["index"][1])
            if index >= len(inputs):
                raise ValueError(
                    f"replacement input {index} does not exist; the part it replaces "
                    f"has {len(inputs)} input(s)"
                )
            return inputs[index]
        return Edge(copies[id(edge.node)], edge.index)

    for node in topological_order(replacement):
        if is_data(node):
            continue
        name = _unique(node.name, taken, prefix)
        taken.add(name)
        copy = dataclasses.replace(
            node,
            name=name,
            outputs=[m.copy() for m in node.outputs],
            attrs=dict(node.attrs),
            control_inputs=[],
            input_descs={i: m.copy() for i, m in node.input_descs.items()},
        )
        copy.inputs = [None if e is None else source(e) for e in node.inputs]
        copies[id(node)] = copy
        added.append(copy)
    new_tensor = {
        (id(old), i): source(Edge(n, k))
        for (old, i), (n, k) in zip(outputs, replacement.outputs)
    }
    gone = {id(n) for n in removed}
    for node in graph.nodes:
        if id(node) in gone:
            continue
        node.inputs = [
            None if e is None else new_tensor.get((id(e.node), e.index), e)
            for e in node.inputs
        ]
    graph.outputs = [
        (lambda e: (e.node, e.index))(new_tensor.get((id(n), i), Edge(n, i)))
        for n, i in graph.outputs
    ]
    kept = [n for n in graph.nodes if id(n) not in gone]
    still_read = {id(e.node) for n in kept + added for e in n.inputs if e is not None}
    still_read |= {id(n) for n, _ in graph.outputs}
    before = list(graph.nodes)
    graph.nodes = [
        n for n in graph.nodes if id(n) not in gone or id(n) in still_read
    ] + added
    try:
        graph.nodes = topological_order(graph)
    except CompileError as exc:
        graph.nodes = before
        raise ValueError(f"the replacement would make a cycle: {exc}") from None
    return added


# -- GE's SubgraphBoundary / SubgraphRewriter ---------------------------------------


class SubgraphInput:
    """One boundary input: input slots ``(node, in_index)`` of nodes inside
    the subgraph, all reading the same tensor."""

    def __init__(self, node_inputs: Iterable[tuple[Node, int]] = ()) -> None:
        self.anchors: list[tuple[Node, int]] = []
        for node, index in node_inputs:
            self.add_input(node, index)

    def add_input(self, node: Node, out_index: int) -> int:
        self.anchors.append((node, int(out_index)))
        return 0


class SubgraphOutput:
    """One boundary output: output ``out_index`` of a node inside."""

    def __init__(self, node: Node | None = None, out_index: int = 0) -> None:
        self.anchor: tuple[Node, int] | None = None
        if node is not None:
            self.set_output(node, out_index)

    def set_output(self, node: Node, out_index: int) -> int:
        self.anchor = (node, int(out_index))
        return 0


class SubgraphBoundary:
    def __init__(self) -> None:
        self.inputs: dict[int, SubgraphInput] = {}
        self.outputs: dict[int, SubgraphOutput] = {}

    def add_input(self, index: int, input: SubgraphInput) -> int:
        self.inputs[int(index)] = input
        return 0

    def add_output(self, index: int, output: SubgraphOutput) -> int:
        self.outputs[int(index)] = output
        return 0

    def resolve(self) -> tuple[list[Edge], list[tuple[Node, int]], list[Node]]:
        """(boundary input tensors, boundary outputs, the nodes inside)."""
        if sorted(self.inputs) != list(range(len(self.inputs))) or sorted(
            self.outputs
        ) != list(range(len(self.outputs))):
            raise ValueError("boundary inputs and outputs are numbered 0..n-1")
        tensors: list[Edge] = []
        cut: set[tuple[int, int]] = set()
        for i in range(len(self.inputs)):
            anchors = self.inputs[i].anchors
            if not anchors:
                raise ValueError(f"boundary input {i} has no input slot")
            feeds = set()
            for node, slot in anchors:
                edge = node.inputs[slot] if slot < len(node.inputs) else None
                if edge is None:
                    raise ValueError(
                        f"boundary input {i}: input {slot} of '{node.name}' is not "
                        "connected"
                    )
                feeds.add((id(edge.node), edge.index))
                cut.add((id(node), slot))
            if len(feeds) != 1:
                raise ValueError(f"boundary input {i}'s slots read different tensors")
            tensors.append(anchors[0][0].inputs[anchors[0][1]])  # type: ignore[arg-type]
        outs = []
        for j in range(len(self.outputs)):
            anchor = self.outputs[j].anchor
            if anchor is None:
                raise ValueError(f"boundary output {j} is not set")
            outs.append(anchor)
        inside: dict[int, Node] = {}
        stack = [n for n, _ in outs]
        while stack:
            node = stack.pop()
            if id(node) in inside:
                continue
            inside[id(node)] = node
            for slot, e in enumerate(node.inputs):
                if e is not None and (id(node), slot) not in cut:
                    stack.append(e.node)
        return tensors, outs, list(inside.values())


class SubgraphRewriter:
    @staticmethod
    def replace(
        boundary: SubgraphBoundary,
        replacement: Graph,
        *,
        context: PassContext | None = None,
    ) -> int:
        """Replace the subgraph ``boundary`` delimits by ``replacement``
        (Note [Splicing a replacement]). With ``context``: checked with
        can_fuse first and reported with report_fuse (RuntimeError on a
        failure); without: 0 on success, 1 on failure."""
        graph = current_graph()
        try:
            inputs, outputs, inside = boundary.resolve()
            if context is not None:
                ok, why = can_fuse(inside)
                if not ok:
                    raise ValueError(why)
            name = context.get_pass_name() if context else "rewrite"
            added = splice(graph, replacement, inputs, outputs, inside, name)
        except (ValueError, IndexError) as exc:
            if context is None:
                return 1
            raise RuntimeError(f"SubgraphRewriter.replace: {exc}") from None
        if context is not None:
            report_fuse(inside, added, context)
        return 0


def can_fuse(nodes: Iterable[Node]) -> tuple[bool, str]:
    """Whether ``nodes`` (connected) could become one node without a cycle:
    (ok, the reason when not)."""
    group = list(nodes)
    ids = {id(n) for n in group}
    if not group:
        return False, "no nodes"
    parent = {i: i for i in ids}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for n in group:
        for e in n.inputs:
            if e is not None and id(e.node) in ids:
                parent[root(id(n))] = root(id(e.node))
    if len({root(i) for i in ids}) != 1:
        return False, "the nodes are not connected"
    for n in group:
        producers = [e.node for e in n.inputs if e is not None] + n.control_inputs
        stack = [p for p in producers if id(p) not in ids]
        seen: set[int] = set()
        while stack:
            p = stack.pop()
            if id(p) in seen:
                continue
            seen.add(id(p))
            for q in [e.node for e in p.inputs if e is not None] + p.control_inputs:
                if id(q) in ids:
                    return False, (
                        f"'{q.name}' reaches '{n.name}' through '{p.name}', outside "
                        "the nodes: fusing them would make a cycle"
                    )
                stack.append(q)
    return True, ""


def report_fuse(
    nodes_before: Iterable[Node], nodes_after: Iterable[Node], context: PassContext
) -> None:
    """Record a rewrite done by ``context``'s pass: counted in
    fusion_result.json, and the new nodes carry the pass's name."""
    after = list(nodes_after)
    for node in after:
        node.set_attr("_fusion_pass_name", context.get_pass_name())
    context.reports.append((list(nodes_before), after))


def infer_shape(replacement: Graph, source: Any) -> None:
    """Fill the replacement graph's metas from what it replaces: its Data
    node i takes the meta of the matched subgraph's input i (of the node's
    input i, for a Node), then every node is inferred."""
    if not isinstance(replacement, Graph):
        raise TypeError("replacement must be a ge.graph.Graph")
    if not replacement.nodes:
        raise RuntimeError("replacement graph is empty")
    feeds: list[Edge | NodeIo | None]
    if isinstance(source, MatchResult):
        feeds = list(source.boundary_inputs)
    elif isinstance(source, Node):
        feeds = list(source.inputs)
    elif isinstance(source, SubgraphBoundary):
        feeds = list(source.resolve()[0])
    else:
        raise TypeError("source must be MatchResult, Node, or SubgraphBoundary")
    infer_metas(replacement, [_meta_of(f) for f in feeds])
