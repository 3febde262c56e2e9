"""The Jinja2 environment: where templates are found and the filters they use.

Templates only iterate and format; every filter is a small named function from
``literals`` (tested on its own). Undefined variables are errors, never empty.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jinja2

from gen_ops.literals import cpp_comment_lines, cpp_str, py_docstring_body, py_str
from gen_ops.pyformat import LINE_LENGTH
from gen_ops.resources import template_dir


def _indent_block(text: str, width: int) -> str:
    """Indent every non-empty line after the first by ``width`` spaces (blank
    lines stay empty, as black leaves them)."""
    pad = " " * width
    lines = text.split("\n")
    return "\n".join([lines[0]] + [pad + line if line else "" for line in lines[1:]])


def _docstring(text: str, width: int) -> str:
    return _indent_block(py_docstring_body(text), width)


def _cpp_comment(text: str, prefix: str = "/// ") -> str:
    return "\n".join(cpp_comment_lines(text, prefix))


def _py_tuple(items: list[str], head: str, indent: int) -> str:
    """``head(items)`` as the argument line(s) black writes: a one-item tuple
    on one line when it fits (its comma is not a "magic" trailing comma),
    anything else exploded one item per line with a trailing comma."""
    pad = " " * indent
    if not items:
        return f"{pad}{head}(),"
    if len(items) == 1:
        line = f"{pad}{head}({items[0]},),"
        if len(line) <= LINE_LENGTH:
            return line
    inner = [f"{pad}    {item}," for item in items]
    return "\n".join([f"{pad}{head}(", *inner, f"{pad}),"])


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        py_str=py_str,
        docstring=_docstring,
        indent_block=_indent_block,
        cpp_str=cpp_str,
        cpp_comment=_cpp_comment,
        json=_json,
        py_tuple=_py_tuple,
    )
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
