"""A user program mypy checks against the installed wheels (tests/packaging)."""

from es_custom import ShipAddCustom

from ge.es import GraphBuilder, TensorHolder
from ge.es.math import Relu
from ge.graph import Graph


def build() -> Graph:
    builder = GraphBuilder("typed")
    x = builder.create_input(0, shape=[64])
    z: TensorHolder = ShipAddCustom(x, x, name="sum")
    return builder.build_and_reset([Relu(z * 2.0 + x)])
