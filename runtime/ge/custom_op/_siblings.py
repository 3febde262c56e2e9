"""Op modules importing the modules beside them by their bare names.

Note [Sibling imports]: an op module may reach another module of its op
directory in either of two forms, and both name the one module
``<package>.<name>`` of Note [Op module names] in ``_op_paths``:

* relative, ``from . import _np`` / ``from ._np import view``: resolved by
  the private package alone;
* bare, ``import _np`` / ``from _np import view``: the form that also works
  when a user's own tests put the op directory on ``sys.path`` and import
  the op module directly (where the relative form has no parent package).

A bare name is resolved by ``SiblingFinder``, a meta path finder kept LAST
on ``sys.meta_path`` (the loader puts it back at the end before each load).
It is asked only after every other finder found nothing, so a file of the
op directory never shadows a standard or installed module (``csv.py`` is
reached only relatively), and it answers only imports made by the code of
an op directory (the importing frame's module is in a private package), so
a library an op module imports never sees the op directory. It binds the
bare name to the package member itself, so both forms share one module
(and its registrations happen once); a bare name added by a failed load is
forgotten with the rest of it (``_module_rollback``).

A bare name names one module per process. Taking it for one op directory
while another loaded op directory holds a module of that name would let
one directory's code run the other's, so it is refused with an
``ImportError`` in either order: by the finder when the name is taken, and
by the loader (``check_directories``) before a later directory is loaded.
The fix is to import relatively in the directory that took the bare name,
or to rename one of the modules.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import inspect
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

from ge.custom_op._op_paths import ENV, PACKAGE_PREFIX

_lock = threading.Lock()


def _sibling_file(directory: Path, name: str) -> Path | None:
    for candidate in (directory / f"{name}.py", directory / name / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _op_directories() -> dict[str, Path]:
    """The private packages now imported, and their op directories."""
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith(PACKAGE_PREFIX) and "." not in name:
            path = list(getattr(module, "__path__", ()) or ())
            if len(path) == 1:
                found[name] = Path(path[0])
    return found


def _owner(module: ModuleType | None, name: str) -> str | None:
    """The private package whose member a bare name is bound to, if any."""
    qualified = getattr(module, "__name__", "")
    package, _, member = qualified.partition(".")
    if member == name and package.startswith(PACKAGE_PREFIX):
        return package
    return None


def _conflict(name: str, taker: Path, holder: Path) -> ImportError:
    return ImportError(
        f"{ENV}: the op directory {taker} imports its module {name} by the bare "
        f"name {name} (import {name} / from {name} import ...), and a bare name "
        f"names one module per process, but the op directory {holder} holds "
        f"{_sibling_file(holder, name)} too; in the op modules of {taker} import "
        f"it relatively (from . import {name}), or rename one of the two",
        name=name,
    )


def check_directories(directories: Iterable[Path]) -> None:
    """Refuse to load op directories holding a module whose bare name another
    op directory took already (Note [Sibling imports])."""
    packages = _op_directories()
    for name, module in list(sys.modules.items()):
        package = _owner(module, name)
        if package is None or package not in packages:
            continue
        for directory in directories:
            if directory != packages[package] and _sibling_file(directory, name):
                raise _conflict(name, packages[package], directory)


def _machinery(module: str) -> bool:
    """Import machinery frames, skipped to reach the importing code."""
    top = module.partition(".")[0]
    return top in ("importlib", "_frozen_importlib", "_frozen_importlib_external") or (
        module == __name__
    )


def _importer() -> str | None:
    """The module whose code runs the import being resolved."""
    frame = inspect.currentframe()
    while frame is not None:
        module = frame.f_globals.get("__name__")
        if not isinstance(module, str):
            return None
        if not _machinery(module):
            return module
        frame = frame.f_back
    return None


class _AliasLoader(importlib.abc.Loader):
    """Binds a bare name to the private package's member of that name."""

    def __init__(self, qualified: str) -> None:
        self.qualified = qualified

    def exec_module(self, module: ModuleType) -> None:
        # The import system returns what sys.modules holds for the bare name
        # once this returns: the member, not the placeholder it created.
        sys.modules[module.__name__] = importlib.import_module(self.qualified)


class SiblingFinder(importlib.abc.MetaPathFinder):
    """Resolves a bare top-level name imported by op-directory code to the
    module of that name beside it (Note [Sibling imports])."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if path is not None or "." in fullname:
            return None
        importer = _importer()
        if importer is None or not importer.startswith(PACKAGE_PREFIX):
            return None
        package = importer.partition(".")[0]
        packages = _op_directories()
        directory = packages.get(package)
        if directory is None or _sibling_file(directory, fullname) is None:
            return None
        for other, holder in packages.items():
            if other != package and _sibling_file(holder, fullname):
                raise _conflict(fullname, directory, holder)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(f"{package}.{fullname}")
        )


FINDER = SiblingFinder()


def install_last() -> None:
    """Put the finder at the end of ``sys.meta_path`` (again, if finders
    were appended after it since)."""
    with _lock:
        while FINDER in sys.meta_path:
            sys.meta_path.remove(FINDER)
        sys.meta_path.append(FINDER)
