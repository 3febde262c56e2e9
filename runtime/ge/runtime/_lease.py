"""Borrowed-object lifetime: views that die when their callback returns.

A ``Lease`` is shared by everything a callback hands out (the context, runtime
tensors, their shape and format views, workspaces, argument builders). The
runtime ends the lease in a ``finally`` when the callback returns; from then
on every access through those objects raises RuntimeError.
"""

from __future__ import annotations


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
