"""Note [Template bytecode cache] in gen_ops/emit/render.py: compiled templates
kept between runs change nothing a run writes, and a damaged cache only
means compiling again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import ROOT


def _check(tmp: Path) -> subprocess.CompletedProcess[str]:
    """``gen-ops --check`` of the repository, with its temporary directory
    (where Jinja2 keeps the cache) in ``tmp``."""
    env = dict(os.environ, TMPDIR=str(tmp))
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "--check", "--quiet"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def _entries(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("_jinja2-cache-*/__jinja2_*.cache"))


def test_a_run_keeps_compiled_templates_and_the_next_uses_them(
    tmp_path: Path,
) -> None:
    first = _check(tmp_path)
    assert first.returncode == 0, first.stderr
    entries = _entries(tmp_path)
    assert len(entries) >= 9  # every template a render uses
    stamps = {p: p.stat().st_mtime_ns for p in entries}
    second = _check(tmp_path)
    assert second.returncode == 0, second.stderr
    assert {p: p.stat().st_mtime_ns for p in _entries(tmp_path)} == stamps


def test_damaged_entries_are_compiled_again(tmp_path: Path) -> None:
    assert _check(tmp_path).returncode == 0
    damaged = {}
    for number, entry in enumerate(_entries(tmp_path)):
        data = entry.read_bytes()
        damaged[entry] = data[: number % 3 * len(data) // 3] + b"\x80\x05garbage"
        entry.write_bytes(damaged[entry])
    again = _check(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert all(entry.read_bytes() != data for entry, data in damaged.items())
