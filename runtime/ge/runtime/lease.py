"""Borrowed-object lifetime: views that die when their callback returns.

A ``Lease`` is shared by everything a callback hands out (the context, runtime
tensors, their shape and format views, workspaces, argument builders). The
runtime ends the lease in a ``finally`` when the callback returns; from then
on every access through those objects raises RuntimeError.

An internal API of the runtime (``ge.custom_op`` and ``ge.engine`` make and
bind leases); op code never makes one.
"""

from __future__ import annotations

from ge.device.rt import CALLBACK


class Lease:
    """``valid`` until ``end``; ``what`` names the callback in messages.
    The execute path makes one per call without ``__init__`` (its hot
    loop, ge.engine.execute_frame), setting both fields."""

    __slots__ = ("valid", "what")

    def __init__(self, what: str) -> None:
        self.valid = True
        self.what = what

    def end(self) -> None:
        self.valid = False

    def check(self, obj: object) -> None:
        if not self.valid:
            raise RuntimeError(
                f"{type(obj).__name__} was borrowed from {self.what} and is no "
                "longer valid: borrowed objects may only be used inside the "
                "callback that received them"
            )


# Owned objects (TensorDesc and its shapes) use this lease, which never ends.
OWNED = Lease("its owner")


def data_lease() -> Lease | None:
    """The lease whose tensors hold data on this thread now, if any: the
    running execute callback's (Note [One binding per call] in
    ``ge.device.rt``)."""
    scope = CALLBACK.get()
    return None if scope is None else scope.lease  # type: ignore[return-value]
