"""The command layer (Note [Command layer] in gen_ops/commands/base.py):
one registry of commands, each a module exporting its Command; no domain
module imports a command module, and no command module another but the
shared ones, so the layer has no import cycle (imports read from the
source, function-level and TYPE_CHECKING ones included)."""

from __future__ import annotations

import ast
from pathlib import Path

from gen_ops.commands import registry
from gen_ops.commands.base import Command, Exit

GENERATOR = Path(__file__).resolve().parents[2] / "generator"
SHARED = {"base", "report", "registry", "history_options"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(GENERATOR).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each gen_ops module's imports of gen_ops modules."""
    paths = {_module_name(p): p for p in GENERATOR.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                targets.add(base)
                targets.update(f"{base}.{a.name}" for a in node.names)
        found[name] = {t for t in targets if t in paths and t != name}
    return found


def _is_command_layer(name: str) -> bool:
    return name == "gen_ops.cli" or name.startswith("gen_ops.commands")


def test_no_domain_module_imports_a_command_module() -> None:
    imports = _imports()
    wrong = sorted(
        f"{name} imports {target}"
        for name, targets in imports.items()
        if not _is_command_layer(name) and name != "gen_ops.__main__"
        for target in targets
        if _is_command_layer(target)
    )
    assert wrong == []


def test_commands_import_only_the_shared_command_modules() -> None:
    imports = _imports()
    wrong = sorted(
        f"{name} imports {target}"
        for name, targets in imports.items()
        if name.startswith("gen_ops.commands.")
        for target in targets
        if target.startswith("gen_ops.commands.")
        and target.rpartition(".")[2] not in SHARED
    )
    assert wrong == []


def test_the_command_layer_has_no_import_cycle() -> None:
    imports = _imports()
    layer = {name for name in imports if _is_command_layer(name)}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name in done:
            return
        for target in sorted(imports[name] & layer):
            visit(target, (*path, name))
        done.add(name)

    for name in sorted(layer):
        visit(name, ())


def test_the_registry_names_each_command_once() -> None:
    commands = registry.commands()
    assert [c.name for c in commands] == list(registry.NAMES)
    assert registry.DEFAULT in registry.NAMES
    for command in commands:
        assert isinstance(command, Command)
        assert command.summary and "\n" not in command.summary
        assert command.parser().prog.startswith("gen-ops")


def test_exit_statuses() -> None:
    assert [int(e) for e in Exit] == [0, 1, 2, 3, 4, 130, 141]
