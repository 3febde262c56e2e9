"""Finding a pattern in a graph (docs/compiler.md, "Matching").

Note [Pattern matching]: a pattern is a graph built with ge.es builders:
its Data nodes are the pattern's inputs (any tensor of the graph binds to
them; one input bound twice must be the same tensor), every other node
matches a node of the graph of the same type with the same number of input
slots, each slot's producer matched in turn (same output index; an absent
optional input only matches an absent one). A pattern Const matches any
Const (its value too with ``enable_const_value_match``); with
``enable_ir_attr_match`` the attrs the pattern node sets must be equal.
Matching starts at the producer of the pattern's first output and walks up
the inputs; outputs not reached that way are searched among the rest of
the graph. A match is kept only when it can be cut out: no value computed
inside it, other than the pattern's outputs, is read outside it or is a
graph output (a matched Const may be read elsewhere: it stays), and no
matched node has control edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ge.engine.passes.custom_api import PatternMatcherConfig
from ge.graph.graph import Edge, Graph, Node
from ge_ir.names import DATA_NODE_TYPES

CONST_TYPES = ("Const", "Constant")


@dataclass
class Binding:
    """Pattern node -> graph node, and pattern input index -> graph tensor."""

    nodes: dict[int, Node] = field(default_factory=dict)
    inputs: dict[int, Edge] = field(default_factory=dict)

    def copy(self) -> Binding:
        return Binding(dict(self.nodes), dict(self.inputs))


def is_data(node: Node) -> bool:
    return node.type in DATA_NODE_TYPES


def _data_index(node: Node) -> int:
    return int(node.attrs["index"][1])


def _same_value(a: Node, b: Node) -> bool:
    va, vb = a.attrs.get("value"), b.attrs.get("value")
    if va is None or vb is None:
        return False
    ta, tb = va[1], vb[1]
    return bool(
        ta.data_type == tb.data_type
        and tuple(ta.shape) == tuple(tb.shape)
        and np.array_equal(ta.numpy(), tb.numpy())
    )


def _node_fits(p: Node, t: Node, config: PatternMatcherConfig | None) -> bool:
    if p.type in CONST_TYPES:
        if t.type not in CONST_TYPES:
            return False
        return not (
            config and config.is_enable_const_value_match() and not _same_value(p, t)
        )
    if p.type != t.type or len(p.inputs) != len(t.inputs):
        return False
    if config and config.is_enable_ir_attr_match():
        return all(t.attrs.get(k) == v for k, v in p.attrs.items())
    return True


class Matcher:
    def __init__(
        self, pattern: Graph, graph: Graph, config: PatternMatcherConfig | None
    ) -> None:
        self.pattern = pattern
        self.graph = graph
        self.config = config
        self.readers: dict[int, list[Node]] = {id(n): [] for n in graph.nodes}
        for node in graph.nodes:
            for e in node.inputs:
                if e is not None and id(e.node) in self.readers:
                    self.readers[id(e.node)].append(node)
        self.controlled = {id(c) for n in graph.nodes for c in n.control_inputs}

    def node(self, p: Node, t: Node, b: Binding) -> Binding | None:
        if id(p) in b.nodes:
            return b if b.nodes[id(p)] is t else None
        if any(m is t for m in b.nodes.values()) or not _node_fits(p, t, self.config):
            return None
        b = b.copy()
        b.nodes[id(p)] = t
        for pe, te in zip(p.inputs, t.inputs):
            if pe is None or te is None:
                if pe is not te:
                    return None
                continue
            if is_data(pe.node):
                index = _data_index(pe.node)
                bound = b.inputs.get(index)
                if bound is None:
                    b.inputs[index] = te
                elif bound.node is not te.node or bound.index != te.index:
                    return None
                continue
            if pe.index != te.index:
                return None
            found = self.node(pe.node, te.node, b)
            if found is None:
                return None
            b = found
        return b

    def _outputs(self, k: int, b: Binding) -> Iterator[Binding]:
        if k == len(self.pattern.outputs):
            yield b
            return
        p, _ = self.pattern.outputs[k]
        if is_data(p):
            yield from self._outputs(k + 1, b)
            return
        candidates = [b.nodes[id(p)]] if id(p) in b.nodes else self.graph.nodes
        for t in candidates:
            found = self.node(p, t, b)
            if found is not None:
                yield from self._outputs(k + 1, found)

    def matches(self) -> Iterator[Binding]:
        """Every binding that matches and can be cut out (Note [Pattern
        matching]), in graph order of the first output's node."""
        for b in self._outputs(0, Binding()):
            if self._cuttable(b):
                yield b

    def _cuttable(self, b: Binding) -> bool:
        inside = {id(t) for t in b.nodes.values()}
        kept = {
            (id(b.nodes[id(p)]), i) for p, i in self.pattern.outputs if not is_data(p)
        }
        graph_outputs = {(id(n), i) for n, i in self.graph.outputs}
        for t in b.nodes.values():
            if t.type in CONST_TYPES:
                continue
            if t.control_inputs or id(t) in self.controlled:
                return False
            for i in range(max(len(t.outputs), 1)):
                if (id(t), i) in kept:
                    continue
                if (id(t), i) in graph_outputs:
                    return False
                for reader in self.readers[id(t)]:
                    reads = any(
                        e is not None and e.node is t and e.index == i
                        for e in reader.inputs
                    )
                    if reads and id(reader) not in inside:
                        return False
        return True


def first_match(
    pattern: Graph, graph: Graph, config: PatternMatcherConfig | None
) -> Iterator[Binding]:
    return Matcher(pattern, graph, config).matches()
