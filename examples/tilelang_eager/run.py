"""GE's TileLang eager sample (tilelang_add_custom, scenario A) on the CPU
device: a precompiled kernel library called through the task table.

1. compile the kernel with the TileLang stand-in (add_custom_kernel.py) into
   add_kernel.so, a plain ``gcc -shared -fPIC -O3`` library exporting
   ``call(x, y, z, stream)``;
2. gen-ops has generated the op's builder, prototype and base class
   (``make demo`` runs it first);
3. "install" the library: run.py points TILELANG_ADD_KERNEL at it;
4. build Data -> AddCustomTileLang, compile, run twice with fresh buffers
   of [4096] float32, and compare every element with numpy.

    python examples/tilelang_eager/run.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNEL_COMPILER = HERE.parent / "tilelang_kernel" / "add_custom_kernel.py"
os.environ.setdefault("ASCEND_CUSTOM_OPP_PATH", str(HERE / "add_custom_op.py"))

from ge.es import GraphBuilder  # noqa: E402
from ge.es.tilelang import AddCustomTileLang  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

NUM_ELEMENTS = 4096


def build_graph():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("tilelang_add")
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
    builder.set_graph_output(AddCustomTileLang(x, y), 0)
    return builder.build_and_reset()


def check(z: np.ndarray, expected: np.ndarray) -> bool:
    """Element-wise precision check, NaN included, as the sample's main.cc."""
    if np.isnan(z).any():
        print("Precision check failed: NaN in the output")
        return False
    max_error = float(np.max(np.abs(z - expected)))
    if max_error > 1e-6:
        print(f"Precision check failed, max_error={max_error:g}")
        return False
    print(f"Precision check passed, max_error={max_error:g}")
    return True


def run_session(rounds: int = 2) -> bool:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    session = Session({})
    session.add_graph(1, build_graph())
    session.compile_graph(1)
    rng = np.random.default_rng(4096)
    ok = True
    for _ in range(rounds):  # fresh buffers each round: refreshed addresses
        x = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        y = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        (z,) = session.run_graph(1, [Tensor(x), Tensor(y)])
        ok = check(z.numpy(), x + y) and ok
    api.ge_finalize()
    return ok


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tilelang_eager-") as tmp:
        print("[INFO] Step 1/4: compile TileLang kernel", flush=True)
        library = Path(tmp) / "add_kernel.so"
        built = subprocess.run(
            [sys.executable, str(KERNEL_COMPILER), str(NUM_ELEMENTS), str(library)],
            check=False,
        )
        if built.returncode != 0:
            print("[ERROR] the TileLang kernel did not compile")
            return 1
        print("[INFO] Step 2/4: build custom op library and session_run")
        os.environ["TILELANG_ADD_KERNEL"] = str(library)
        print("[INFO] kernel .so installed in OPP package.")
        print("[INFO] Step 4/4: run session test", flush=True)
        if not run_session():
            return 1
    print("[INFO] Sample pipeline finished.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
