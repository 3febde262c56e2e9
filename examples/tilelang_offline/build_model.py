"""Steps 2 and 3 of the offline sample: build the graph and save it as a
graph file (GE's Graph::SaveToFile -> AIR), then compile it into a model
with ge-atc, which loads the op module through ASCEND_CUSTOM_OPP_PATH and
calls compile (the external compiler) and serialize.

    python examples/tilelang_offline/build_model.py OUT_DIR
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ge.es import GraphBuilder
from ge.es.tilelang import AddCustomOffline
from ge.graph import DataType, Format

HERE = Path(__file__).resolve().parent
OP_MODULE = HERE / "add_custom_op.py"
NUM_ELEMENTS = 4096


def build_graph():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("tilelang_add_offline")
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
    builder.set_graph_output(AddCustomOffline(x, y), 0)
    return builder.build_and_reset()


def ge_atc() -> list[str]:
    """The ge-atc console script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "ge-atc"
    return (
        [str(script)]
        if script.exists()
        else [sys.executable, "-m", "ge.offline.compile"]
    )


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/tilelang_offline")
    out.mkdir(parents=True, exist_ok=True)
    print("[INFO] Step 2/4: generate AIR file (graph definition)")
    print("Saving AIR file (for ATC offline compilation)...")
    air = out / "tilelang_add_offline.air"
    build_graph().save_to_air(air)
    print(f"AIR file saved to: {air}")
    print("[INFO] Step 3/4: compile AIR to OM via ATC (triggers Compile + Serialize)")
    print("ATC compiling ...", flush=True)
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH=str(OP_MODULE))
    result = subprocess.run(
        [*ge_atc(), "--model", str(air), "--output", str(out / "tilelang_add_offline")],
        env=env,
        check=False,
    )
    if result.returncode != 0:
        return result.returncode
    model = out / "tilelang_add_offline.om"
    print(f"[INFO] OM model generated: {model.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
