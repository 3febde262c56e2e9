"""GE's TileLang online sample (tilelang_add_custom_online, scenario B) on
the CPU device: the compile callback runs an external kernel compiler.

1. gen-ops has generated the op's builder, prototype and base class
   (``make demo`` runs it first); no kernel is compiled ahead of time;
2. build Data -> AddCustomOnline and compile the graph: the op's compile
   runs the TileLang stand-in (a subprocess) for 4096 elements, once;
3. run twice with fresh [4096] float32 buffers and compare every element
   with numpy.

    python examples/tilelang_online/run.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
os.environ.setdefault("ASCEND_CUSTOM_OPP_PATH", str(HERE / "add_custom_op.py"))

from ge.es import GraphBuilder  # noqa: E402
from ge.es.tilelang import AddCustomOnline  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

NUM_ELEMENTS = 4096


def build_graph():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("tilelang_add_online")
    x, y = (
        builder.create_input(
            index,
            name=name,
            data_type=DataType.DT_FLOAT,
            format=Format.FORMAT_ND,
            shape=[NUM_ELEMENTS],
        )
        for index, name in enumerate(("x", "y"))
    )
    builder.set_graph_output(AddCustomOnline(x, y), 0)
    return builder.build_and_reset()


def check(z: np.ndarray, expected: np.ndarray) -> bool:
    if np.isnan(z).any():
        print("Precision check failed: NaN in the output")
        return False
    max_error = float(np.max(np.abs(z - expected)))
    if max_error > 1e-6:
        print(f"Precision check failed, max_error={max_error:g}")
        return False
    print(f"Precision check passed, max_error={max_error:g}")
    return True


def main() -> int:
    print("[INFO] Step 1/3: build custom op library and session_run")
    print(
        "[INFO] Step 2/3: run session test (CompileGraph triggers TileLang online "
        "compilation)"
    )
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    session = Session({})
    session.add_graph(1, build_graph())
    print("CompileGraph (triggers TileLang online compilation)...", flush=True)
    session.compile_graph(1)
    rng = np.random.default_rng(4096)
    ok = True
    for _ in range(2):
        x = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        y = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        (z,) = session.run_graph(1, [Tensor(x), Tensor(y)])
        ok = check(z.numpy(), x + y) and ok
    api.ge_finalize()
    if not ok:
        return 1
    print("[INFO] Step 3/3: sample pipeline finished.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
