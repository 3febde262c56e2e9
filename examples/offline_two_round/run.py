"""GE's offline address-refresh sample on the CPU device.

1. build_model.py builds a one-node AnnotatedAddCustom graph, saves it as a
   graph file and compiles it with ge-atc (which imports the operator's
   Python module through ASCEND_CUSTOM_OPP_PATH);
2. run_model.py loads the model in a fresh process with
   ASCEND_CUSTOM_OPP_PATH unset and runs it twice with fresh buffers.

    python examples/offline_two_round/run.py [OUT_DIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="offline_two_round-") as tmp:
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        build = subprocess.run(
            [sys.executable, str(HERE / "build_model.py"), str(out)], check=False
        )
        if build.returncode != 0:
            print("OFFLINE_TWO_ROUND=FAIL (the model did not build)")
            return 1
        env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
        run = subprocess.run(
            [sys.executable, str(HERE / "run_model.py"), str(out / "add_custom.om")],
            env=env,
            check=False,
        )
        return run.returncode


if __name__ == "__main__":
    sys.exit(main())
