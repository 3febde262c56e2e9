"""Generated Python is exactly what black makes of it (Note [Black-stable
templates] in gen_ops/pyformat.py), and mypy accepts it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen_ops.pyformat import black_format, format_python
from helpers import ROOT

PY_FILES = sorted(
    p
    for base in (ROOT / "generated/python", ROOT / "tests/golden/expected/python")
    for p in base.rglob("*.py")
)


@pytest.mark.parametrize("path", PY_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_black_changes_nothing(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert black_format(text) == text


def test_long_code_lines_go_through_black() -> None:
    long_call = "x = f(" + ", ".join(f"argument_{i}" for i in range(12)) + ")\n"
    assert format_python(long_call) == black_format(long_call) != long_call


def test_long_docstring_lines_do_not_need_black() -> None:
    text = 'def f() -> None:\n    """' + "word " * 30 + 'end."""\n'
    assert format_python(text) == text == black_format(text)


def test_mypy_accepts_the_generated_python() -> None:
    env = dict(
        os.environ,
        MYPYPATH=f"{ROOT / 'generated/python'}{os.pathsep}{ROOT / 'runtime'}",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--python-version",
            "3.11",
            "--namespace-packages",
            "--explicit-package-bases",
            "--no-incremental",
            "--strict-optional",
            "--disallow-untyped-defs",
            "-p",
            "ge.es.custom",
            "-p",
            "ge.es.control",
            "-p",
            "ge_impl",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
