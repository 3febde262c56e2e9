"""Where registrations land, and loading op modules from ASCEND_CUSTOM_OPP_PATH.

Outside a plugin load, ``register_op`` and ``register_op_impl`` register at
once (an implementation is checked against its prototype as soon as both
exist). Inside ``load_custom_op_plugins`` the loading thread's registrations
are staged: after every module imported, all staged prototypes are
registered first, then every staged implementation is validated and
registered. Any failure (a missing path, a module that raises, a bad
signature, a conflict) rolls the whole load back: nothing it staged stays
registered and every module it imported is forgotten (``_module_rollback``),
so a corrected path loads cleanly.

Threads: one load runs at a time (``_load_lock``), so concurrent compiles
never import a module twice; staging is per thread, so other threads
register directly (under the registries' one lock) and never wait for a
load, which could otherwise deadlock on a module both import.
Op modules are named as Note [Op module names] in ``_op_paths`` says, and
import the modules beside them as Note [Sibling imports] in ``_siblings``
says.
The decorators reach this module through the sink it installs when imported
(Note [Registration sink] in ``sink``); they never import it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ge.custom_op import _entry_points, _module_rollback, _siblings, builtin, sink
from ge.custom_op import proto as _proto
from ge.custom_op import registry as _registry
from ge.custom_op._op_paths import ENV, OpModule, modules_of, resolve, unsafe_paths
from ge.custom_op.signature import validate_impl

__all__ = [
    "ENV",
    "InsecureOpPathWarning",
    "load_builtin_ops",
    "load_custom_op_plugins",
    "plugin_paths",
    "get_registered_op_impls",
    "get_registered_op_protos",
]


class InsecureOpPathWarning(UserWarning):
    """An ASCEND_CUSTOM_OPP_PATH path every user can write: anyone could
    change the op code it runs. The path is loaded anyway (as GE does); the
    warning says which path and how to fix it."""


_load_lock = threading.RLock()  # one load at a time
_state = threading.local()  # .load: the _Load this thread is staging
_imported: set[str] = set()  # canonical files imported by earlier loads
_resolved: dict[str, Path] = {}  # item as written -> where it was first loaded


@dataclass
class _Load:
    protos: list[_proto.OpProto] = field(default_factory=list)
    impls: list[_registry.OpImplDescriptor] = field(default_factory=list)


def _staging() -> _Load | None:
    return getattr(_state, "load", None)


def _refuse_builtin(what: str, op_type: str, source: str) -> None:
    message = builtin.refusal(what, op_type, source)
    if message is not None:
        raise ValueError(message)


def register_proto(proto: _proto.OpProto) -> None:
    _refuse_builtin("register_op", proto.op_type, proto.source)
    load = _staging()
    if load is not None:
        for staged in load.protos:
            if staged.op_type == proto.op_type and staged.content() != proto.content():
                raise ValueError(
                    f"register_op op_type '{proto.op_type}' failed: registered by "
                    f"{staged.descriptor_key} and {proto.descriptor_key} in one load"
                )
        load.protos.append(proto)
        return
    with _registry.LOCK:
        previous = _proto.REGISTRY.by_type.get(proto.op_type)
        _proto.REGISTRY.add(proto)
        impl = _registry.REGISTRY.by_type.get(proto.op_type)
        if impl is not None:
            try:
                validate_impl(impl.cls, proto, impl.interfaces)
            except BaseException:
                # The registration failed: leave the registry as it was.
                if previous is None:
                    _proto.REGISTRY.by_type.pop(proto.op_type, None)
                else:
                    _proto.REGISTRY.by_type[proto.op_type] = previous
                raise


def register_impl(descriptor: _registry.OpImplDescriptor) -> None:
    _refuse_builtin("register_op_impl", descriptor.op_type, descriptor.source)
    load = _staging()
    if load is not None:
        load.impls.append(descriptor)
        return
    with _registry.LOCK:
        proto = _proto.REGISTRY.by_type.get(descriptor.op_type)
        if proto is not None:
            validate_impl(descriptor.cls, proto, descriptor.interfaces)
        _registry.REGISTRY.add(descriptor)


def plugin_paths(value: str | None = None) -> list[str]:
    """The items of ASCEND_CUSTOM_OPP_PATH (or ``value``), empty ones dropped."""
    text = os.environ.get(ENV, "") if value is None else value
    return [item for item in text.split(os.pathsep) if item.strip()]


def _ensure_package(module: OpModule) -> None:
    """The private package of the module's directory (Note [Op module names])."""
    existing = sys.modules.get(module.package)
    if existing is not None:
        if list(getattr(existing, "__path__", ())) != [str(module.directory)]:
            raise ImportError(
                f"{module.file}: the package name {module.package} for its "
                f"directory is taken by {existing!r}"
            )
        return
    spec = importlib.machinery.ModuleSpec(module.package, None, is_package=True)
    spec.submodule_search_locations = [str(module.directory)]
    package = importlib.util.module_from_spec(spec)
    package.__doc__ = f"The op modules of {module.directory} ({ENV})."
    sys.modules[module.package] = package


