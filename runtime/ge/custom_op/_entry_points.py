"""Op module directories that installed packages register.

Note [Installed op libraries]: a wheel made by ``gen-ops package`` declares
its author modules (and their kernels) under the entry-point group
``ge.custom_op.plugins``; ``load_custom_op_plugins`` loads every directory
so registered exactly as it loads an ASCEND_CUSTOM_OPP_PATH directory: in
the same staged load, all or nothing, with the same private package names.
So after ``pip install es_<module>-...whl`` a graph of its ops compiles
and runs with no environment variable, and ``pip uninstall`` takes it away.

An entry point's value names a package (``custom = es_custom.ops``) whose
directory holds the op modules; the directory is found without importing
the package or its parents (an import could register ops outside the
staged load). A value with an attribute (``module:attr``) is loaded, and
must give a directory path (str or os.PathLike) or a callable returning one.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.metadata is imported on use: ge.custom_op stays light
    from importlib import metadata

GROUP = "ge.custom_op.plugins"


@dataclass(frozen=True)
class OpLibrary:
    """One registered op directory: where it is and who registered it."""

    label: str  # "entry point custom of es_custom 1.0.0", for messages
    directory: Path


def _fix(entry: metadata.EntryPoint) -> str:
    dist = entry.dist.name if entry.dist is not None else None
    if dist:
        return f"reinstall it (pip install --force-reinstall {dist}) or remove it (pip uninstall {dist})"
    return "reinstall or remove the package that declares it"


def _label(entry: metadata.EntryPoint) -> str:
    dist = entry.dist
    owner = f" of {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {entry.name!r} ({GROUP}){owner}"


def _package_dir(dotted: str) -> Path | None:
    """The directory of package ``dotted``, found without importing it."""
    top, *rest = dotted.split(".")
    spec = importlib.util.find_spec(top)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location, *rest)
        if candidate.is_dir():
            return candidate
    return None


def _directory(entry: metadata.EntryPoint) -> Path:
    if entry.attr:
        value = entry.load()
        if callable(value):
            value = value()
        if not isinstance(value, (str, os.PathLike)):
            raise TypeError(
                f"{_label(entry)} gives {type(value).__name__}, not a directory path"
            )
        found: Path | None = Path(value)
    else:
        found = _package_dir(entry.module)
    if found is None or not found.is_dir():
        raise FileNotFoundError(
            f"{_label(entry)} names {entry.value!r}, which is not an installed "
            f"directory; {_fix(entry)}"
        )
    return found.resolve()


def installed_libraries() -> list[OpLibrary]:
    """Every directory registered under ``ge.custom_op.plugins``, by entry
    point name (one per name: the first distribution on sys.path wins)."""
    from importlib import metadata

    chosen: dict[str, metadata.EntryPoint] = {}
    for entry in metadata.entry_points(group=GROUP):
        chosen.setdefault(entry.name, entry)
    return [
        OpLibrary(_label(entry), _directory(entry))
        for name, entry in sorted(chosen.items())
    ]
