"""Build a graph with ge.es.custom.AddCustom and run it on the CPU device.

For float32 and float16 and several shapes (one not a multiple of the
kernel's 1,024-element block), run the graph through Session.run_graph and
compare with numpy. Run from the repository root:

    ASCEND_CUSTOM_OPP_PATH=examples/add_custom/add_custom_op.py python examples/add_custom/run.py

(run.py sets the path itself when it is unset.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
os.environ.setdefault("ASCEND_CUSTOM_OPP_PATH", str(HERE / "add_custom_op.py"))

from ge.es import GraphBuilder  # noqa: E402
from ge.es.custom import AddCustom  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Tensor  # noqa: E402
from ge.graph.numpy_dtypes import to_numpy_dtype  # noqa: E402
from ge.session import Session  # noqa: E402

SHAPES = [[8192], [1000], [3, 4097], [2, 3, 5]]
DTYPES = [DataType.DT_FLOAT, DataType.DT_FLOAT16]


def build(shape: list[int], dtype: DataType):  # type: ignore[no-untyped-def]
    builder = GraphBuilder(f"add_{dtype.spec_name}_{'x'.join(map(str, shape))}")
    x = builder.create_input(
        0, name="x", data_type=dtype, format=Format.FORMAT_ND, shape=shape
    )
    y = builder.create_input(
        1, name="y", data_type=dtype, format=Format.FORMAT_ND, shape=shape
    )
    builder.set_graph_output(AddCustom(x, y), 0)
    return builder.build_and_reset()


def main() -> int:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    session = Session({})
    rng = np.random.default_rng(0)
    failures = 0
    try:
        graph_id = 0
        for dtype in DTYPES:
            for shape in SHAPES:
                session.add_graph(graph_id, build(shape, dtype))
                np_dtype = to_numpy_dtype(dtype)
                x = rng.standard_normal(shape).astype(np_dtype)
                y = rng.standard_normal(shape).astype(np_dtype)
                (z,) = session.run_graph(
                    graph_id, [Tensor.from_numpy(x), Tensor.from_numpy(y)]
                )
                got = z.numpy()
                ok = got.shape == x.shape and np.array_equal(got, x + y)
                failures += not ok
                print(
                    f"[AddCustom] {dtype.spec_name:8} shape={shape!s:12} "
                    f"max_abs_err={float(np.max(np.abs(got.astype(np.float64) - (x + y)))):.1e} "
                    f"{'PASS' if ok else 'FAIL'}"
                )
                session.remove_graph(graph_id)
                graph_id += 1
    finally:
        api.ge_finalize()
    print("[AddCustom] " + ("PASS" if failures == 0 else f"FAIL ({failures} cases)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
