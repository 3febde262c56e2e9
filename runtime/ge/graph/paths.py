"""Paths given to the runtime: a str or an os.PathLike, never a number.

``open`` takes an int as a file descriptor, so a stray ``3`` would read or
write (and then close) whatever descriptor 3 is; a bool is an int too.
"""

from __future__ import annotations

import os
from typing import Any


def check_path(value: Any, parameter: str) -> str | os.PathLike[str]:
    """``value`` if it is a file path; TypeError naming ``parameter`` if not."""
    if isinstance(value, (str, os.PathLike)):
        return value
    raise TypeError(
        f"{parameter} must be a file path (str or os.PathLike), got "
        f"{type(value).__name__} {value!r}"
    )
