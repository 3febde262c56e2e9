"""A private name (``_x``) of a runtime package is used only inside that
package: what another package needs is a named internal API (docs/design.md,
Layers). Read from the source with ``ast``."""

from __future__ import annotations

import ast
from collections import defaultdict

from _source_graph import Module, modules, package_of, where

# Private names another package may use, and why.
ALLOWED_IMPORTS: set[tuple[str, str]] = set()
ALLOWED_ATTRIBUTES = {
    "_handle",  # ctypes.CDLL's handle to the library (device/loader.py)
    "_exit",  # os._exit: how a forked child leaves (Note [Constructor probe])
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_part(dotted: str) -> tuple[str, str] | None:
    """(the package that owns it, the path to it) for the first private
    name on ``dotted`` (``ge.graph`` and ``ge.graph._paths`` for
    ``ge.graph._paths.check_path``), or None when nothing on the path is
    private. A private module of ``ge`` itself (``ge._container``) is
    private to ``ge``, so every package of the runtime may use it."""
    parts = dotted.split(".")
    for depth, part in enumerate(parts):
        if _private(part):
            owner = ".".join(parts[:depth])
            package = "ge" if owner == "ge" else package_of(owner)
            return None if package is None else (package, ".".join(parts[: depth + 1]))
    return None


def _inside(package: str, owner: str) -> bool:
    return package == owner or package.startswith(owner + ".")


def test_no_package_imports_another_packages_private_names() -> None:
    found = []
    for module in modules():
        for imported in module.imports():
            private = _private_part(imported.target)
            if private is None or _inside(module.package, private[0]):
                continue
            if (module.package, private[1]) not in ALLOWED_IMPORTS:
                found.append(f"{where(module, imported.line)}: {imported.target}")
    assert not found, "private names imported across packages:\n" + "\n".join(found)


def _defined(module: Module) -> set[str]:
    """The private names a module defines: functions, classes, module and
    class-level names, __slots__ entries and attributes set on self/cls."""
    names: set[str] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            body_targets = node.body if isinstance(node, ast.ClassDef) else []
            for item in body_targets:
                if isinstance(item, ast.AnnAssign) and isinstance(
                    item.target, ast.Name
                ):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            names.add(target.id)
                            if target.id == "__slots__" and isinstance(
                                item.value, (ast.Tuple, ast.List)
                            ):
                                names.update(
                                    e.value
                                    for e in item.value.elts
                                    if isinstance(e, ast.Constant)
                                )
            if not isinstance(node, ast.ClassDef) and node.args.args:
                first = node.args.args[0].arg
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Attribute)
                        and isinstance(inner.ctx, ast.Store)
                        and isinstance(inner.value, ast.Name)
                        and inner.value.id == first
                        and first in ("self", "cls")
                    ):
                        names.add(inner.attr)
    for node in module.tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                names.add(target.id)
    return {name for name in names if _private(name)}


def test_no_package_reads_another_packages_private_attributes() -> None:
    """``obj._x`` (obj not self or cls) names something its own package
    defines: a tensor's ``_addr`` is ge.graph's, not the engine's."""
    defined: dict[str, set[str]] = defaultdict(set)
    for module in modules():
        defined[module.package] |= _defined(module)
    found = []
    for module in modules():
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr in defined[module.package] | ALLOWED_ATTRIBUTES:
                continue
            found.append(f"{where(module, node.lineno)}: {ast.unparse(node)}")
    assert not found, "private attributes of other packages:\n" + "\n".join(found)


def test_the_checks_see_a_crossing() -> None:
    paths = ("ge.graph", "ge.graph._paths")
    assert _private_part("ge.graph._paths.check_path") == paths
    assert _private_part("ge.graph.tensor._zeros") == (
        "ge.graph",
        "ge.graph.tensor._zeros",
    )
    assert _private_part("ge._container.write") == ("ge", "ge._container")
    assert _private_part("ge.graph.tensor.Tensor") is None
    tree = ast.parse("class T:\n    __slots__ = ('_a',)\n    _b: int\n")
    module = Module("ge.graph.t", modules()[0].path, tree)
    assert _defined(module) == {"_a", "_b"}
