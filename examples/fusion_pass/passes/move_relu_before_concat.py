"""Relu after a concatenation moves before it: Relu(Concat(a, b)) becomes
Concat(Relu(a), Relu(b)) (GE's MoveReluBeforeConcatPass sample, here on
ConcatCustom), written as a FusionBasePass that finds the nodes itself and
cuts them out with a SubgraphBoundary and SubgraphRewriter."""

from __future__ import annotations

from ge.es import GraphBuilder
from ge.es.custom import ConcatCustom
from ge.es.math import Relu
from ge.graph import Graph, Node
from ge.passes import (
    FusionBasePass,
    PassContext,
    PassStage,
    SubgraphBoundary,
    SubgraphInput,
    SubgraphOutput,
    SubgraphRewriter,
    register_fusion_pass,
)


def readers(graph: Graph, node: Node) -> list[Node]:
    return [
        n
        for n in graph.nodes
        if any(e is not None and e.node is node for e in n.inputs)
    ]


def replacement(concat: Node) -> Graph:
    builder = GraphBuilder("replacement")
    relued = [Relu(builder.create_input(i)) for i in range(len(concat.inputs))]
    dim = concat.attrs.get("concat_dim", (None, 0))[1]
    return builder.build_and_reset([ConcatCustom(relued, concat_dim=dim)])


@register_fusion_pass(
    name="MoveReluBeforeConcatPass", stage=PassStage.BEFORE_INFER_SHAPE
)
class MoveReluBeforeConcatPass(FusionBasePass):
    def run(self, graph: Graph, context: PassContext) -> bool:
        for concat in [n for n in graph.nodes if n.type == "ConcatCustom"]:
            after = readers(graph, concat)
            outputs = {id(n) for n, _ in graph.outputs}
            if len(after) != 1 or after[0].type != "Relu" or id(concat) in outputs:
                continue
            boundary = SubgraphBoundary()
            for i in range(len(concat.inputs)):
                boundary.add_input(i, SubgraphInput([(concat, i)]))
            boundary.add_output(0, SubgraphOutput(after[0], 0))
            SubgraphRewriter.replace(boundary, replacement(concat), context=context)
        return True
