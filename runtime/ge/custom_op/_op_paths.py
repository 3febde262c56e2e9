"""The items of ASCEND_CUSTOM_OPP_PATH: where they are, which op modules
they hold, what those modules are called, and whether others can write them.

Note [Op module names]: every op module is imported as a submodule of a
private package, one per op directory, named ``_ge_py_custom_op_<directory
name>_<12 hex digits of the directory's path hash>`` and whose ``__path__``
is that directory. So an op file ``csv.py`` is ``<package>.csv`` and can
never replace the standard ``csv`` (or any installed module), two op
directories may hold modules of the same name, and an op module reaches the
other modules of its directory with relative imports (``from . import
helpers``) or by their bare names (``import helpers``, Note [Sibling
imports] in ``_siblings``), during the load and later. A ``.py`` item is a
member of its directory's package the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ENV = "ASCEND_CUSTOM_OPP_PATH"
PACKAGE_PREFIX = "_ge_py_custom_op_"


@dataclass(frozen=True)
class OpModule:
    """One op module to import: its file and the names it is imported by."""

    package: str  # the private package of its directory
    directory: Path  # canonical
    name: str  # its name inside the package
    file: Path  # canonical: the .py file, or a package's __init__.py

    @property
    def qualified(self) -> str:
        return f"{self.package}.{self.name}"


def package_name(directory: Path) -> str:
    """The private package of an op directory (Note [Op module names])."""
    readable = re.sub(r"[^A-Za-z0-9_]", "_", directory.name)[:40]
    digest = hashlib.sha256(str(directory).encode("utf-8", "surrogateescape"))
    return f"{PACKAGE_PREFIX}{readable}_{digest.hexdigest()[:12]}"


def resolve(item: str, remembered: Mapping[str, Path]) -> Path:
    """The absolute, canonical path of an item. A relative item keeps the
    meaning it had when it was first loaded (``remembered``), so a later
    ``chdir`` does not make it name another place or none."""
    path = remembered.get(item)
    if path is None:
        path = Path(item)
        if not path.exists():
            raise FileNotFoundError(
                f"{ENV} item {item!r} does not exist (relative items are resolved "
                f"against the working directory, {os.getcwd()})"
            )
        path = path.resolve()
    elif not path.exists():
        raise FileNotFoundError(
            f"{ENV} item {item!r} ({path} when it was first loaded) no longer exists"
        )
    return path


def _member(directory: Path, name: str, file: Path) -> OpModule:
    if not name.isidentifier():
        raise ValueError(
            f"{ENV}: {file} is not a Python module name ({name!r}); rename it "
            "to letters, digits and underscores, not starting with a digit"
        )
    return OpModule(package_name(directory), directory, name, file)


def modules_of(item: str, path: Path) -> list[OpModule]:
    """The op modules of one item (already resolved): a ``.py`` file, or a
    directory's ``.py`` files and packages, one level, names not starting
    with ``_`` or ``.``, in name order."""
    if path.is_file():
        if path.suffix != ".py":
            raise ValueError(f"{ENV} item {item!r} is not a .py file or a directory")
        return [_member(path.parent, path.stem, path)]
    if not path.is_dir():
        raise ValueError(f"{ENV} item {item!r} is not a .py file or a directory")
    found: dict[str, OpModule] = {}
    for child in sorted(path.iterdir()):
        if child.name.startswith(("_", ".")):
            continue
        if child.suffix == ".py" and child.is_file():
            name, file = child.stem, child.resolve()
        elif child.is_dir() and (child / "__init__.py").is_file():
            name, file = child.name, (child / "__init__.py").resolve()
        else:
            continue
        if name in found:
            raise ValueError(
                f"{ENV}: {path} holds both {name}.py and a package {name}/; an op "
                "module name may be used once per directory: rename one"
            )
        found[name] = _member(path, name, file)
    return list(found.values())


def _mode(path: Path) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def unsafe_paths(items: Iterable[Path], modules: Iterable[OpModule]) -> list[str]:
    """Messages for the paths others could use to change the op code a load
    runs: a world-writable item, op file or package directory (anyone may
    add or edit modules in it, sticky or not), and a world-writable, not
    sticky directory above them (anyone may replace what it holds)."""
    targets: dict[Path, None] = dict.fromkeys(items)
    for module in modules:
        targets[module.file] = None
        if module.file.name == "__init__.py":
            targets[module.file.parent] = None
    messages: dict[Path, str] = {}
    for target in targets:
        mode = _mode(target)
        if mode is not None and mode & stat.S_IWOTH:
            messages[target] = (
                f"{ENV}: {target} is writable by every user (mode "
                f"{stat.S_IMODE(mode):o}), so anyone on this machine can change the "
                f"op code loaded from it; remove their access: chmod o-w {target}"
            )
    for target in targets:
        for parent in target.parents:
            if parent in messages or parent in targets:
                continue
            mode = _mode(parent)
            if mode is not None and mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
                messages[parent] = (
                    f"{ENV}: {parent} is writable by every user and not sticky (mode "
                    f"{stat.S_IMODE(mode):o}), so anyone on this machine can replace "
                    f"the op modules below it; chmod o-w {parent}"
                )
    return list(messages.values())
