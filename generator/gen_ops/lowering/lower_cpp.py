"""Lower an OpSpec to the view of its REG_OP header (docs/ge-compat.md, "REG_OP").

The REG_OP chain is ``reg_op_chain``'s view (the reference page prints it
too): which macro each element gets and how dtypes are spelled is decided by
``reg_op``, default values are spelled by ``literals``. The templates
(``cpp/op_proto.h.j2``, ``cpp/reg_op.j2``) write the code and the comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from gen_ops.emit.literals import needs_limits
from gen_ops.emit.outputs import Shared
from gen_ops.emit.render import render
from gen_ops.lowering import layout
from gen_ops.lowering.facts import OpFacts, by_module
from gen_ops.lowering.reg_op import declares
from gen_ops.lowering.reg_op_chain import RegOpView, reg_op_view
from gen_ops.lowering.words import dtype_words
from gen_ops.spec.model import OpSpec

# The comment's fact for an attr REG_OP leaves out (Note [NamedAttrs in
# REG_OP] in reg_op).
NOT_DECLARED = "not in REG_OP: GE's external headers do not define NamedAttrs"


@dataclass(frozen=True)
class CommentRow:
    """``<name> (<facts>): <doc>`` in the comment above REG_OP."""

    name: str
    facts: tuple[str, ...]
    doc: str


@dataclass(frozen=True)
class CommentSection:
    title: str
    rows: tuple[CommentRow, ...]


@dataclass(frozen=True)
class CppOp:
    reg_op: RegOpView
    guard: str
    needs_limits: bool  # a default is spelled with std::numeric_limits
    doc: str
    sections: tuple[CommentSection, ...]  # only the non-empty ones
    origin: str  # the spec, as the banner names it


def _sections(op: OpSpec) -> tuple[CommentSection, ...]:
    sections = (
        CommentSection(
            "Inputs",
            tuple(
                CommentRow(i.name, (i.kind.value, dtype_words(i.dtype)), i.doc)
                for i in op.inputs
            ),
        ),
        CommentSection(
            "Outputs",
            tuple(
                CommentRow(
                    o.name,
                    ("dynamic" if o.dynamic else "required", dtype_words(o.dtype))
                    + (
                        (f"may reuse the memory of {o.reuse_input}",)
                        if o.reuse_input
                        else ()
                    ),
                    o.doc,
                )
                for o in op.outputs
            ),
        ),
        CommentSection(
            "Attrs",
            tuple(
                CommentRow(
                    a.name,
                    (a.type.value,)
                    + ((f"derived: {a.derive}",) if a.derive else ())
                    + (() if declares(a) else (NOT_DECLARED,)),
                    a.doc,
                )
                for a in op.attrs
            ),
        ),
        CommentSection(
            "Graphs",
            tuple(
                CommentRow(g.name, ("dynamic" if g.dynamic else "static",), g.doc)
                for g in op.graphs
            ),
        ),
    )
    return tuple(section for section in sections if section.rows)


def lower(op: OpSpec) -> CppOp:
    return CppOp(
        reg_op=reg_op_view(op),
        guard=layout.header_guard(layout.header_include(op)),
        needs_limits=any(needs_limits(a.type, a.default) for a in op.attrs),
        doc=op.doc,
        sections=_sections(op),
        origin=op.label,
    )


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's header."""
    text = render("cpp/op_proto.h.j2", op=lower(op))
    return [(layout.include_path(layout.header_include(op)), text)]


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """Per module an aggregate header and the proto .cc."""
    out: list[Shared] = []
    for module, members in by_module(ops):
        headers = sorted(layout.header_include(op) for op in members)
        aggregate = layout.module_header_include(module)
        guard = layout.header_guard(aggregate)
        out += [
            Shared(
                layout.include_path(aggregate),
                module,
                partial(
                    render,
                    "cpp/module_ops.h.j2",
                    module=module,
                    guard=guard,
                    headers=headers,
                ),
            ),
            Shared(
                layout.proto_source(module),
                module,
                partial(render, "cpp/op_proto.cc.j2", module=module, headers=headers),
            ),
        ]
    return out
