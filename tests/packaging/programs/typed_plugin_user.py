"""A user program importing an op library by its ge.es name, which mypy and
pyright check through the library's ge-stubs (tests/packaging)."""

from ge.es import GraphBuilder, TensorHolder
from ge.es.custom import ShipAddCustom
from ge.graph import Graph


def build() -> Graph:
    builder = GraphBuilder("typed")
    x = builder.create_input(0, shape=[64])
    z: TensorHolder = ShipAddCustom(x, x, name="sum")
    return builder.build_and_reset([z])
