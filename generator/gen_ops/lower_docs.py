"""Lower OpSpecs to reference pages (Markdown) and GE's history export.

``history/<module>/operators.json`` has the shape of GE's history registry
``operators.json`` (docs/ge-compat.md, "History registry"): dtypes as their
REG_OP symbol text, defaults as JSON literals stored in strings, attrs in IR
order. ``gen-ops release`` records the same entries (``history``) in a
registry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gen_ops import layout
from gen_ops.call_shapes import CallShape, ParamHistory, shape
from gen_ops.facts import OpFacts, by_module
from gen_ops.literals import (
    json_default,
    json_item_text,
    json_text,
    py_default_summary,
)
from gen_ops.lower_cpp import RegOpView, reg_op_view
from gen_ops.lower_python import dtype_words, history_words, type_var_words
from gen_ops.lower_python import lower as lower_python
from gen_ops.model import (
    Attr,
    Capability,
    DtypeRule,
    Input,
    OpSpec,
    Output,
    ShapeRule,
)
from gen_ops.outputs import Shared
from gen_ops.reg_op import RegOpMacro, dtype_symbol, macro_of
from gen_ops.render import render
from gen_ops.signature import Param


def md_cell(text: str) -> str:
    """Text for one Markdown table cell: pipes escaped, lines joined."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>") or " "


def md_code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    longest = 0
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


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
    builder = lower_python(op, code=False)
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


def history(ops: Sequence[OpSpec]) -> dict[str, Any]:
    """GE's operators.json for these ops (one module's, or a release's):
    element types are the REG_OP macros, dtypes the REG_OP dtype symbols.
    Fields GE does not have are added ones (GE's rule for this schema: only
    add fields): the op's doc, its elements' docs where there are any,
    ``since`` and ``deprecated``."""
    return {
        "operators": [history_op(op) for op in sorted(ops, key=lambda o: o.op_type)]
    }


def history_op(op: OpSpec) -> dict[str, Any]:
    """One op's entry of operators.json."""
    return (
        {
            "op_type": op.op_type,
            "inputs": [
                {
                    "name": i.name,
                    "type": macro_of(i).value,
                    "dtype": dtype_symbol(i.dtype),
                }
                | _doc(i.doc)
                | _evolution(i)
                for i in op.inputs
            ],
            "outputs": [
                {
                    "name": o.name,
                    "type": macro_of(o).value,
                    "dtype": dtype_symbol(o.dtype),
                }
                | _doc(o.doc)
                for o in op.outputs
            ],
            "attrs": [_history_attr(a) | _doc(a.doc) | _evolution(a) for a in op.attrs],
            "subgraphs": [
                {"name": g.name, "type": "DYNAMIC" if g.dynamic else "STATIC"}
                | _doc(g.doc)
                for g in op.graphs
            ],
        }
        # Always there, so that a reader can tell "no doc" from a registry
        # that records none (GE's).
        | {"doc": op.doc}
        | ({"since": op.since} if op.since else {})
        | ({"deprecated": op.deprecated} if op.deprecated else {})
    )


def _evolution(item: Input | Attr) -> dict[str, Any]:
    """Added fields: the release that deprecated the parameter, and its
    earlier names (so that compat tells a kept alias from a rename)."""
    entry: dict[str, Any] = {}
    if item.deprecated:
        entry["deprecated"] = item.deprecated
    if item.renamed_from:
        entry["renamed_from"] = [
            {"name": f.name, "release": f.release} for f in item.renamed_from
        ]
    return entry


def _doc(text: str) -> dict[str, str]:
    return {"doc": text} if text else {}


def _history_attr(attr: Attr) -> dict[str, Any]:
    """GE omits default_value for a required attr."""
    entry: dict[str, Any] = {
        "name": attr.name,
        "type": attr.type.ir_name,
        "required": macro_of(attr) is RegOpMacro.REQUIRED_ATTR,
    }
    if attr.default is not None:
        entry["default_value"] = json_default(attr.type, attr.default)
    return entry


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's reference page."""
    return [(layout.doc_page(op), render("docs/op.md.j2", page=lower(op)))]


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """The index, and per module the history export."""
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

    out = [Shared(layout.DOC_INDEX, None, index)]
    out += [
        Shared(layout.history(module), module, partial(_export, module, members))
        for module, members in modules
    ]
    return out


def _export(module: str, members: Sequence[OpFacts]) -> str:
    """A module's history export: ``json_text`` of its head and
    "operators", every member's entry, from the text each entry has in that
    file (``history_text``)."""
    head = json_text(
        {"generated_by": f"gen-ops from the specs of module {module}; do not edit"}
    )
    entries = [op.history for op in sorted(members, key=lambda o: o.op_type)]
    return (
        head[: -len("\n}\n")]
        + ',\n  "operators": [\n'
        + ",\n".join(entries)
        + "\n  ]\n}\n"
    )


def history_text(op: OpSpec) -> str:
    """The op's entry of its module's operators.json, as that file's text
    holds it (``module_files`` joins them)."""
    return json_item_text(history_op(op), 2)


def summary(op: OpSpec) -> str:
    """The op's cell in the docs index: its doc's first paragraph."""
    paragraph = op.doc.split("\n\n", 1)[0] if op.doc else ""
    return md_cell(" ".join(paragraph.split()))
