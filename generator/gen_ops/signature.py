"""The parameters of generated Python functions: the builder's, the
prototype's and the implementation methods'."""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.literals import py_default_tree
from gen_ops.model import Attr
from gen_ops.pyformat import layout


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    # The default as the signature holds it (laid out by default_code); in a
    # docs page's signature, its summary.
    default: str | None = None
    doc: str = ""  # the docstring's Args entry, without the name (builders)


def default_code(name: str, annotation: str, attr: Attr) -> str:
    """``attr``'s default as a parameter ``name: annotation = <this>,`` at
    indent 4 holds it: one line, or exploded when long (pyformat.layout)."""
    assert attr.default is not None
    head = f"{name}: {annotation} = "
    laid_out = layout(head, py_default_tree(attr.type, attr.default), ",", 4)
    return laid_out[len(head) : -1]
