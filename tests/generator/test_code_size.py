"""No function over 120 lines and no class over 400, so that a reader can hold
one in mind. A definition may be longer only with a ``# size: <reason>``
comment on its def (or class) line.

``oversized`` measures any tree; ENFORCED lists the roots held to the rule
(the generator and the runtime, ge_ir included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENFORCED = ["generator", "runtime"]
MAX_LINES = {"function": 120, "class": 400}
_SIZE_NOTE = re.compile(r"#\s*size:\s*\S")


def oversized(root: Path) -> list[str]:
    """``path:line: kind name is N lines`` for every definition under
    ``root`` longer than its limit and without a size note."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.ClassDef):
                kind = "class"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kind = "function"
            else:
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_LINES[kind] and not _SIZE_NOTE.search(
                lines[node.lineno - 1]
            ):
                where = path.relative_to(root).as_posix()
                found.append(
                    f"{where}:{node.lineno}: {kind} {node.name} is {length} lines"
                )
    return found


@pytest.mark.parametrize("root", ENFORCED)
def test_definitions_fit(root: str) -> None:
    assert oversized(ROOT / root) == []


def _definition(head: str, body_lines: int, note: str = "") -> str:
    """``head`` (``def f() -> None`` or ``class C``) with ``body_lines``
    assignments: ``body_lines + 1`` lines."""
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return f"{head}:{note}\n{body}"


def test_the_measure_counts_lines_and_honours_size_notes(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        _definition("def fits() -> None", 119)  # lines 1-120
        + _definition("def too_long() -> None", 120)  # lines 121-241
        + _definition("def explained() -> None", 200, "  # size: one long table")
        + _definition("def unexplained() -> None", 200, "  # size:")
    )
    (tmp_path / "pkg" / "b.py").write_text(
        _definition("class Fits", 399) + _definition("class TooLong", 400)
    )
    assert oversized(tmp_path) == [
        "pkg/a.py:121: function too_long is 121 lines",
        "pkg/a.py:443: function unexplained is 201 lines",
        "pkg/b.py:401: class TooLong is 401 lines",
    ]


def test_a_nested_function_is_measured_on_its_own(tmp_path: Path) -> None:
    inner = _definition("def inner() -> None", 130).replace("\n", "\n    ")
    (tmp_path / "c.py").write_text(
        "def outer() -> None:  # size: holds inner\n    " + inner.rstrip() + "\n"
    )
    assert oversized(tmp_path) == ["c.py:2: function inner is 131 lines"]
