"""The one table of gen-ops' commands (Note [Command layer]): ``cli.main``
dispatches by it, ``gen-ops --help`` lists it, ``gen-ops completion``
completes it.

A command's module is imported when the command is asked for, so a run
imports only its own command (and ``--help`` and completion all of them);
nothing in ``gen_ops.commands`` imports this module's commands by name,
so the table adds no import between them.
"""

from __future__ import annotations

import importlib

from gen_ops.commands.base import Command

# Each command, in the order --help lists them, and the module of
# gen_ops.commands that holds it.
MODULES: dict[str, str] = {
    "render": "render",
    "validate": "validate",
    "new": "new",
    "schema": "schema",
    "import": "importing",
    "roundtrip": "roundtrip",
    "package": "package",
    "release": "release",
    "compat": "compat",
    "changelog": "changelog",
    "completion": "completion",
    "test": "test",
}
NAMES = tuple(MODULES)
DEFAULT = "render"  # gen-ops with no command name renders


def command(name: str) -> Command:
    """The command called ``name`` (one of ``NAMES``)."""
    module = importlib.import_module(f"gen_ops.commands.{MODULES[name]}")
    found = module.COMMAND
    if not isinstance(found, Command) or found.name != name:
        raise RuntimeError(f"gen_ops.commands.{MODULES[name]} is not {name!r}")
    return found


def commands() -> list[Command]:
    """Every command, in ``NAMES``' order."""
    return [command(name) for name in NAMES]
