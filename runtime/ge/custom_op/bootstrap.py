"""Where registrations land, and loading op modules from ASCEND_CUSTOM_OPP_PATH.

Outside a plugin load, ``register_op`` and ``register_op_impl`` register at
once (an implementation is checked against its prototype as soon as both
exist). Inside ``load_custom_op_plugins`` they are staged: after every module
imported, all staged prototypes are registered first, then every staged
implementation is validated and registered. Any failure (a missing path, a
module that raises, a bad signature, a conflict) rolls the whole load back:
nothing it staged stays registered and the modules it imported are
forgotten, so a corrected path can be loaded again.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from ge.custom_op import proto as _proto
from ge.custom_op import registry as _registry
from ge.custom_op.signature import validate_impl

ENV = "ASCEND_CUSTOM_OPP_PATH"

_lock = threading.RLock()
_imported: set[str] = set()  # canonical paths imported by earlier loads


@dataclass
class _Load:
    protos: list[_proto.OpProto] = field(default_factory=list)
    impls: list[_registry.OpImplDescriptor] = field(default_factory=list)


_current: _Load | None = None


def register_proto(proto: _proto.OpProto) -> None:
    with _lock:
        if _current is not None:
            for staged in _current.protos:
                if (
                    staged.op_type == proto.op_type
                    and staged.content() != proto.content()
                ):
                    raise ValueError(
                        f"register_op op_type '{proto.op_type}' failed: registered by "
                        f"{staged.descriptor_key} and {proto.descriptor_key} in one load"
                    )
            _current.protos.append(proto)
            return
        previous = _proto.REGISTRY.by_type.get(proto.op_type)
        _proto.REGISTRY.add(proto)
        impl = _registry.get_registered_op_impl(proto.op_type)
        if impl is not None:
            try:
                validate_impl(impl.cls, proto, impl.interfaces)
            except BaseException:
                # The registration failed: leave the registry as it was.
                with _proto.REGISTRY.lock:
                    if previous is None:
                        _proto.REGISTRY.by_type.pop(proto.op_type, None)
                    else:
                        _proto.REGISTRY.by_type[proto.op_type] = previous
                raise


def register_impl(descriptor: _registry.OpImplDescriptor) -> None:
    with _lock:
        if _current is not None:
            _current.impls.append(descriptor)
            return
        proto = _proto.get_registered_op_proto_by_op_type(descriptor.op_type)
        if proto is not None:
            validate_impl(descriptor.cls, proto, descriptor.interfaces)
        _registry.REGISTRY.add(descriptor)


def plugin_paths(value: str | None = None) -> list[str]:
    """The items of ASCEND_CUSTOM_OPP_PATH (or ``value``), empty ones dropped."""
    text = os.environ.get(ENV, "") if value is None else value
    return [item for item in text.split(os.pathsep) if item.strip()]


def _modules_of(item: str) -> list[tuple[str, Path, Path | None]]:
    """(module name, file, directory to put on sys.path) for one path item."""
    path = Path(item)
    if not path.exists():
        raise FileNotFoundError(f"{ENV} item {item!r} does not exist")
    canonical = path.resolve()
    if canonical.is_file():
        if canonical.suffix != ".py":
            raise ValueError(f"{ENV} item {item!r} is not a .py file or a directory")
        digest = hashlib.sha256(str(canonical).encode()).hexdigest()[:12]
        return [(f"_ge_py_custom_op_{canonical.stem}_{digest}", canonical, None)]
    found = []
    for child in sorted(canonical.iterdir()):
        if child.name.startswith(("_", ".")):
            continue
        if child.is_file() and child.suffix == ".py":
            found.append((child.stem, child.resolve(), canonical))
        elif child.is_dir() and (child / "__init__.py").is_file():
            found.append((child.name, (child / "__init__.py").resolve(), canonical))
    return found


def _import(name: str, file: Path, directory: Path | None) -> ModuleType:
    if directory is None:
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {file}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    sys.path.insert(0, str(directory))
    try:
        module = importlib.import_module(name)
    finally:
        try:
            sys.path.remove(str(directory))
        except ValueError:
            pass
    # A module of that name imported earlier (json, utils, another op
    # directory's module) would be returned instead, and the op module would
    # silently never run.
    found = getattr(module, "__file__", None)
    if found is None or Path(found).resolve() != file:
        raise ImportError(
            f"{file} cannot be imported as module {name!r}: that name is already "
            f"taken by {found or 'a built-in module'}; rename the op module"
        )
    return module


def load_custom_op_plugins(value: str | None = None) -> list[str]:
    """Import the op modules named by ASCEND_CUSTOM_OPP_PATH (or ``value``).

    Each item is a ``.py`` file or a directory whose ``.py`` files and
    packages (one level, names not starting with ``_``) are imported. A path
    already loaded in this process is skipped. Returns the canonical paths
    imported now. Raises (and keeps nothing) on any failure.
    """
    global _current
    with _lock:
        if _current is not None:
            raise RuntimeError("load_custom_op_plugins is already running")
        plan: list[tuple[str, Path, Path | None]] = []
        for item in plugin_paths(value):
            for entry in _modules_of(item):
                if str(entry[1]) not in _imported and all(
                    str(entry[1]) != str(p[1]) for p in plan
                ):
                    plan.append(entry)
        before = set(sys.modules)
        load = _Load()
        _current = load
        try:
            for name, file, directory in plan:
                try:
                    _import(name, file, directory)
                except Exception as exc:
                    exc.add_note(
                        f"while loading custom op module {file}; nothing from "
                        f"this {ENV} load was registered"
                    )
                    raise
        except BaseException:
            _current = None
            _forget_modules(before, plan)
            raise
        _current = None
        try:
            _commit(load)
        except BaseException:
            _forget_modules(before, plan)
            raise
        _imported.update(str(entry[1]) for entry in plan)
        return [str(entry[1]) for entry in plan]


def _forget_modules(
    before: set[str], plan: list[tuple[str, Path, Path | None]]
) -> None:
    """Forget the op modules a failed load imported (and their submodules
    and sibling helpers), so a corrected path loads again. Other modules
    they happened to import first (numpy.fft, ge.es, ...) stay: dropping
    them would duplicate their state, and an extension module cannot be
    imported twice in one process."""
    names = {name for name, _, _ in plan}
    files = {file for _, file, _ in plan}
    for name in set(sys.modules) - before:
        if name in names or name.split(".")[0] in names:
            sys.modules.pop(name, None)
            continue
        module_file = getattr(sys.modules.get(name), "__file__", None)
        if not module_file:
            continue
        try:
            path = Path(module_file).resolve()
        except (OSError, ValueError):
            continue
        if path in files or any(
            directory is not None and path.is_relative_to(directory)
            for _, _, directory in plan
        ):
            sys.modules.pop(name, None)


def _commit(load: _Load) -> None:
    """Prototypes first, then implementations; all or nothing."""
    added_protos: list[str] = []
    added_impls: list[str] = []
    try:
        for proto in load.protos:
            existed = proto.op_type in _proto.REGISTRY.by_type
            _proto.REGISTRY.add(proto)
            if not existed:
                added_protos.append(proto.op_type)
        for impl in load.impls:
            proto = _proto.get_registered_op_proto_by_op_type(impl.op_type)
            if proto is None:
                raise TypeError(
                    f"register_op_impl op_type '{impl.op_type}' ({impl.descriptor_key}): "
                    "no prototype is registered for it (register_op)"
                )
            validate_impl(impl.cls, proto, impl.interfaces)
            existed = impl.op_type in _registry.REGISTRY.by_type
            _registry.REGISTRY.add(impl)
            if not existed:
                added_impls.append(impl.op_type)
    except BaseException:
        with _proto.REGISTRY.lock:
            for op_type in added_protos:
                _proto.REGISTRY.by_type.pop(op_type, None)
        with _registry.REGISTRY.lock:
            for op_type in added_impls:
                _registry.REGISTRY.by_type.pop(op_type, None)
        raise


def get_registered_op_impls() -> list[dict[str, object]]:
    """Implementation descriptors as dicts (GE's bootstrap query)."""
    return _registry.get_registered_op_impl_dicts()


def get_registered_op_protos() -> list[dict[str, object]]:
    return _proto.get_registered_op_proto_dicts()


def forget_modules(registrants: list[tuple[str, str]]) -> None:
    """Forget the modules that registered what a ``clear_registered_*`` call
    dropped, so importing them (or loading their path) again registers again.

    ``registrants`` are (module name, qualified name) pairs. Registrations
    made inside a function (``<locals>`` in the qualified name) are skipped:
    importing their module again would not repeat them. A module's parent
    packages go too (``from pkg import Op`` re-runs the package's
    ``__init__``), but never a top-level package.
    """
    with _lock:
        for module_name, qualname in registrants:
            if "<locals>" in qualname or module_name in ("__main__", "builtins"):
                continue
            parts = module_name.split(".")
            for depth in range(len(parts), 0, -1):
                name = ".".join(parts[:depth])
                if depth == 1 and len(parts) > 1:
                    break
                module = sys.modules.pop(name, None)
                file = getattr(module, "__file__", None)
                if file:
                    _imported.discard(str(Path(file).resolve()))


def reset_loaded_paths() -> None:
    """Forget which paths were loaded (tests; GE has no equivalent)."""
    with _lock:
        _imported.clear()
