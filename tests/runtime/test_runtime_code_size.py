"""Small units in runtime/: no function over 120 lines and no class over 400
(measured with ``ast``, from the ``def``/``class`` line to the last line of
the body). A function may be longer only with a ``# size: <reason>``
comment on its ``def`` line; a class never. The generator has its own
check (tests/generator); the file names differ so that pytest can collect
both (test modules are imported by their base name)."""

from __future__ import annotations

import ast
import re

from _source_graph import modules, where

MAX_FUNCTION_LINES = 120
MAX_CLASS_LINES = 400
SIZE_REASON = re.compile(r"#\s*size:\s*\S")


def _length(node: ast.AST) -> int:
    end = getattr(node, "end_lineno", None)
    start = getattr(node, "lineno", None)
    assert end is not None and start is not None
    return end - start + 1


def _oversized() -> list[str]:
    found = []
    for module in modules():
        lines = module.path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(module.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size, limit, what = _length(node), MAX_FUNCTION_LINES, "function"
                if SIZE_REASON.search(lines[node.lineno - 1]):
                    continue
            elif isinstance(node, ast.ClassDef):
                size, limit, what = _length(node), MAX_CLASS_LINES, "class"
            else:
                continue
            if size > limit:
                found.append(
                    f"{where(module, node.lineno)}: {what} {node.name} has {size} "
                    f"lines (at most {limit})"
                )
    return found


def test_functions_and_classes_are_small() -> None:
    found = _oversized()
    assert not found, "\n".join(found)


def test_the_measure() -> None:
    source = "class C:\n    def f(self):  # size: a reason\n" + "        x = 1\n" * 3
    tree = ast.parse(source)
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef) and _length(cls) == 5
    assert _length(cls.body[0]) == 4
    assert SIZE_REASON.search(source.splitlines()[1])
    assert not SIZE_REASON.search("    def f(self):  # size:")
