"""The registry as a render reads it (``gen-ops --registry DIR``): each
op's record in every release the reader keeps, oldest first, attached to
the op as ``OpSpec.past`` for the builders' call shapes (Note [Calls of
earlier releases] in call_shapes). Every release counts, not only the
window's: a call shape once promised is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from gen_ops.base.collector import collector_paused
from gen_ops.base.diagnostics import Sink
from gen_ops.history import operators, registry
from gen_ops.history.records import Element, OpRecord
from gen_ops.spec.model import OpSpec, PastAttr, PastElement, PastOp


def _element(item: Element) -> PastElement:
    return PastElement(item.name, item.type, item.dtype, item.former)


def past_op(version: str, record: OpRecord) -> PastOp:
    return PastOp(
        version,
        tuple(_element(i) for i in record.inputs),
        tuple(
            PastAttr(a.name, a.type, a.required, a.default, a.former)
            for a in record.attrs
        ),
        tuple(_element(o) for o in record.outputs),
        tuple(_element(g) for g in record.subgraphs),
    )


def attach(root: Path, ops: Sequence[OpSpec], sink: Sink) -> list[OpSpec] | None:
    """``ops``, each with its past; None when the index cannot be read
    (H101). What GE's reader skips is skipped, with its warning."""
    index = registry.read(root, sink)
    if index is None:
        return None
    found: dict[str, list[PastOp]] = {op.op_type: [] for op in ops}
    with collector_paused():
        for release in index.releases:
            listed = operators.read(root, release, sink)
            if listed is None:
                continue
            for op_type, pasts in found.items():
                if op_type in listed.raw:
                    record = listed.record(op_type, sink)
                    if record is not None:
                        pasts.append(past_op(release.version, record))
    return [
        (
            dataclasses.replace(op, past=tuple(found[op.op_type]))
            if found[op.op_type]
            else op
        )
        for op in ops
    ]
