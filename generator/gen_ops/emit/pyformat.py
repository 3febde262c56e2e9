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

import ast
from functools import lru_cache

from gen_ops.emit.literals import PyTree, py_flat

LINE_LENGTH = 88


@lru_cache(maxsize=1)
def _mode():  # type: ignore[no-untyped-def]
    import black
    import black.mode

    return black.Mode(
        target_versions={black.mode.TargetVersion.PY311}, line_length=LINE_LENGTH
    )


def black_format(text: str) -> str:
    """Run black itself on ``text``."""
    import black

    return black.format_str(text, mode=_mode())


def _docstring_lines(text: str) -> set[int]:
    """Line numbers covered by string statements (docstrings)."""
    lines = text.split("\n")
    quick = _docstring_lines_by_quotes(lines)
    return quick if quick is not None else _docstring_lines_by_parsing(text)


def _docstring_lines_by_quotes(lines: list[str]) -> set[int] | None:
    """The docstrings of generated code, found line by line, or None when the
    text has a triple quote this cannot place. In generated code a triple
    quote only opens a docstring (first on its line) or closes one (last on
    its line): docstring bodies escape every run of quotes
    (literals.py_docstring_body), and string literals are never
    triple-quoted and never start with two quotes (literals.py_str). Any
    other triple quote makes the caller parse the text instead."""
    covered: set[int] = set()
    start = 0
    for number, line in enumerate(lines, start=1):
        count = line.count('"""')
        if not count:
            continue
        stripped = line.strip()
        if not start:  # outside a docstring
            if not stripped.startswith('"""'):
                return None
            if count == 1:
                start = number
            elif count == 2 and stripped.endswith('"""') and len(stripped) >= 6:
                covered.add(number)
            else:
                return None
        elif count == 1 and stripped.endswith('"""'):
            covered.update(range(start, number + 1))
            start = 0
        else:
            return None
    return None if start else covered


def _docstring_lines_by_parsing(text: str) -> set[int]:
    """The same, from the parse tree (statements only; the expressions in them
    may be a 100,000-item default)."""
    covered: set[int] = set()
    pending: list[ast.AST] = [ast.parse(text)]
    while pending:
        node = pending.pop()
        for field in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, field, ()):
                if (
                    isinstance(child, ast.Expr)
                    and isinstance(child.value, ast.Constant)
                    and isinstance(child.value.value, str)
                ):
                    end = child.end_lineno or child.lineno
                    covered.update(range(child.lineno, end + 1))
                else:
                    pending.append(child)
    return covered


def layout(head: str, tree: PyTree, tail: str, indent: int) -> str:
    """``head`` + the literal + ``tail`` at ``indent``, without the leading
    indent: one line when it fits in LINE_LENGTH, else the tuple exploded one
    item per line with a magic trailing comma (items laid out the same way),
    which black keeps as it is. Linear in the literal's size, so a huge
    default costs no black run (Note [Black-stable templates])."""
    line = head + py_flat(tree) + tail
    if indent + len(line) <= LINE_LENGTH or isinstance(tree, str) or not tree:
        return line
    pad = " " * (indent + 4)
    if all(isinstance(item, str) for item in tree):  # leaves: no recursion
        items = [f"{pad}{item}," for item in tree]
    else:
        items = [pad + layout("", item, ",", indent + 4) for item in tree]
    return "\n".join([head + "(", *items, " " * indent + ")" + tail])


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
    except SyntaxError:  # black reports it
        return black_format(text)
    if all(number in docstrings for number in long_lines):
        return text
    return black_format(text)
