"""Formatting of generated Python.

Note [Black-stable templates]: black costs about 0.3 ms per line, which would
make a 1,000-op run take half a minute. The templates therefore print code in
exactly the form black gives it (exploded calls with magic trailing commas,
black's quotes, blank lines and docstring layout); the test suite runs black
over every golden file and over random specs and asserts it changes nothing.
Only a file with a line longer than black's limit, which black might wrap,
goes through black here.
"""

from __future__ import annotations

from functools import lru_cache

LINE_LENGTH = 88


@lru_cache(maxsize=1)
def _mode():  # type: ignore[no-untyped-def]
    import black

    return black.Mode(target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH)


def black_format(text: str) -> str:
    """Run black itself on ``text``."""
    import black

    return black.format_str(text, mode=_mode())


def format_python(text: str) -> str:
    """``text`` as black would format it (Note [Black-stable templates])."""
    if any(len(line) > LINE_LENGTH for line in text.split("\n")):
        return black_format(text)
    return text
