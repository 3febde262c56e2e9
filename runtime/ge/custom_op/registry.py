"""``register_op_impl``: a class whose methods implement a registered op.

Capabilities come from reflection (docs/ge-compat.md, "register_op_impl"): a callable
``execute`` (EagerExecuteOp), ``compile`` (CompilableOp),
``declare_launch_args`` (AnnotatedArgsOp). No base class is required.
``execute`` may be registered per backend with ``register_kernel``
(Note [Kernel backends] in ``ge.custom_op.kernels``).
"""

from __future__ import annotations

import enum
import inspect
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ge.custom_op import sink
from ge.custom_op.control_flow import ControlFlow, declared_control_flow
from ge.custom_op.kernels import INHERITED_KERNELS, OpBackend, collect_kernels

__all__ = [
    "Capability",
    "OpImplDescriptor",
    "register_op_impl",
    "get_registered_op_impls",
    "get_registered_op_impl_dicts",
    "get_registered_op_impl_by_descriptor_key",
    "get_registered_op_impl",
    "clear_registered_op_impls",
]


class Capability(enum.StrEnum):
    """What an implementation can do: each is a method of its class, in
    GE's order; the value is the method's name."""

    EXECUTE = "execute"
    COMPILE = "compile"
    DECLARE_LAUNCH_ARGS = "declare_launch_args"

    @property
    def interface(self) -> str:
        """GE's name for the capability (the registry query's word)."""
        return _INTERFACES[self]


_INTERFACES = {
    Capability.EXECUTE: "eager_execute",
    Capability.COMPILE: "compilable",
    Capability.DECLARE_LAUNCH_ARGS: "annotated_args",
}


@dataclass(frozen=True)
class OpImplDescriptor:
    descriptor_key: str
    op_type: str
    module_name: str
    class_name: str
    interfaces: tuple[Capability, ...]  # in GE's order
    cls: type
    source: str = ""  # file:line of the class statement, taken at registration
    # backend -> its execute function (Note [Kernel backends])
    kernels: Mapping[OpBackend, Callable[..., Any]] = field(
        default_factory=lambda: MappingProxyType({}), compare=False, repr=False
    )
    # The rule a subgraph op declares (Note [Declared control flow]).
    control_flow: ControlFlow | None = None

    def has(self, capability: Capability) -> bool:
        return capability in self.interfaces

    @property
    def host_kernel(self) -> Callable[..., Any] | None:
        """The execute registered with ``register_kernel(backend=OpBackend.HOST)``."""
        return self.kernels.get(OpBackend.HOST)

    def execute_function(self, backend: OpBackend | None = None) -> Callable[..., Any]:
        """The execute a run calls: ``backend``'s, or the device kernel, else
        the host kernel (Note [Kernel backends]); the class's ``execute``
        when no backend was registered."""
        if backend is not None:
            return self.kernels[backend]
        for which in (OpBackend.DEVICE, OpBackend.HOST):
            if which in self.kernels:
                return self.kernels[which]
        return inspect.getattr_static(self.cls, "execute")

    def ge_interfaces(self) -> list[str]:
        """GE's interface names, in GE's order."""
        names = [b.interface for b in OpBackend if b in self.kernels]
        if not self.kernels and Capability.EXECUTE in self.interfaces:
            names.append(Capability.EXECUTE.interface)
        names += [c.interface for c in self.interfaces if c is not Capability.EXECUTE]
        return names

    def as_dict(self) -> dict[str, Any]:
        return {
            "descriptor_key": self.descriptor_key,
            "op_type": self.op_type,
            "module_name": self.module_name,
            "class_name": self.class_name,
            "interfaces": self.ge_interfaces(),
        }


# One lock for both registries (implementations here, prototypes in
# proto.py): registering one half checks it against the other, and a plugin
# load commits both at once.
LOCK = threading.RLock()


