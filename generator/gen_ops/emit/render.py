"""The Jinja2 environment: where templates are found and the filters they use.

Templates only iterate and format; every filter is a small named function
(the spelling ones from ``literals``, tested on their own). Undefined
variables are errors, never empty. Macros shared between templates live in
template files of their own (``banner.j2``, ``python/imports.j2``,
``python/op_table.j2``, ``python/impl_code.j2``, ``cpp/reg_op.j2``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gen_ops.base.resources import template_dir
from gen_ops.emit.literals import (
    PyTree,
    cpp_comment_lines,
    py_docstring_body,
    py_flat,
    py_str,
)
from gen_ops.emit.pyformat import LINE_LENGTH, layout

if TYPE_CHECKING:
    import jinja2

# jinja2 is imported when the first template renders: commands that render
# nothing (validate, compat, release) do not pay for importing it.


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


def _tuple_argument(items: list[str], head: str, indent: int) -> str:
    """``head(items)`` (a keyword argument whose value is a tuple, e.g.
    ``inputs=(...)``) as the line(s) black writes: a one-item tuple on one
    line when it fits (its comma is not a "magic" trailing comma), anything
    else exploded one item per line with a trailing comma."""
    pad = " " * indent
    if not items:
        return f"{pad}{head}(),"
    if len(items) == 1 and "\n" not in items[0]:
        line = f"{pad}{head}({items[0]},),"
        if len(line) <= LINE_LENGTH:
            return line
    inner = [f"{pad}    {item}," for item in items]
    return "\n".join([f"{pad}{head}(", *inner, f"{pad}),"])


def _py_call(
    args: list[str], func: str, tree: PyTree | None, keyword: str, indent: int
) -> str:
    """``func(args..., keyword=<tree>)`` (the keyword argument only when
    ``tree`` is not None) as black writes it as an item of a tuple at
    ``indent``: one line when it fits, else the arguments on one line of
    their own when they fit, else one per line with a trailing comma (a long
    literal laid out by pyformat.layout)."""
    flat = list(args) + ([] if tree is None else [keyword + py_flat(tree)])
    line = f"{func}({', '.join(flat)})"
    if indent + len(line) + 1 <= LINE_LENGTH:  # + the tuple's comma
        return line
    pad = " " * (indent + 4)
    body = ", ".join(flat)
    if indent + 4 + len(body) <= LINE_LENGTH:
        return f"{func}(\n{pad}{body}\n{' ' * indent})"
    inner = [f"{pad}{arg}," for arg in args]
    if tree is not None:
        inner.append(pad + layout(keyword, tree, ",", indent + 4))
    return "\n".join([f"{func}(", *inner, " " * indent + ")"])


def _rendered_by(items: Iterable[Any], macro: Callable[[Any], str]) -> list[str]:
    """Each item as the macro writes it (``rows | rendered_by(table.entry)``)."""
    return [str(macro(item)) for item in items]


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    import jinja2

    class _TemplateCache(jinja2.FileSystemBytecodeCache):
        """Note [Template bytecode cache]: compiling the templates is a fifth
        of a run that renders one op, so their compiled code is kept between
        runs, in Jinja2's own per-user directory (it creates it private and
        refuses one another user owns or others can write). An entry is used
        only if its template's source is unchanged (Jinja2 keeps the source's
        checksum and the Python version with it). Whatever goes wrong with
        the cache (a full disk, a damaged entry) only means compiling again."""

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # any damage: compile instead
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    try:
        return _TemplateCache()
    except (RuntimeError, OSError):  # no private directory to be had
        return None


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        py_str=py_str,
        py_flat=py_flat,
        docstring=_docstring,
        cpp_comment=_cpp_comment,
        tuple_argument=_tuple_argument,
        py_call=_py_call,
        rendered_by=_rendered_by,
    )
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
