"""examples/host_kernel and examples/data_dependent_shape run as `make demo`
runs them (their own process, from the repository root) and pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "script, lines",
    [
        (
            "examples/host_kernel/run.py",
            ["folded add -> Const (host kernel of AddCustom)", "[HostKernel] PASS"],
        ),
        (
            "examples/data_dependent_shape/run.py",
            [
                "output shape: [4, 1]",
                "output values: 0 2 4 7",
                "[WhereLikeCustom] PASS",
            ],
        ),
    ],
)
def test_example_runs(script: str, lines: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for line in lines:
        assert line in result.stdout.splitlines() or line in result.stdout
