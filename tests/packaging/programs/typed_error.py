"""The same program with a deliberate type error (tests/packaging)."""

from es_custom import ShipAddCustom

from ge.es import GraphBuilder


def build() -> None:
    builder = GraphBuilder("typed")
    x = builder.create_input(0, shape=[64])
    ShipAddCustom(x, x, name=3)
