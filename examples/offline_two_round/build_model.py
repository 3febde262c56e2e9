"""Step 1 of the offline sample: build the graph in Python, save it as a
graph file, and compile it into a model with ge-atc.

ge-atc runs in its own process with ASCEND_CUSTOM_OPP_PATH naming the
operator's Python module (examples/annotated_args_refresh/add_ops.py): it
imports it, and calls infer_meta, compile and declare_launch_args. Building
the graph needs only the generated builder (ge.es.custom), not the module.

    python examples/offline_two_round/build_model.py OUT_DIR
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ge.es import GraphBuilder
from ge.es.custom import AnnotatedAddCustom
from ge.graph import DataType, Format

HERE = Path(__file__).resolve().parent
OP_MODULE = HERE.parent / "annotated_args_refresh" / "add_ops.py"
NUM_ELEMENTS = 8 * 1024


def build_graph() -> object:
    builder = GraphBuilder("offline_add")
    x, y = (
        builder.create_input(
            index,
            name=name,
            data_type=DataType.DT_FLOAT,
            format=Format.FORMAT_ND,
            shape=[NUM_ELEMENTS],
        )
        for index, name in enumerate(("data_x", "data_y"))
    )
    builder.set_graph_output(AnnotatedAddCustom(x, y), 0)
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
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/offline_two_round")
    out.mkdir(parents=True, exist_ok=True)
    air = out / "add_custom.air"
    build_graph().save_to_air(air)  # type: ignore[attr-defined]
    print(f"[Build] saved graph file {air}")
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH=str(OP_MODULE))
    result = subprocess.run(
        [*ge_atc(), "--model", str(air), "--output", str(out / "add_custom")],
        env=env,
        check=False,
    )
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
