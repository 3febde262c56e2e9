"""examples/release_history/run.py (part of make demo): three releases
recorded, the compat check's output, the changelog, and calls of release
1.0.0 working against the builders of 2.0.0."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT


def test_the_example_runs_and_shows_each_step() -> None:
    result = subprocess.run(
        [sys.executable, "examples/release_history/run.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for line in [
        "--- gen-ops compat: v2/ before release 1.1.0 (exit status 0)",
        "v2/blend.yaml:7:12: note[H401]: Blend: new optional input 'w', compared "
        "with release 1.0.0",
        "v2/blend.yaml:11:11: warning[H413]: Blend: attr 'alpha' renamed to "
        "'weight', the old name kept as an alias, compared with release 1.0.0",
        "v3/clip.yaml:11:12: warning[H300]: Clip: new attr 'mode' is required; "
        "breaks callers of releases 1.0.0 and 1.1.0 (H316); marked intended "
        "(breaking: release 1.1.0): Callers must choose the rounding mode; no "
        "default suits all of them.",
        "## 2.0.0 (2026-06-01)",
        "- `Blend`: input `y` deprecated in 1.1.0",
        "- `Clip`: new attr `mode` is required (H316). Reason: Callers must choose "
        "the rounding mode; no default suits all of them.",
        "--- Blend's signature in 2.0.0: Blend(x, y, parts_num, *, w=None, "
        "weight=1.0, bias=0.0, name=None) -> list[TensorHolder]",
        "Blend(x, y, 2, alpha=0.5) -> node Blend_0: weight=0.5, "
        "bias=default, not on the node, 2 parts",
        "Clip(x, lo=0.0, hi=2.0) -> TypeError: Clip() missing 1 required "
        "keyword-only argument: 'mode' (the break 2.0.0 marks)",
    ]:
        assert line in out.splitlines(), line
    warned = [line for line in out.splitlines() if line.startswith("warning at")]
    assert [w.split(": ", 1)[1] for w in warned] == [
        "Blend: parameter 'alpha' was renamed to 'weight' in release 1.1.0; pass "
        "weight=",
        "Blend: parameter 'y' is deprecated since release 1.1.0",
        "Blend: parameter 'alpha' was renamed to 'weight' in release 1.1.0; pass "
        "weight=",
    ]
    lines = [w.split(":", 1)[0] for w in warned]
    assert lines[0] == lines[1] != lines[2]
