"""Siblings of issue 21's finding 5 in plain ``gen-ops`` and ``gen-ops
validate``: a loop of symbolic links as a spec file, a spec directory,
``--out`` or ``--registry``, and defaults and rules nested thousands deep,
give located errors, never "internal error" (exit 4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PARENS = "(" * 5000 + "1" + ")" * 5000
MINUSES = "-" * 20000 + "1"
SPEC = """\
op: Deep
module: custom
inputs:
  - {{name: x, dtype: float32}}
outputs:
  - {{name: y, dtype: float32, dynamic: true, count: "{rule}"}}
attrs:
  - {{name: a, type: {kind}, default: {default}}}
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def assert_located(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr


def loop(directory: Path, a: str, b: str) -> None:
    os.symlink(b, directory / a)
    os.symlink(a, directory / b)


@pytest.mark.parametrize("command", [(), ("validate",)], ids=["render", "validate"])
@pytest.mark.parametrize("where", ["file", "dir", "inside"])
def test_spec_symlink_loops(
    command: tuple[str, ...], where: str, tmp_path: Path
) -> None:
    if where == "inside":
        (tmp_path / "specs").mkdir()
        loop(tmp_path / "specs", "a.yaml", "b.yaml")
        target = "specs"
    else:
        loop(
            tmp_path,
            "a.yaml" if where == "file" else "d1",
            "b.yaml" if where == "file" else "d2",
        )
        target = "a.yaml" if where == "file" else "d1"
    result = run(*command, "--specs", target, cwd=tmp_path)
    assert_located(result)
    assert "error[E101]" in result.stderr


@pytest.mark.parametrize("option", ["--out", "--registry"])
def test_render_to_a_symlink_loop_is_a_usage_error(option: str, tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "deep.yaml").write_text(
        SPEC.format(rule="1", kind="int", default=1), encoding="utf-8"
    )
    loop(tmp_path, "o1", "o2")
    for check in ((), ("--check",)):
        result = run(option, "o1", *check, cwd=tmp_path)
        assert_located(result)
        assert f"{option} o1: it is a symbolic link that loops" in result.stderr


@pytest.mark.parametrize(
    ("rule", "kind", "default", "code"),
    [
        ("1", "int", PARENS, "E501"),
        ("1", "int", MINUSES, "E501"),
        ("1", "float", MINUSES, "E501"),
        ("1", "list_int", "[" * 5000 + "]" * 5000, "E102"),
        (PARENS, "int", "1", "E601"),
        (MINUSES, "int", "1", "E601"),
        ("len(" * 5000 + "x" + ")" * 5000, "int", "1", "E601"),
    ],
)
@pytest.mark.parametrize("command", [(), ("validate",)], ids=["render", "validate"])
def test_deep_defaults_and_rules(
    rule: str,
    kind: str,
    default: str,
    code: str,
    command: tuple[str, ...],
    tmp_path: Path,
) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "deep.yaml").write_text(
        SPEC.format(rule=rule, kind=kind, default=default), encoding="utf-8"
    )
    result = run(*command, cwd=tmp_path)
    assert_located(result)
    assert "specs/deep.yaml:" in result.stderr and f"error[{code}]" in result.stderr
