"""Build, compile and run a graph of the installed op library, then save it
(tests/packaging: run with no ge-ops environment variable)."""

import sys

import numpy as np

from ge.es import GraphBuilder
from ge.es.custom import ShipAddCustom
from ge.ge_global import GeApi
from ge.graph import Tensor
from ge.session import Session

GeApi().ge_initialize({"ge.exec.deviceId": "0"})
builder = GraphBuilder("ship")
x = builder.create_input(0, shape=[256])
y = builder.create_input(1, shape=[256])
graph = builder.build_and_reset([ShipAddCustom(ShipAddCustom(x, y), x)])
session = Session({})
session.add_graph(0, graph)
a = np.arange(256, dtype=np.float32)
b = np.full(256, 0.5, dtype=np.float32)
(out,) = session.run_graph(0, [Tensor(a), Tensor(b)])
assert np.array_equal(out.numpy(), 2 * a + b), out.numpy()
graph.save_to_air(sys.argv[1])
print("online ok")
