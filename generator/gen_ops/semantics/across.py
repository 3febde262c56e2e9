"""Rules between specs (E8xx): op types are unique, and no two ops of a module
map to one file or one exported name."""

from __future__ import annotations

from collections.abc import Sequence

from gen_ops.diagnostics import Sink, Span
from gen_ops.layout import module_header_stem
from gen_ops.model import OpSpec
from gen_ops.names import exported_names


def check_across(
    heads: Sequence[tuple[str, Span]], models: Sequence[OpSpec], sink: Sink
) -> None:
    """E801 among every loaded spec that names an op (``heads``: its op
    type and where that stands, in file order); E802 among the models."""
    _unique_op_types(heads, sink)
    _distinct_files_and_names(models, sink)


def _unique_op_types(heads: Sequence[tuple[str, Span]], sink: Sink) -> None:
    first: dict[str, Span] = {}
    for op, span in heads:
        if op not in first:
            first[op] = span
            continue
        sink.emit(
            "E801",
            span,
            f"op type '{op}' is already defined in {first[op]}",
            "op types are unique across all specs; rename one",
        )


def _distinct_files_and_names(models: Sequence[OpSpec], sink: Sink) -> None:
    stems: dict[tuple[str, str], OpSpec] = {}
    exported: dict[tuple[str, str], OpSpec] = {}
    for model in models:
        key = (model.module, model.file_stem)
        earlier = stems.setdefault(key, model)
        if earlier.op_type != model.op_type:
            sink.emit(
                "E802",
                model.span,
                f"ops '{earlier.op_type}' and '{model.op_type}' both map to file "
                f"'{model.file_stem}' in module '{model.module}'",
                "rename one op or move it to another module",
            )
        if model.file_stem == module_header_stem(model.module):
            sink.emit(
                "E802",
                model.span,
                f"op '{model.op_type}' maps to file '{model.file_stem}', the name of "
                f"module {model.module}'s aggregate header",
                "rename the op or move it to another module",
            )
        for name in exported_names(model):
            clash = exported.setdefault((model.module, name), model)
            if clash.op_type != model.op_type:
                sink.emit(
                    "E802",
                    model.span,
                    f"ge.es.{model.module}.{name} would be defined by both "
                    f"'{clash.op_type}' and '{model.op_type}'",
                    "rename one op or move it to another module",
                )
