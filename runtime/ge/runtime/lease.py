"""Borrowed-object lifetime: views that die when their callback returns.

A ``Lease`` is shared by everything a callback hands out (the context, runtime
tensors, their shape and format views, workspaces, argument builders). The
runtime ends the lease in a ``finally`` when the callback returns; from then
on every access through those objects raises RuntimeError.

An internal API of the runtime (``ge.custom_op`` and ``ge.engine`` make and
bind leases); op code never makes one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar


class Lease:
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

# The lease whose tensors hold data on this thread now (Note [numpy and
# borrowed tensors] in ``ge.runtime.tensor``). ``data_readable`` binds it;
# the execute path's hot loop sets and resets it directly (a named internal
# API: ge.engine.execute_frame).
DATA_LEASE: ContextVar[Lease | None] = ContextVar("ge_data_lease", default=None)


@contextlib.contextmanager
def data_readable(lease: Lease) -> Iterator[None]:
    """Within this block, on this thread, tensors borrowed under ``lease``
    hold data (the execute callback; Note [numpy and borrowed tensors] in
    ``ge.runtime.tensor``)."""
    token = DATA_LEASE.set(lease)
    try:
        yield
    finally:
        DATA_LEASE.reset(token)


def data_lease() -> Lease | None:
    """The lease whose tensors hold data on this thread now, if any."""
    return DATA_LEASE.get()
