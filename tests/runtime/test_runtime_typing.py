"""The runtime (ge) and the shared vocabulary (ge_ir) type-check cleanly
under mypy with every function annotated: the flags the generator is checked
with (tests/generator/test_typing.py)."""

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
    "--disallow-untyped-defs",
    "--disallow-incomplete-defs",
    "--warn-unused-ignores",
    "--no-implicit-optional",
    # Its own cache, so it never races the generator's check under xdist.
    "--cache-dir",
    str(ROOT / ".mypy_cache" / "runtime"),
    "-p",
    "ge",
    "-p",
    "ge_ir",
]


def test_mypy_accepts_the_runtime() -> None:
    env = dict(os.environ, MYPYPATH="runtime")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *MYPY_ARGS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