def _import(module: OpModule) -> None:
    _ensure_package(module)
    try:
        imported = importlib.import_module(module.qualified)
    except Exception as exc:
        _explain(exc, module)
        raise
    except SystemExit as exc:
        # Importing an op module must not end the process (a script's
        # sys.exit(main()) without its __main__ guard, say).
        error = ImportError(
            f"op module {module.file} raised SystemExit({exc.code!r}) while being "
            "imported; an op module must not exit"
        )
        _explain(error, module)
        raise error from exc
    found = getattr(imported, "__file__", None)
    if found is None or Path(found).resolve() != module.file:
        raise ImportError(
            f"{module.file} cannot be imported as {module.qualified}: "
            f"{found or 'a built-in module'} was found instead; rename the op module"
        )


def _explain(exc: Exception, module: OpModule) -> None:
    """Notes saying which module failed, and what a missing module may mean."""
    exc.add_note(
        f"while loading custom op module {module.file}; nothing from this {ENV} "
        "load was registered"
    )
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if not missing:
        return
    top = missing.split(".")[0]
    if (module.directory / f"{top}.py").is_file() or (
        module.directory / top / "__init__.py"
    ).is_file():
        exc.add_note(
            f"{top} is a module of the op directory {module.directory}, but code "
            "outside the op directory imported it by its bare name, and only op "
            "modules and the modules beside them resolve bare names there (Note "
            "[Sibling imports]); import it from the op module instead"
        )
    elif top == "ge_impl" or missing.startswith("ge.es."):
        exc.add_note(
            f"{missing} would be generated by gen-ops: put the python directory of its "
            "output (gen-ops --out DIR: DIR/python) on PYTHONPATH"
        )


def load_custom_op_plugins(
    value: str | None = None, *, installed: bool = True
) -> list[str]:
    """Import the op modules of installed op libraries (``installed``; Note
    [Installed op libraries] in ``_entry_points``) and those named by
    ASCEND_CUSTOM_OPP_PATH (or ``value``).

    Each item is a ``.py`` file or a directory whose ``.py`` files and
    packages (one level, names not starting with ``_``) are imported. A file
    already loaded in this process is skipped. Returns the canonical paths
    imported now. Raises (and keeps nothing) on any failure; warns
    (InsecureOpPathWarning) about paths every user can write.
    """
    with _load_lock:
        if _staging() is not None:
            raise RuntimeError("load_custom_op_plugins is already running")
        libraries = _entry_points.installed_libraries() if installed else []
        items = {item: resolve(item, _resolved) for item in plugin_paths(value)}
        sources: list[Path] = []  # the items this load imports from
        plan: dict[Path, OpModule] = {}
        for library in libraries:
            for module in modules_of(library.label, library.directory):
                if str(module.file) not in _imported and module.file not in plan:
                    plan[module.file] = module
                    sources.append(library.directory)
        for item, path in items.items():
            for module in modules_of(item, path):
                if str(module.file) not in _imported and module.file not in plan:
                    plan[module.file] = module
                    sources.append(path)
        if plan:
            _load(plan, sources)
        _resolved.update(
            (item, path) for item, path in items.items() if not os.path.isabs(item)
        )
        _imported.update(str(file) for file in plan)
        return [str(file) for file in plan]


