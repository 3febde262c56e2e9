"""The parameters of generated Python functions: the builder's, the
prototype's and the implementation methods'."""

from __future__ import annotations

from dataclasses import dataclass

from ge_ir.attrs import AttrType, python_annotation
from gen_ops.emit.literals import py_default_tree
from gen_ops.emit.pyformat import layout
from gen_ops.lowering.imports import NameRecorder
from gen_ops.spec.model import Attr

# The ge.graph class an attr type's annotation names (its element's, for a
# list type).
_GRAPH_CLASSES = {
    AttrType.DTYPE: "DataType",
    AttrType.NAMED_ATTRS: "NamedAttrs",
    AttrType.TENSOR: "Tensor",
}


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


def attr_annotation(
    attr_type: AttrType, imports: NameRecorder, sequence: str, tensor: str = "Tensor"
) -> str:
    """The annotation of an attr parameter (``python_annotation``), with the
    imports it needs recorded: ``sequence`` is ``list`` or ``Sequence``
    (collections.abc), ``tensor`` the name ge.graph's Tensor is imported as."""
    leaf = attr_type
    while leaf.element is not None:
        leaf = leaf.element
    if leaf in _GRAPH_CLASSES:
        name = _GRAPH_CLASSES[leaf]
        alias = tensor if leaf is AttrType.TENSOR and tensor != name else None
        imports.name("ge.graph", name, alias)
    if attr_type.is_list and sequence == "Sequence":
        imports.name("collections.abc", "Sequence")
    return python_annotation(attr_type, tensor=tensor, sequence=sequence)
