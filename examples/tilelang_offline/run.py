"""GE's TileLang offline sample (tilelang_add_custom_offline, scenario C)
on the CPU device: kernel libraries compiled at ge-atc time travel inside
the model file.

1. gen-ops has generated the op's builder, prototype and base class
   (``make demo`` runs it first);
2. build_model.py saves the graph file;
3. ... and ge-atc compiles it: compile runs the external compiler,
   serialize stores the library in the model;
4. model_exec.py loads and runs the model in a fresh process whose PATH
   holds no compiler and where ASCEND_CUSTOM_OPP_PATH is unset, so neither
   the op module nor gcc can be reached.

    python examples/tilelang_offline/run.py [OUT_DIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def bare_environment(empty_dir: Path) -> dict[str, str]:
    """No op module path, no compiler: PATH is an empty directory."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ASCEND_CUSTOM_OPP_PATH", "CC", "PATH")
    }
    env["PATH"] = str(empty_dir)
    return env


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tilelang_offline-") as tmp:
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        print(
            "[INFO] Step 1/4: build custom op library, graph_build and model_exec",
            flush=True,
        )
        build = subprocess.run(
            [sys.executable, str(HERE / "build_model.py"), str(out)], check=False
        )
        if build.returncode != 0:
            print("[ERROR] the model did not build")
            return 1
        print("[INFO] Step 4/4: execute OM model (triggers Deserialize + Execute)")
        empty = Path(tmp) / "empty-path"
        empty.mkdir()
        run = subprocess.run(
            [
                sys.executable,
                str(HERE / "model_exec.py"),
                str(out / "tilelang_add_offline.om"),
            ],
            env=bare_environment(empty),
            check=False,
        )
        if run.returncode != 0:
            return run.returncode
    print("[INFO] Sample pipeline finished.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
