"""A registry is a file a user did not write (Note [Untrusted files]): each of
its files that is a FIFO, a device, a directory, too large, or JSON with an
integer or a nesting no registry holds is one located diagnostic; nothing
hangs, exhausts memory or ends in "internal error".

The index spoils the whole registry (H101, exit 2); a release's metadata or
operators spoil that release only (H105, H107: GE's reader skips it, a
warning), so ``compat`` exits 0 having compared nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from history_helpers import Project, project  # noqa: F401

from gen_ops.base import untrusted

SPEC = """\
op: ConcatV
inputs:
  - {name: x, dtype: T, dynamic: true}
outputs:
  - {name: y, dtype: T}
dtypes:
  T: [float32]
attrs:
  - {name: axis, type: int, default: 0}
  - {name: N, type: int}
"""
IDX = "reg/index.json"
META = "reg/registry/1.0.0/metadata.json"
OPS = "reg/registry/1.0.0/operators.json"
# A FIFO is tested in a process of its own (below): in this one, a hang
# would block the test run instead of failing it.
# What each file's diagnostic is: its code and the exit status of compat.
FILES = {IDX: ("error[H101]", 2), META: ("warning[H105]", 0), OPS: ("warning[H107]", 0)}


def _registry(project: Project) -> None:
    project.spec("concat.yaml", SPEC)
    project.release("1.0.0", "2026-01-01")


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _directory(path: Path) -> None:
    path.mkdir()


def _huge(path: Path) -> None:
    with open(path, "wb") as stream:  # sparse: no disk, no time
        stream.truncate(untrusted.JSON_LIMIT + 1)


def _long_int(path: Path) -> None:
    path.write_text('{"version": "1.0.0", "releases": [' + "9" * 5000 + "]}")


def _deep(path: Path) -> None:
    path.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")


def _not_utf8(path: Path) -> None:
    path.write_bytes(b'{"version": "1.0.0",\n "x": "\xff"}')


# fmt: off
CASES: list[tuple[str, Callable[[Path], None], str, str]] = [
    ("dev zero", _dev_zero, "1:1", "it is a device, not a regular file; gen-ops reads "
     "only regular files here"),
    ("directory", _directory, "1:1", "it is a directory, not a regular file; gen-ops "
     "reads only regular files here"),
    ("huge", _huge, "1:1", "it is larger than gen-ops reads here (67,108,865 bytes "
     "or more; the limit is 67,108,864); is it the file you meant?"),
    ("long int", _long_int, "1:35", "it is not JSON gen-ops reads: an integer of "
     "5,000 digits (at most 40)"),
    ("deep", _deep, "1:1", "it is not JSON gen-ops reads: values nest too deeply"),
    ("not utf-8", _not_utf8, "2:8", "it is not UTF-8 (invalid start byte)"),
]
# fmt: on


@pytest.mark.parametrize("file", list(FILES))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_registry_file_is_one_located_line(
    case: tuple[str, Callable[[Path], None], str, str], file: str, project: Project
) -> None:
    _, spoil, where, reason = case
    _registry(project)
    (project.root / file).unlink()
    spoil(project.root / file)
    code, status = FILES[file]
    run = project.compat()
    assert run.status == status, run.err
    assert "internal error" not in run.err and "Traceback" not in run.err
    assert len(run.lines) == 1, run.err
    assert run.lines[0].startswith(f"{file}:{where}: {code}: "), run.lines
    assert reason in run.lines[0]
    # The render reads the registry the same way.
    render = project.gen("--registry", "reg", "--out", "out")
    assert "internal error" not in render.err
    assert run.lines[0] in render.err
    assert render.status == (2 if file == IDX else 0), render.err


def _gen_ops(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """gen-ops in a process of its own, so that a hang fails the test (by the
    timeout) instead of blocking it."""
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("file", list(FILES))
@pytest.mark.parametrize("command", ["compat", "render"])
def test_a_fifo_in_a_registry_does_not_hang(
    command: str, file: str, project: Project
) -> None:
    _registry(project)
    (project.root / file).unlink()
    os.mkfifo(project.root / file)
    args = ["compat"] if command == "compat" else ["--out", "out"]
    result = _gen_ops(project.root, *args, "--registry", "reg")
    code, status = FILES[file]
    assert result.returncode == status, result.stderr
    assert f"{file}:1:1: {code}: " in result.stderr
    assert "it is a FIFO" in result.stderr
    assert "internal error" not in result.stderr
