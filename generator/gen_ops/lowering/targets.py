"""The lowerings of each output family, and what an op gives the files it
shares with other ops (its ``OpFacts``, worked out from the lowerings).

This is the one module that knows every lowering; the lowerings know only
the leaves they share (``words``, ``dtype_table``, ``builder_signature``,
``reg_op_chain``, ...), never one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gen_ops.emit.outputs import Shared, Target
from gen_ops.lowering import (
    lower_cpp,
    lower_docs,
    lower_es,
    lower_history,
    lower_impl,
    lower_python,
)
from gen_ops.lowering.facts import OpFacts
from gen_ops.lowering.names import exported_names
from gen_ops.spec.model import OpSpec


class Lowering(Protocol):
    """What a lowering module offers: the files of one op, and the files
    the ops of a module (or all ops) share, from their facts."""

    def op_files(self, op: OpSpec) -> list[tuple[str, str]]: ...

    def module_files(self, ops: Sequence[OpFacts]) -> list[Shared]: ...


# Each family's lowerings, in the order their files are listed.
LOWERINGS: dict[Target, tuple[Lowering, ...]] = {
    Target.PYTHON: (lower_python,),
    Target.CPP: (lower_cpp,),
    Target.IMPL: (lower_impl,),
    Target.DOCS: (lower_docs, lower_history),
    Target.ES: (lower_es,),
}


def facts_of(op: OpSpec) -> OpFacts:
    """The facts of ``op``."""
    return OpFacts(
        op_type=op.op_type,
        module=op.module,
        file_stem=op.file_stem,
        span=op.span,
        exported=exported_names(op),
        impl_renders=lower_impl.renders(op),
        has_impl=op.impl is not None,
        author=op.impl.author if op.impl else None,
        summary=lower_docs.summary(op),
        history=lower_history.history_text(op),
        es_unsupported=lower_es.unsupported(op),
    )
