"""GE's own sample Python files, run unchanged against this runtime.

GE's host_cpu_add_custom/constant_folding sample (``src/run.py`` and
``src/ge/add_custom.py``) is read from the GE mirror (a bare git dir,
``GE_MIRROR``; any ref that
has the files) or from a GE checkout (``GE_SOURCE_DIR``), copied to a
temporary directory (never into this repository) and run as its run.sh
does: ``ASCEND_CUSTOM_OPP_PATH`` pointing at ``src/ge``. The only NPU setup
it needs, ``DEVICE_ID``, defaults to 0. GE's data_dependent_shape_custom
sample has no Python part (C++ only), so examples/data_dependent_shape
is its counterpart here. Skipped, with the reason, when neither source has
the files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "examples/custom_op/host_cpu_add_custom/constant_folding/python"
FILES = ("src/run.py", "src/ge/add_custom.py")
MIRROR = Path(os.environ.get("GE_MIRROR") or "/nonexistent")


def _from_mirror(target: Path) -> str | None:
    """Copy the sample out of the mirror; None when done, else why not."""
    if not MIRROR.is_dir():
        return "no GE mirror (set GE_MIRROR to a bare git dir of hicann/ge)"
    refs = subprocess.run(
        ["git", f"--git-dir={MIRROR}", "for-each-ref", "--format=%(refname)"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    for ref in ["HEAD", *refs]:
        texts = []
        for name in FILES:
            shown = subprocess.run(
                ["git", f"--git-dir={MIRROR}", "show", f"{ref}:{SAMPLE}/{name}"],
                capture_output=True,
                text=True,
                check=False,
            )
            if shown.returncode != 0:
                break
            texts.append(shown.stdout)
        if len(texts) == len(FILES):
            for name, text in zip(FILES, texts):
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_text(text)
            return None
    return (
        f"the GE mirror at {MIRROR} has no {SAMPLE} (GE added it after that snapshot)"
    )


def _sample(target: Path) -> str | None:
    source = os.environ.get("GE_SOURCE_DIR")
    if source:
        base = Path(source) / SAMPLE
        if all((base / n).is_file() for n in FILES):
            for name in FILES:
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_text((base / name).read_text())
            return None
    return _from_mirror(target)


def test_ge_host_cpu_constant_folding_sample_runs_here(tmp_path: Path) -> None:
    why = _sample(tmp_path)
    if why is not None:
        pytest.skip(why)
    env = {
        **os.environ,
        "ASCEND_CUSTOM_OPP_PATH": str(tmp_path / "src" / "ge"),
        "DUMP_GE_GRAPH": "2",
        "DUMP_GRAPH_PATH": str(tmp_path / "dump"),
    }
    result = subprocess.run(
        [sys.executable, str(tmp_path / "src" / "run.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # GE's README's expected output, in order
    lines = result.stdout.splitlines()
    expected = [
        "[Python] InferMeta for AddCustom",
        "[Python] HostCpu execute for AddCustom",
        "output shape: [1]",
        "output values: 3.0",
    ]
    assert [line for line in lines if line in expected] == expected
    (folded,) = (tmp_path / "dump").glob("*_01_after_constant_folding.txt")
    assert "type=AddCustom" not in folded.read_text()
    assert "type=Const" in folded.read_text()
