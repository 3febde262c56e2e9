"""Free text of a spec (``doc``): what it may hold (E303), and how it is kept."""

from __future__ import annotations

from typing import Any

from gen_ops.base.charset import describe, invisible_in_doc
from gen_ops.semantics.context import Checker
from gen_ops.spec.source import YamlPath


def _expand_indent(line: str) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs() + body


def doc_text(ctx: Checker, where: YamlPath) -> str:
    """The doc at ``where``, checked (Note [Invisible characters]) and
    normalised: trailing spaces carry no meaning, and leading tabs are
    expanded as black expands them in docstrings, so docs read the same
    everywhere."""
    text = str(ctx.value(where))
    bad = invisible_in_doc(text)
    if bad is not None:
        ctx.report(
            "E303",
            where,
            f"text holds {describe(bad)}",
            "remove it; docs may use newlines and tabs, and no other "
            "invisible or reordering character",
        )
    lines = [line.rstrip() for line in text.split("\n")]
    if "\t" in text:  # without a tab, no line has an indent to expand
        lines = [_expand_indent(line) for line in lines]
    return "\n".join(lines).strip()


def item_doc(ctx: Checker, item: dict[str, Any], where: YamlPath) -> str:
    """The ``doc`` of the item (input, output, ...) at ``where``, or ""."""
    return doc_text(ctx, where + ("doc",)) if "doc" in item else ""
