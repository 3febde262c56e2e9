"""The static memory plan: every intermediate tensor gets an offset in one
arena; tensors whose lifetimes do not overlap share memory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ge.device.memory import ALIGNMENT


def aligned(size: int) -> int:
    return (size + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


@dataclass(frozen=True)
class Interval:
    """A tensor in the arena: its size and the steps from its producer to its
    last reader (inclusive)."""

    size: int
    first: int
    last: int


def plan(intervals: Sequence[Interval]) -> tuple[list[int], int]:
    """(offset of each interval, arena size): largest first, each at the lowest
    aligned offset that overlaps no live interval placed before it."""
    order = sorted(range(len(intervals)), key=lambda i: (-intervals[i].size, i))
    offsets = [0] * len(intervals)
    placed: list[tuple[int, int, int]] = []  # (offset, end, index)
    total = 0
    for index in order:
        item = intervals[index]
        size = aligned(max(item.size, 1))
        busy = sorted(
            (off, end)
            for off, end, other in placed
            if not (
                intervals[other].last < item.first or item.last < intervals[other].first
            )
        )
        offset = 0
        for start, end in busy:
            if offset + size <= start:
                break
            offset = max(offset, end)
        offsets[index] = offset
        placed.append((offset, offset + size, index))
        total = max(total, offset + size)
    return offsets, total
