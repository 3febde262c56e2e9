"""Work split over forked worker processes (Note [Loading in parallel] in
pipeline).

``map_chunks`` cuts a sequence into contiguous chunks, runs ``fn`` on each
in a worker forked from this process (so the workers see everything the
parent has made, copy-on-write, without pickling it) and returns the
results in chunk order; what ``fn`` returns is pickled back. One chunk, no
CPU to spare, or no ``fork`` on the platform: ``fn`` runs here, once.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def workers(count: int, least: int, jobs: int | None = None) -> int:
    """How many workers ``count`` items get: ``jobs`` when given; else one
    per CPU (at most 8), each with at least ``least`` items."""
    if jobs is not None:
        return max(1, min(jobs, count))
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, 8, count // max(1, least)))


def map_chunks(
    fn: Callable[[Sequence[T]], R], items: Sequence[T], count: int
) -> list[R]:
    if count <= 1 or len(items) <= 1:
        return [fn(items)]
    size = -(-len(items) // count)
    parts = [items[i : i + size] for i in range(0, len(items), size)]
    with multiprocessing.get_context("fork").Pool(len(parts)) as pool:
        return pool.map(fn, parts)
