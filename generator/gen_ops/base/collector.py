"""Pausing Python's cycle collector around work that makes millions of
objects in one go and no cycles worth collecting."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Note [Registries and the cycle collector]: a registry of 5,000 ops in
    10 releases is millions of JSON containers and records, made in one go.
    Python's cycle collector runs every few hundred allocations and, once
    they outlive its young generations, walks all of them again and again:
    with it, comparing such a registry took three times as long. Nothing
    the history code makes holds a cycle, so reference counting frees it
    all; the collector is paused while a registry is read and compared.
    Loading specs is the same (5,000 specs are a million positions, values
    and model objects; PyYAML's loader breaks its own cycles when it is
    disposed): paused, it takes a seventh less time. A render keeps a
    model, facts and rendered files for every op to its end, so the
    collector is paused for the whole of it: a 5,000-op full render takes
    7 % less time (and 45 MB more memory at its peak, what Jinja2's
    rendering leaves in cycles). What a paused collector leaves is
    collected when it runs again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
