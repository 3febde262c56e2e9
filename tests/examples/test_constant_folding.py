"""examples/constant_folding runs as `make demo` runs it (a process of its own)
and checks itself against numpy and against the graph compiled with the
pass switched off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_constant_folding_example(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "examples/constant_folding/run.py", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CONSTANT_FOLDING=PASS" in result.stdout
    assert "bit for bit the same" in result.stdout
