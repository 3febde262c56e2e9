"""The files gen-ops reads back from its output directory (the state file,
the manifest, the outputs themselves) are files a user did not write (Note
[Untrusted files]): whatever replaces them (a FIFO, /dev/zero, a directory,
a huge file, a 5,000-digit integer, deep nesting) costs at most a full run
(Note [A state file is only a cache], Note [An unreadable manifest owns
nothing]); nothing hangs or ends in "internal error". Each case runs gen-ops
in a process of its own, so that a hang fails by the timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gen_ops.base import untrusted

SPEC = "op: ConcatV\ninputs:\n  - {name: x, dtype: float32}\noutputs:\n  - {name: y, dtype: float32}\n"
STATE = ".gen-ops-state.json"
MANIFEST = ".gen-ops-manifest.json"
OUTPUT = "python/ge/es/custom/__init__.py"


def _gen(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", "--out", "out"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text)


def _huge(path: Path) -> None:
    with open(path, "wb") as stream:
        stream.truncate(untrusted.JSON_LIMIT + 1)


SPOILS: dict[str, Callable[[Path], None]] = {
    "fifo": os.mkfifo,
    "dev zero": lambda path: path.symlink_to("/dev/zero"),
    "huge": _huge,
    "long int": _text('{"fingerprint": ' + "9" * 5000 + "}\n"),
    "deep": _text('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}\n"),
}


@pytest.mark.parametrize("spoil", list(SPOILS))
@pytest.mark.parametrize("file", [STATE, MANIFEST, OUTPUT])
def test_a_hostile_file_in_the_output_directory_costs_a_full_run(
    file: str, spoil: str, tmp_path: Path
) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/concat.yaml").write_text(SPEC)
    first = _gen(tmp_path)
    assert first.returncode == 0, first.stderr
    expected = (tmp_path / "out" / OUTPUT).read_text()
    path = tmp_path / "out" / file
    path.unlink()
    SPOILS[spoil](path)
    result = _gen(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    assert (tmp_path / "out" / OUTPUT).read_text() == expected
    assert path.is_file() and not path.is_symlink()  # written again
    assert path.stat().st_size < untrusted.JSON_LIMIT
