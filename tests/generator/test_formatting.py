"""Generated Python is exactly what black makes of it (Note [Black-stable
templates] in gen_ops/emit/pyformat.py), and mypy accepts it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, render_tree

from gen_ops.emit import pyformat
from gen_ops.emit.pyformat import black_format, format_python

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


@pytest.mark.parametrize("path", PY_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docstrings_found_by_quotes_are_those_the_parser_finds(path: Path) -> None:
    """The quick scan either gives up (None) or agrees with the parse tree."""
    text = path.read_text(encoding="utf-8")
    quick = pyformat._docstring_lines_by_quotes(text.split("\n"))
    assert quick is None or quick == pyformat._docstring_lines_by_parsing(text)


@pytest.mark.parametrize(
    "text",
    [
        'x = """a"""\n',  # a triple-quoted expression
        'f(\n    """a""",\n)\n',
        'def f() -> None:\n    """a\n    b""" + c\n',
        'x = \'"""\'\n',
    ],
)
def test_the_quick_scan_gives_up_on_triple_quotes_outside_docstrings(text: str) -> None:
    assert pyformat._docstring_lines_by_quotes(text.split("\n")) is None


def _big_spec(tmp_path: Path, n: int) -> Path:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "big.yaml").write_text(
        "op: BigDefault\n"
        "inputs:\n  - {name: x, dtype: float32}\n"
        "outputs:\n  - {name: y, dtype: float32}\n"
        "attrs:\n"
        f"  - {{name: table, type: list_int, default: [{','.join(['7'] * n)}]}}\n"
        "  - name: words\n    type: list_str\n"
        f"    default: [{', '.join(f'w{i}' for i in range(n // 10))}]\n"
        f"  - {{name: nested, type: list_list_int, default: [[{','.join(['1'] * (n // 10))}]]}}\n"
        "infer_meta:\n"
        f"  y: {{shape: [{', '.join(['2'] * (n // 10))}], dtype: x}}\n"
        "impl:\n  capabilities: [execute]\n"
    )
    return specs


def test_large_literals_are_laid_out_without_black(tmp_path: Path) -> None:
    """Long defaults and literal shapes come out as black lays them out (one
    item per line), so black has nothing to do; docs show a summary."""
    files = render_tree(_big_spec(tmp_path, 2_000))
    for path in (
        "python/ge/es/custom/big_default.py",
        "python/ge_impl/custom/big_default.py",
    ):
        text = files[path]
        assert black_format(text) == text, path
        lines = text.split("\n")
        long = {n for n, line in enumerate(lines, start=1) if len(line) > 88}
        assert long <= pyformat._docstring_lines_by_parsing(text), path
    builder = files["python/ge/es/custom/big_default.py"]
    assert "table: list_int, default (7, 7, 7," in builder
    assert "... (2000 items))." in builder
    assert "_SHAPE_y = (\n    2,\n" in files["python/ge_impl/custom/big_default.py"]


def test_a_100000_item_default_renders_whole(tmp_path: Path) -> None:
    """The issue's 195 KB spec renders every item, one per line, without
    black (its speed is measured in bench/large_literals.py: 16.6 s before,
    about 1 s after)."""
    files = render_tree(_big_spec(tmp_path, 100_000))
    module = files["python/ge/es/custom/big_default.py"]
    assert module.count("\n        7,") == 100_000
