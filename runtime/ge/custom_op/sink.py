"""Where ``register_op`` and ``register_op_impl`` deliver what they build.

Note [Registration sink]: the decorators (modules ``proto`` and ``registry``)
build a prototype or an implementation descriptor and hand it to the sink;
the ``clear_registered_*`` functions tell it which modules' registrations
they dropped. The sink is the plugin loader (``bootstrap``): inside a
plugin load it stages the loading thread's registrations, otherwise it
registers them at once, checked against the other registry. The loader
installs itself when ``ge.custom_op`` is imported (its ``__init__``
imports it), so the registries never import the loader and the loader sits
above them: registries, then signatures, then the loader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ge.custom_op.proto import OpProto
    from ge.custom_op.registry import OpImplDescriptor


@dataclass(frozen=True)
class Sink:
    """What the registration functions call."""

    register_proto: Callable[[OpProto], None]
    register_impl: Callable[[OpImplDescriptor], None]
    # (module name, qualified name) of what a clear dropped
    forget_modules: Callable[[list[tuple[str, str]]], None]


_installed: Sink | None = None


def install(sink: Sink) -> None:
    """Make ``sink`` the one registrations go to (the plugin loader does,
    once, when it is imported)."""
    global _installed
    _installed = sink


def current() -> Sink:
    """The installed sink."""
    if _installed is None:  # pragma: no cover - ge.custom_op installs it
        raise RuntimeError("no registration sink: import ge.custom_op first")
    return _installed
