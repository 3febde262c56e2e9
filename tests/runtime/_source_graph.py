"""The runtime's source as the tests of its structure read it: modules,
the package each belongs to, and the imports each makes (with ``ast``, so
nothing is imported)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime"


def package_of(module: str) -> str | None:
    """The package a runtime module belongs to: ``ge_ir``, ``ge.<sub>`` for
    a subpackage's modules, ``ge.<module>`` for a module of ``ge`` itself,
    ``ge`` for ``ge/__init__.py``; None outside the runtime."""
    parts = module.split(".")
    if parts[0] == "ge_ir":
        return "ge_ir"
    if parts[0] != "ge":
        return None
    return "ge" if len(parts) == 1 else f"ge.{parts[1]}"


@dataclass(frozen=True)
class Import:
    """One imported name, as a dotted path (``ge.graph.tensor.Tensor``)."""

    target: str
    line: int


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def package(self) -> str:
        package = package_of(self.name)
        assert package is not None
        return package

    def imports(self) -> Iterator[Import]:
        """Every import anywhere in the module: at module level, inside
        functions and under ``if TYPE_CHECKING``. A dependency is one
        wherever it is written; an import moved into a function only defers
        a cycle."""
        is_package = self.path.name == "__init__.py"
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = self.name.split(".")
                    keep = len(parts) - node.level + (1 if is_package else 0)
                    base = ".".join(parts[:keep] + ([base] if base else []))
                for alias in node.names:
                    yield Import(f"{base}.{alias.name}", node.lineno)


@lru_cache(maxsize=1)
def modules() -> tuple[Module, ...]:
    found = []
    for path in sorted(RUNTIME.rglob("*.py")):
        parts = list(path.relative_to(RUNTIME).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found.append(Module(".".join(parts), path, tree))
    return tuple(found)


def where(module: Module, line: int) -> str:
    return f"{module.path.relative_to(ROOT)}:{line}"
