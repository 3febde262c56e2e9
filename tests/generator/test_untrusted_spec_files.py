"""A spec is a file a user did not write (Note [Untrusted files]): a FIFO, a
link to /dev/zero, a huge file, deep nesting, an alias bomb or a
5,000-digit integer is one located error (exit 2), never a hang, an
exhausted memory or an "internal error". Each runs gen-ops in a process of
its own, so that a hang fails by the timeout."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gen_ops.spec.source import MAX_SPEC_BYTES


def _text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text)


def _huge(path: Path) -> None:
    with open(path, "wb") as stream:
        stream.truncate(MAX_SPEC_BYTES + 1)


def _alias_bomb() -> str:
    text = "op: A\nl0: &l0 [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 10):
        text += f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n"
    return text


LONG = "9" * 5000
# fmt: off
CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "1:1: error[E101]: not a regular file"),
    "dev zero": (lambda p: p.symlink_to("/dev/zero"), "1:1: error[E101]: not a regular file"),
    "huge": (_huge, "1:1: error[E101]: file is larger than 1048576 bytes"),
    "deep flow": (_text("op: A\ndoc: " + "[" * 100_000 + "]" * 100_000 + "\n"),
                  "2:1005: error[E102]: YAML syntax error: exceeded maximum nesting depth"),
    "deep values": (_text("op: A\ndoc: " + "[" * 100 + "]" * 100 + "\n"),
                    "2:70: error[E104]: nesting deeper than 64 levels"),
    "alias bomb": (_text(_alias_bomb()),
                   "error[E104]: document expands to more than 200000 values"),
    "long int": (_text(f"op: A\nattrs:\n  - {{name: x, type: int, default: {LONG}}}\n"),
                 "3:35: error[E104]: an integer of 5,000 characters; a spec's integers "
                 "have at most 40 digits"),
    "long int in a list": (
        _text(f"op: A\nattrs:\n  - {{name: x, type: list_int, default: [1, {LONG}]}}\n"),
        "3:44: error[E104]: an integer of 5,000 characters"),
    "long negative int": (
        _text(f"op: A\nattrs:\n  - {{name: x, type: int, default: -{LONG[:4000]}}}\n"),
        "3:35: error[E104]: an integer of 4,001 characters"),
}
# fmt: on


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_spec_is_one_located_error(case: str, tmp_path: Path) -> None:
    spoil, expected = CASES[case]
    (tmp_path / "specs").mkdir()
    spoil(tmp_path / "specs/a.yaml")
    result = subprocess.run(
        [sys.executable, "-m", "gen_ops", "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr
    assert f"specs/a.yaml:{expected}" in result.stderr or (
        expected.startswith("error") and expected in result.stderr
    ), result.stderr
