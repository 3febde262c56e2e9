"""Release dates as GE's history registry reads them (docs/ge-compat.md,
"History registry").

A date is ``YYYY-MM-DD`` in ASCII digits with a year from 1900 to 9999, a
month from 1 to 12 and a day from 1 to 31: GE checks no more than that, so
``2026-02-30`` is a date it accepts. Such a date counts as that many days
after the first of its month (2026-02-30 is the day after 2026-03-01), which
is how the window measures it. Dates order as their text does.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

_SHAPE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


@dataclass(frozen=True, order=True)
class ReleaseDate:
    """A valid release date; ``text`` is how the index spells it."""

    text: str

    @property
    def day(self) -> int:
        """Days since 0001-01-01 (proleptic Gregorian), for the window."""
        year, month, day = (int(part) for part in self.text.split("-"))
        return datetime.date(year, month, 1).toordinal() + day - 1

    def __str__(self) -> str:
        return self.text


def problem(text: str) -> str | None:
    """Why ``text`` is not a release date GE accepts, or None."""
    match = _SHAPE.fullmatch(text)
    if match is None:
        return "it is not YYYY-MM-DD"
    year, month, day = (int(part) for part in match.groups())
    if not 1900 <= year <= 9999:
        return f"the year {year} is not from 1900 to 9999"
    if not 1 <= month <= 12:
        return f"the month {month} is not from 1 to 12"
    if not 1 <= day <= 31:
        return f"the day {day} is not from 1 to 31"
    return None


def parse(text: str) -> ReleaseDate | None:
    """The date, or None when GE would refuse it (``problem`` says why)."""
    return None if problem(text) is not None else ReleaseDate(text)


def today() -> ReleaseDate:
    """Today's local date: the window's anchor when no release names it."""
    return ReleaseDate(datetime.date.today().isoformat())
