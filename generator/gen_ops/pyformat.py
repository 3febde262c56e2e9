"""Formatting of generated Python.

Note [Black-stable templates]: black costs about 0.3 ms per line, which would
make a 1,000-op run take half a minute. The templates therefore print code in
exactly the form black gives it (exploded calls with magic trailing commas,
black's quotes, blank lines and docstring layout); the test suite runs black
over every golden file and over random specs and asserts it changes nothing.
Only a file with a code line longer than black's limit, which black might
wrap, goes through black here (black leaves long docstring lines alone).
"""

from __future__ import annotations

import io
import tokenize
from functools import lru_cache

LINE_LENGTH = 88


@lru_cache(maxsize=1)
def _mode():  # type: ignore[no-untyped-def]
    import black

    return black.Mode(
        target_versions={black.TargetVersion.PY311}, line_length=LINE_LENGTH
    )


def black_format(text: str) -> str:
    """Run black itself on ``text``."""
    import black

    return black.format_str(text, mode=_mode())


def _docstring_lines(text: str) -> set[int]:
    """Line numbers covered by string statements (docstrings)."""
    covered: set[int] = set()
    previous = tokenize.NEWLINE
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for index, token in enumerate(tokens):
        if token.type == tokenize.STRING and previous in (
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NL,
        ):
            following = tokens[index + 1].type if index + 1 < len(tokens) else None
            if following in (tokenize.NEWLINE, tokenize.ENDMARKER):
                covered.update(range(token.start[0], token.end[0] + 1))
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    return covered


def format_python(text: str) -> str:
    """``text`` as black would format it (Note [Black-stable templates])."""
    long_lines = [
        number
        for number, line in enumerate(text.split("\n"), start=1)
        if len(line) > LINE_LENGTH
    ]
    if not long_lines:
        return text
    try:
        docstrings = _docstring_lines(text)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return black_format(text)
    if all(number in docstrings for number in long_lines):
        return text
    return black_format(text)
