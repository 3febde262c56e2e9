"""Sigmoid decomposed into the ops it is made of: 1 / (1 + exp(-x)), a
DecomposePass for one op type (GE's decompose sample splits a grouped
Conv2D; the CPU math library has no convolution)."""

from __future__ import annotations

from ge.es import GraphBuilder
from ge.es.math import Exp, Neg
from ge.graph import Graph, Node
from ge.passes import (
    DecomposePass,
    PassStage,
    infer_shape,
    register_decompose_pass,
)


@register_decompose_pass(
    name="DecomposeSigmoidPass", stage=PassStage.AFTER_INFER_SHAPE, op_types=["Sigmoid"]
)
class DecomposeSigmoidPass(DecomposePass):
    def replacement(self, node: Node) -> Graph:
        builder = GraphBuilder("replacement")
        x = builder.create_input(0)
        graph = builder.build_and_reset([1.0 / (Exp(Neg(x)) + 1.0)])
        infer_shape(graph, node)  # the replacement's metas, from the node's input
        return graph
