"""GE's ``ge.es.plugins`` entry points: third-party ES packages join ``ge.es``.

An entry point's object may be a module, a module name, or a callable that
returns either (GE's rules). Each becomes ``ge.es.<entry name>``. A plugin that
fails to load is reported on stderr and skipped; it never breaks ``import ge.es``.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib import metadata

from ge_ir.names import library_module_refusal

GROUP = "ge.es.plugins"
_loaded: dict[str, types.ModuleType] = {}


def _resolve(obj: object) -> types.ModuleType:
    if callable(obj) and not isinstance(obj, types.ModuleType):
        obj = obj()
    if isinstance(obj, str):
        obj = importlib.import_module(obj)
    if not isinstance(obj, types.ModuleType):
        raise TypeError(f"plugin object is {type(obj).__name__}, not a module")
    return obj


def _refusal(parent: types.ModuleType, entry: metadata.EntryPoint) -> str | None:
    """Why the plugin ``entry`` may not become ``ge.es.<name>``, or None
    (Note [Reserved module names] in ge_ir.names): a reserved name, or one
    ``ge.es`` already has (a function, a submodule, an earlier plugin of
    another distribution)."""
    where = _distribution(entry)
    refusal = library_module_refusal(entry.name)
    if refusal is not None:
        return (
            f"{refusal}{where}; rename the entry point (group {GROUP}) and "
            "reinstall it"
        )
    if hasattr(parent, entry.name) and entry.name not in _loaded:
        return (
            f"ge.es.{entry.name} already exists and a plugin may not replace "
            f"it{where}; rename the entry point (group {GROUP})"
        )
    return None


def _distribution(entry: metadata.EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    return f" (from the distribution {name})" if name else ""


def load_plugins(package: str) -> list[str]:
    """Load every ``ge.es.plugins`` entry point; the names that loaded."""
    parent = sys.modules[package]
    names = []
    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
        refusal = _refusal(parent, entry)
        if refusal is not None:
            # ge.es.GraphBuilder & co. must stay the runtime's.
            print(
                f"[ERROR] [ge.es._plugin_loader] plugin {entry.name!r}: {refusal}; "
                "skipped",
                file=sys.stderr,
            )
            continue
        try:
            module = _resolve(entry.load())
        except Exception as exc:  # a broken plugin must not break ge.es
            print(
                f"[ERROR] [ge.es._plugin_loader] plugin {entry.name!r}: {exc}",
                file=sys.stderr,
            )
            continue
        sys.modules.setdefault(f"{package}.{entry.name}", module)
        setattr(parent, entry.name, module)
        _loaded[entry.name] = module
        names.append(entry.name)
    return names


def list_plugins() -> list[str]:
    """Names of the ES plugins loaded from entry points."""
    return sorted(_loaded)


def get_plugin(name: str) -> types.ModuleType | None:
    return _loaded.get(name)
