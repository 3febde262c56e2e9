"""Lower OpSpecs to GE's history export, ``history/<module>/operators.json``.

The file has the shape of GE's history registry ``operators.json``
(docs/ge-compat.md, "History registry"): dtypes as their REG_OP symbol text,
defaults as JSON literals stored in strings, attrs in IR order. ``gen-ops
release`` records the same entries (``history``) in a registry, and the
history commands compare the specs in this form (``history_op``), so one
piece of code decides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from gen_ops.emit.literals import json_default, json_item_text, json_text
from gen_ops.emit.outputs import Shared
from gen_ops.lowering import layout
from gen_ops.lowering.facts import OpFacts, by_module
from gen_ops.lowering.reg_op import RegOpMacro, dtype_symbol, macro_of
from gen_ops.spec.model import Attr, Input, OpSpec


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
    """None: the export is one file per module."""
    return []


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """Per module the history export."""
    return [
        Shared(layout.history(module), module, partial(_export, module, members))
        for module, members in by_module(ops)
    ]


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
