"""The releases a check compares with: GE's window (docs/ge-compat.md,
"History registry").

The anchor is the date of a named release (H109 when the index does not
list it) or today. The window holds every release dated from ``days``
before the anchor up to the anchor itself; later releases are left out.
Releases come oldest first.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.base.diagnostics import Sink
from gen_ops.history import dates
from gen_ops.history.dates import ReleaseDate
from gen_ops.history.registry import Index, Release

DEFAULT_DAYS = 365


@dataclass(frozen=True)
class Window:
    anchor: ReleaseDate
    days: int
    releases: tuple[Release, ...]  # oldest first


def find(index: Index, version: str, option: str, sink: Sink) -> Release | None:
    """The release ``version`` of the index, or None after H109 (``option``
    is the command-line option that named it)."""
    release = index.find(version)
    if release is None:
        listed = ", ".join(r.version for r in index.releases) or "none"
        sink.emit(
            "H109",
            index.span(("releases",)),
            f"{option} {version}: the registry lists no such release (it lists: "
            f"{listed})",
            "name a release the index lists, or leave the option out",
        )
    return release


def select(index: Index, anchor: ReleaseDate, days: int) -> Window:
    """The releases dated ``0 <= anchor - date <= days`` days, oldest first."""
    end = anchor.day
    return Window(
        anchor,
        days,
        tuple(r for r in index.releases if 0 <= end - r.date.day <= days),
    )


def anchored(index: Index, version: str | None, days: int, sink: Sink) -> Window | None:
    """The window anchored at release ``version`` (its date) or today; None
    after H109."""
    if version is None:
        return select(index, dates.today(), days)
    release = find(index, version, "--release-version", sink)
    return None if release is None else select(index, release.date, days)
