"""Signals as exceptions, and holding them while the output is renamed in.

SIGINT, SIGTERM and SIGHUP raise ``Interrupted`` in the main thread, so the
writer can remove what it staged before the process exits (with status
128 + the signal's number, as a shell reports a process the signal ended).
While the staged files are renamed into place the signals are held and
raised once the renames are done (Note [One transaction] in transaction.py).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP")
    if hasattr(signal, name)
)


class Interrupted(BaseException):
    """A signal asked gen-ops to stop (a BaseException, like KeyboardInterrupt,
    so that ``except Exception`` does not swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def status(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def as_exceptions() -> Iterator[None]:
    """Within: each of SIGNALS raises Interrupted (the main thread only;
    elsewhere nothing changes). The previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {signum: signal.signal(signum, _raise) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def held(deliver: bool = True) -> Iterator[None]:
    """Within: SIGNALS are recorded, not acted on; the first one recorded is
    raised as Interrupted when the block ends without an error of its own
    (dropped when ``deliver`` is false: the caller is already stopping)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def record(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    saved: dict[int, Any] = {
        signum: signal.signal(signum, record) for signum in SIGNALS
    }
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    if pending and deliver:
        raise Interrupted(pending[0])
