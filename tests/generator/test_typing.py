"""The generator (gen_ops) type-checks cleanly under ``mypy --strict``
(``make typecheck`` runs the same check)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MYPY_ARGS = [
    "--python-version",
    "3.11",
    "--namespace-packages",
    "--explicit-package-bases",
    "--strict",
    "-p",
    "gen_ops",
]


def test_mypy_strict_accepts_gen_ops() -> None:
    env = dict(os.environ, MYPYPATH=f"runtime{os.pathsep}generator")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *MYPY_ARGS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
