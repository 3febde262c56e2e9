"""Which modules a plugin load imported, and forgetting them again.

A failed load must leave ``sys.modules`` as it found it, or modules that
register at import time (the generated ``ge_impl.<module>.<op>``, helpers,
the op modules themselves) would be found already imported next time and
never register again. Forgetting a module also removes it from its parent
package's attributes, where ``from package import module`` would find it.

Two kinds of new module stay: compiled extension and built-in modules (they
hold no registration, and some cannot be initialised twice in a process),
and modules another thread was importing meanwhile (``ImportTracker``
notes them; forgetting a module while its import runs breaks that import).
"""

from __future__ import annotations

import importlib.machinery
import sys
import threading
from collections.abc import Iterable
from types import ModuleType, TracebackType


class _Recorder:
    """A meta path finder that finds nothing. While a tracker is active it
    notes the modules other threads start to import."""

    def __init__(self) -> None:
        self.owner: int | None = None
        self.others: set[str] = set()
        self.lock = threading.Lock()

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        owner = self.owner
        if owner is not None and threading.get_ident() != owner:
            with self.lock:
                self.others.add(name)
        return None


_RECORDER = _Recorder()


class ImportTracker:
    """Within ``with``: the modules this thread imports (``imported()``).
    Not reentrant; the plugin loader runs one at a time."""

    def __enter__(self) -> ImportTracker:
        if _RECORDER not in sys.meta_path:
            sys.meta_path.insert(0, _RECORDER)
        with _RECORDER.lock:
            _RECORDER.others = set()
            _RECORDER.owner = threading.get_ident()
        self.before = set(sys.modules)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with _RECORDER.lock:
            _RECORDER.owner = None
            _RECORDER.others = set()

    def imported(self) -> list[str]:
        """Modules new since ``__enter__`` that this thread imported."""
        with _RECORDER.lock:
            others = set(_RECORDER.others)
        names = []
        for name in set(sys.modules) - self.before:
            module = sys.modules.get(name)
            if name in others or module is None or _importing(module):
                continue
            names.append(name)
        return names


def _importing(module: ModuleType) -> bool:
    """Still being executed by an import (another thread's, since every
    import of the loading thread has finished when it rolls back)."""
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


def is_native(module: ModuleType) -> bool:
    """A compiled extension or built-in module."""
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
    if isinstance(loader, importlib.machinery.ExtensionFileLoader):
        return True
    return loader is importlib.machinery.BuiltinImporter or isinstance(
        loader, importlib.machinery.BuiltinImporter
    )


def forget(names: Iterable[str], *, keep_native: bool = True) -> list[str]:
    """Drop modules from ``sys.modules`` and from their parent packages'
    attributes; returns the names dropped."""
    dropped = []
    for name in sorted(set(names), key=lambda n: -n.count(".")):
        module = sys.modules.get(name)
        if module is None or (keep_native and is_native(module)):
            continue
        del sys.modules[name]
        dropped.append(name)
        parent_name, _, child = name.rpartition(".")
        parent = sys.modules.get(parent_name) if parent_name else None
        if parent is not None and getattr(parent, child, None) is module:
            try:
                delattr(parent, child)
            except (AttributeError, TypeError):
                pass
    return dropped