def _builtin_registered() -> bool:
    with _registry.LOCK:
        return all(
            t in _proto.REGISTRY.by_type and t in _registry.REGISTRY.by_type
            for t in builtin.OP_TYPES
        )


def load_builtin_ops() -> list[str]:
    """Register GE's built-in math ops unless they are (Note [Built-in ops]
    in ``builtin``): import the library's author modules in one staged load,
    as an op directory is loaded. Returns the canonical paths imported now
    (none when they were registered already). FileNotFoundError when this
    ge-ops has no built-in library."""
    if _builtin_registered():
        return []
    with _load_lock:
        if _builtin_registered():
            return []
        if _staging() is not None:
            raise RuntimeError("load_builtin_ops cannot run inside a plugin load")
        where = builtin.locations()
        if where is None:
            raise FileNotFoundError(
                "the built-in math ops of ge-ops are missing from this installation "
                "(ge/_builtin_ops/math); reinstall ge-ops"
            )
        modules = modules_of(str(where.ops), where.ops.resolve())
        # Some may be imported but not registered (their registrations were
        # cleared): all of them are imported again, in one load.
        files = [str(m.file) for m in modules]
        _imported.difference_update(files)
        stale = [m.qualified for m in modules if m.qualified in sys.modules]
        _module_rollback.forget(stale, keep_native=False)
        _load({m.file: m for m in modules}, [where.ops])
        _imported.update(files)
        return files


def _load(plan: dict[Path, OpModule], sources: list[Path]) -> None:
    """Import the planned modules and commit what they registered; on any
    failure forget every module imported and re-raise."""
    for message in unsafe_paths(sources, plan.values()):
        warnings.warn(message, InsecureOpPathWarning, stacklevel=3)
    importlib.invalidate_caches()
    _siblings.install_last()
    _siblings.check_directories({module.directory for module in plan.values()})
    load = _Load()
    with _module_rollback.ImportTracker() as tracker:
        try:
            _state.load = load
            try:
                for module in plan.values():
                    _import(module)
            finally:
                _state.load = None
            _commit(load)
        except BaseException:
            _module_rollback.forget(tracker.imported())
            raise


def _commit(load: _Load) -> None:
    """Prototypes first, then implementations; all or nothing, and atomic to
    anyone reading the registries."""
    with _registry.LOCK:
        added_protos: list[str] = []
        added_impls: list[str] = []
        try:
            for proto in load.protos:
                existed = proto.op_type in _proto.REGISTRY.by_type
                _proto.REGISTRY.add(proto)
                if not existed:
                    added_protos.append(proto.op_type)
            for impl in load.impls:
                found = _proto.REGISTRY.by_type.get(impl.op_type)
                if found is None:
                    raise TypeError(
                        f"register_op_impl op_type '{impl.op_type}' "
                        f"({impl.descriptor_key}): no prototype is registered for "
                        "it (register_op)"
                    )
                validate_impl(impl.cls, found, impl.interfaces)
                existed = impl.op_type in _registry.REGISTRY.by_type
                _registry.REGISTRY.add(impl)
                if not existed:
                    added_impls.append(impl.op_type)
        except BaseException:
            for op_type in added_protos:
                _proto.REGISTRY.by_type.pop(op_type, None)
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
    with _load_lock:
        names = []
        for module_name, qualname in registrants:
            if "<locals>" in qualname or module_name in ("__main__", "builtins"):
                continue
            parts = module_name.split(".")
            for depth in range(len(parts), 0, -1):
                if depth == 1 and len(parts) > 1:
                    break
                names.append(".".join(parts[:depth]))
        for name in names:
            file = getattr(sys.modules.get(name), "__file__", None)
            if file:
                _imported.discard(str(Path(file).resolve()))
        _module_rollback.forget(names, keep_native=False)


def reset_loaded_paths() -> None:
    """Forget which paths were loaded (tests; GE has no equivalent)."""
    with _load_lock:
        _imported.clear()
        _resolved.clear()


sink.install(sink.Sink(register_proto, register_impl, forget_modules))
