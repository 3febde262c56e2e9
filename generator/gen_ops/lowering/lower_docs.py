"""Lower OpSpecs to reference pages (Markdown) and their index.

A page shows the op's builder signature (``builder_signature``), its REG_OP
chain (``reg_op_chain``) and tables of its elements, rules and
implementation; GE's history export is ``lower_history``'s. The templates
(``docs/op.md.j2``, ``docs/index.md.j2``) write the Markdown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from gen_ops.emit.literals import md_cell, md_code, py_default_summary
from gen_ops.emit.outputs import Shared
from gen_ops.emit.render import render
from gen_ops.lowering import layout
from gen_ops.lowering.builder_signature import builder_signature
from gen_ops.lowering.call_shapes import CallShape, ParamHistory, shape
from gen_ops.lowering.facts import OpFacts, by_module
from gen_ops.lowering.imports import Imports
from gen_ops.lowering.names import python_names
from gen_ops.lowering.reg_op_chain import RegOpView, reg_op_view
from gen_ops.lowering.signature import Param
from gen_ops.lowering.words import dtype_words, history_words, type_var_words
from gen_ops.spec.model import (
    Attr,
    Capability,
    DtypeRule,
    Input,
    OpSpec,
    Output,
    ShapeRule,
)


@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]


def _output_kind(output: Output) -> str:
    """The kind cell of an output's row: dynamic and its count, or the input
    whose memory it may reuse."""
    if output.dynamic:
        return "dynamic" + (f", count {output.count}" if output.count else "")
    if output.reuse_input is not None:
        return f"may reuse the memory of {md_code(output.reuse_input)}"
    return ""


@dataclass(frozen=True)
class DocPage:
    op_type: str
    module: str
    spec: str  # the spec file, as inline code
    doc: str
    since: str | None
    deprecated: str | None
    params: tuple[Param, ...]  # the builder's, defaults as their summaries
    star_index: int
    returns: str
    inputs: tuple[Row, ...]
    outputs: tuple[Row, ...]
    attrs: tuple[Row, ...]
    graphs: tuple[Row, ...]
    type_vars: tuple[Row, ...]
    infer: tuple[Row, ...]
    impl: tuple[str, ...]
    reg_op: RegOpView
    origin: str  # the spec, as the banner names it
    # The input and attr tables have a history column (since, deprecated,
    # earlier names): the op has a recorded past or a parameter evolved.
    history: bool = False
    first_release: str | None = None


def _history_cell(calls: CallShape, row: tuple[str, ...], item: ParamHistory) -> Row:
    return Row(row + (md_cell(history_words(calls, item, every=True)),))


def _evolved(op: OpSpec) -> bool:
    params: tuple[Input | Attr, ...] = (*op.inputs, *op.attrs)
    return any(p.deprecated or p.renamed_from for p in params) or bool(op.past)


def lower(op: OpSpec) -> DocPage:
    page = _lower(op)
    if not _evolved(op):
        return page
    calls = shape(op)
    return dataclasses.replace(
        page,
        history=True,
        first_release=calls.first,
        inputs=tuple(
            _history_cell(calls, row.cells, calls.inputs[i.name])
            for row, i in zip(page.inputs, op.inputs)
        ),
        attrs=tuple(
            _history_cell(calls, row.cells, calls.attrs[a.name])
            for row, a in zip(page.attrs, op.attrs)
        ),
    )


def _lower(op: OpSpec) -> DocPage:
    names = python_names(op)
    builder = builder_signature(op, names, shape(op, names), Imports(), code=False)
    impl: list[str] = []
    if op.impl:
        impl.append(
            "Capabilities: " + ", ".join(c.value for c in op.impl.capabilities) + "."
        )
        if op.impl.kernel:
            impl.append(f"Kernel: {md_code(op.impl.kernel)}.")
        if op.impl.launch_args:
            slots = []
            for arg in op.impl.launch_args:
                if arg.size is not None:
                    slots.append(f"workspace ({arg.size} bytes)")
                else:
                    slots.append(f"{arg.kind.value} {md_code(arg.name or '')}")
            impl.append("Launch arguments, in slot order: " + ", ".join(slots) + ".")
        if Capability.DECLARE_LAUNCH_ARGS in op.impl.capabilities:
            impl.append("Runs by address refresh once compiled (annotated args).")
    return DocPage(
        op_type=op.op_type,
        module=op.module,
        spec=md_code(op.label),
        doc=op.doc,
        since=op.since,
        deprecated=op.deprecated,
        params=builder.params,
        star_index=builder.star_index,
        returns=builder.returns,
        inputs=tuple(
            Row(
                (
                    md_code(i.name),
                    i.kind.value,
                    md_cell(dtype_words(i.dtype)),
                    md_cell(i.doc),
                )
            )
            for i in op.inputs
        ),
        outputs=tuple(
            Row(
                (
                    md_code(o.name),
                    _output_kind(o),
                    md_cell(dtype_words(o.dtype)),
                    md_cell(o.doc),
                )
            )
            for o in op.outputs
        ),
        attrs=tuple(
            Row(
                (
                    md_code(a.name),
                    a.type.value,
                    (
                        "required"
                        if a.required
                        else (
                            f"derived: {a.derive}"
                            if a.derive
                            else (
                                md_code(py_default_summary(a.type, a.default))
                                if a.default is not None
                                else ""
                            )
                        )
                    ),
                    md_cell(a.doc),
                )
            )
            for a in op.attrs
        ),
        graphs=tuple(
            Row((md_code(g.name), "dynamic" if g.dynamic else "static", md_cell(g.doc)))
            for g in op.graphs
        ),
        type_vars=tuple(
            Row(
                (
                    md_code(v.name),
                    md_cell(type_var_words(v)),
                )
            )
            for v in op.type_vars
        ),
        infer=tuple(
            Row(
                (
                    md_code(r.output),
                    _rule_cell(r.shape, "infer_shapes"),
                    _rule_cell(r.dtype, "infer_dtypes"),
                )
            )
            for r in (op.infer_meta or ())
        ),
        impl=tuple(impl),
        reg_op=reg_op_view(op),
        origin=op.label,
    )


def _rule_cell(rule: ShapeRule | DtypeRule | None, method: str) -> str:
    """A rule, or who infers the part it leaves out (Note [Partial
    infer_meta] in lower_impl)."""
    if rule is None:
        return f"by the implementation ({md_code(method)})"
    return md_code(str(rule))


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's reference page."""
    return [(layout.doc_page(op), render("docs/op.md.j2", page=lower(op)))]


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """The index (the history export is ``lower_history``'s)."""
    modules = by_module(ops)

    def index() -> str:
        rows = [
            (
                module,
                [(op.op_type, layout.doc_page_name(op), op.summary) for op in members],
            )
            for module, members in modules
        ]
        return render("docs/index.md.j2", modules=rows)

    return [Shared(layout.DOC_INDEX, None, index)]


def summary(op: OpSpec) -> str:
    """The op's cell in the docs index: its doc's first paragraph."""
    paragraph = op.doc.split("\n\n", 1)[0] if op.doc else ""
    return md_cell(" ".join(paragraph.split()))
