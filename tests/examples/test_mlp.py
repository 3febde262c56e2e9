"""examples/mlp: the two-layer MLP built with TensorHolder arithmetic and the
math library runs online (Session) and offline (ge-atc, then the model
loaded in a process that never imports the ops' Python), each against
numpy, in a process of its own as `make demo` runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mlp_runs_online_and_offline(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "examples/mlp/run.py", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MLP_ONLINE=PASS" in result.stdout
    assert "MLP_OFFLINE=PASS" in result.stdout
    assert (tmp_path / "mlp.om").is_file()
    assert result.stdout.count("max |error|") == 4
