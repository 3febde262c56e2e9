"""The same program with a deliberate type error (tests/packaging)."""

from ge.es import GraphBuilder
from ge.es.custom import ShipAddCustom


def build() -> None:
    builder = GraphBuilder("typed")
    x = builder.create_input(0, shape=[64])
    ShipAddCustom(x, x, name=3)