class _Registry:
    def __init__(self) -> None:
        self.lock = LOCK
        self.by_type: dict[str, OpImplDescriptor] = {}

    def add(self, descriptor: OpImplDescriptor) -> None:
        with self.lock:
            existing = self.by_type.get(descriptor.op_type)
            if existing is not None:
                if existing.cls is descriptor.cls or (
                    existing.class_name == descriptor.class_name
                    and existing.source == descriptor.source
                    and existing.source != ""
                ):
                    return  # the same class registered again (maybe re-imported): idempotent
                raise ValueError(
                    f"register_op_impl op_type '{descriptor.op_type}' failed: already "
                    f"implemented by {existing.descriptor_key}; conflicting "
                    f"implementation {descriptor.descriptor_key}"
                )
            self.by_type[descriptor.op_type] = descriptor


def source_location(obj: Any) -> str:
    """``file:line`` of a class or function statement, "" when unknown
    (taken at registration, while its module is importable)."""
    try:
        file = inspect.getsourcefile(obj)
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return ""
    return f"{file}:{line}" if file else ""


REGISTRY = _Registry()


def describe(cls: Any, op_type: str) -> OpImplDescriptor:
    """The descriptor of an implementation class (TypeError if it is none)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_op_impl decorates a class, got {type(cls).__name__}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise TypeError(
            f"register_op_impl op_type '{op_type}': class {cls.__qualname__} is "
            f"abstract (implement {missing})"
        )
    kernels = collect_kernels(cls)
    interfaces: list[Capability] = []
    for method in Capability:
        value = getattr(cls, method, None)
        if value is None:
            continue
        if not callable(value):
            raise TypeError(
                f"register_op_impl op_type '{op_type}': {cls.__qualname__}.{method} "
                "is not callable"
            )
        interfaces.append(method)
    if not interfaces:
        raise TypeError(
            f"register_op_impl op_type '{op_type}': class {cls.__qualname__} has none "
            "of execute, compile, declare_launch_args"
        )
    if (
        Capability.COMPILE in interfaces
        and Capability.DECLARE_LAUNCH_ARGS not in interfaces
        and Capability.EXECUTE not in interfaces
    ):
        raise TypeError(
            f"register_op_impl op_type '{op_type}': compile alone cannot run the op; "
            "add execute or declare_launch_args"
        )
    control_flow = declared_control_flow(cls, op_type)
    if control_flow is not None and Capability.EXECUTE not in interfaces:
        raise TypeError(
            f"register_op_impl op_type '{op_type}': {cls.__qualname__} declares "
            f"control_flow {control_flow.name} but has no execute; a subgraph op "
            "runs its branches from execute online (docs/runtime.md, Subgraph ops)"
        )
    return OpImplDescriptor(
        descriptor_key=f"{cls.__module__}:{cls.__qualname__}:{op_type}",
        op_type=op_type,
        module_name=cls.__module__,
        class_name=cls.__qualname__,
        interfaces=tuple(interfaces),
        cls=cls,
        source=source_location(cls),
        kernels=MappingProxyType(kernels),
        control_flow=control_flow,
    )


def register_op_impl(*, op_type: str) -> Callable[[type], type]:
    """Register the decorated class as ``op_type``'s implementation."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError("register_op_impl: op_type must be a non-empty str")

    def decorate(cls: type) -> type:
        descriptor = describe(cls, op_type)
        sink.current().register_impl(descriptor)
        # What a subclass inherits (Note [Kernel backends]).
        setattr(cls, INHERITED_KERNELS, dict(descriptor.kernels))
        return cls

    return decorate


def get_registered_op_impls() -> list[OpImplDescriptor]:
    with REGISTRY.lock:
        return [REGISTRY.by_type[k] for k in sorted(REGISTRY.by_type)]


def get_registered_op_impl_dicts() -> list[dict[str, Any]]:
    return [d.as_dict() for d in get_registered_op_impls()]


def get_registered_op_impl_by_descriptor_key(key: str) -> OpImplDescriptor | None:
    return next((d for d in get_registered_op_impls() if d.descriptor_key == key), None)


def get_registered_op_impl(op_type: str) -> OpImplDescriptor | None:
    with REGISTRY.lock:
        return REGISTRY.by_type.get(op_type)


def clear_registered_op_impls() -> None:
    """Drop every implementation and forget the modules that registered them
    at import time, so importing them again registers again."""
    with REGISTRY.lock:
        dropped = list(REGISTRY.by_type.values())
        REGISTRY.by_type.clear()
    sink.current().forget_modules([(d.module_name, d.class_name) for d in dropped])
