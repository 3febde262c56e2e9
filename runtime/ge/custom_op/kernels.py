"""``register_kernel``: which backend an ``execute`` is for (GE's names and rules,
docs/ge-compat.md, "register_kernel and host kernels").

Note [Kernel backends]: inside a ``register_op_impl`` class body,
``@register_kernel(backend=OpBackend.HOST)`` marks an ``execute`` as the op's
host kernel (GE's HostCpu kernel, interface ``host_cpu_execute``) and
``OpBackend.DEVICE`` as its device kernel (``eager_execute``). A class may
define ``execute`` twice, once per backend; the class attribute is then the
last one, so the bindings are collected while the body runs (in its
namespace) and taken off the class when it is registered. A plain
``execute`` (no decorator) is the device kernel, as before. Constant folding
calls the host kernel at compile time (Note [Folding custom ops] in
``ge.engine.passes.folding``); a run calls the device kernel, or the host
kernel when there is none (the CPU device and the host are one machine).
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OpBackend", "register_kernel", "collect_kernels"]

_COLLECTOR = "__ge_pending_custom_op_kernels__"
INHERITED_KERNELS = "__ge_kernels__"  # set on a registered class


class OpBackend(enum.Enum):
    """The backend an ``execute`` registered with ``register_kernel`` runs on."""

    DEVICE = "device"
    HOST = "host"

    @property
    def interface(self) -> str:
        """GE's interface name for an execute of this backend."""
        return "eager_execute" if self is OpBackend.DEVICE else "host_cpu_execute"


def _where(function: Callable[..., Any]) -> str:
    code = getattr(function, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else "<unknown>"


@dataclass
class _Collector:
    bindings: dict[OpBackend, Callable[..., Any]] = field(default_factory=dict)

    def holds(self, value: object) -> bool:
        return any(value is f for f in self.bindings.values())


def _plain(descriptor: object) -> Callable[..., Any] | None:
    if isinstance(descriptor, (staticmethod, classmethod)):
        descriptor = descriptor.__func__
    return descriptor if inspect.isfunction(descriptor) else None


def register_kernel(
    *, backend: OpBackend
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated ``execute`` for ``backend`` (Note [Kernel backends])."""
    if not isinstance(backend, OpBackend):
        raise TypeError(
            "register_kernel: backend must be an OpBackend member "
            f"(OpBackend.DEVICE or OpBackend.HOST), got {backend!r}"
        )

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        plain = _plain(function)
        if plain is None:
            raise TypeError(
                "register_kernel decorates a function (a method, staticmethod or "
                f"classmethod), got {type(function).__name__}"
            )
        if plain.__name__ != "execute":
            raise TypeError(
                f"register_kernel decorates execute only, not {plain.__name__!r} "
                f"({_where(plain)})"
            )
        frame = inspect.currentframe()
        try:
            body = frame.f_back if frame is not None else None
            namespace = body.f_locals if body is not None else {}
        finally:
            del frame
        if "__module__" not in namespace or "__qualname__" not in namespace:
            raise TypeError(
                f"register_kernel must decorate execute in a class body ({_where(plain)})"
            )
        collector = namespace.setdefault(_COLLECTOR, _Collector())
        earlier = namespace.get("execute")
        if earlier is not None and not collector.holds(earlier):
            raise TypeError(
                f"register_kernel ({_where(plain)}): an earlier execute of this class "
                "has no register_kernel; give every execute a backend"
            )
        if backend in collector.bindings:
            raise TypeError(
                f"register_kernel: backend {backend.value!r} is registered twice: "
                f"{_where(collector.bindings[backend])} and {_where(plain)}"
            )
        collector.bindings[backend] = function
        return function

    return decorate


def collect_kernels(cls: type) -> dict[OpBackend, Callable[..., Any]]:
    """The execute of each backend of ``cls`` (its own, else inherited):
    a plain ``execute`` is the device kernel. TypeError when an execute of
    the class body has no backend beside ones that do."""
    collector = cls.__dict__.get(_COLLECTOR)
    if isinstance(collector, _Collector):
        delattr(cls, _COLLECTOR)
        final = cls.__dict__.get("execute")
        if not collector.holds(final):
            if isinstance(final, (staticmethod, classmethod)) and collector.holds(
                final.__func__
            ):
                raise TypeError(
                    f"{cls.__qualname__}: register_kernel must be the outermost "
                    "decorator of execute (above staticmethod/classmethod)"
                )
            raise TypeError(
                f"{cls.__qualname__}: an execute defined after the register_kernel "
                "ones has no backend; give every execute a register_kernel"
            )
        return dict(collector.bindings)
    for klass in cls.__mro__:
        own = klass.__dict__.get(INHERITED_KERNELS)
        if own is not None:
            return dict(own)
        if _plain(klass.__dict__.get("execute")) is not None:
            if getattr(klass.__dict__["execute"], "__isabstractmethod__", False):
                return {}
            return {OpBackend.DEVICE: klass.__dict__["execute"]}
    return {}
