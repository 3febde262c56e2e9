"""Rules between specs (E8xx): op types are unique, and no two ops of a module
map to one file or one exported name.

The rules read only a small index of each spec (``Claim``): a run that
loads only the specs that changed (Note [Render cache] in ``render_cache``)
checks the changed ones against the claims it kept for the others, with
the same diagnostics as a run that loaded them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from gen_ops.base.diagnostics import Sink, Span
from gen_ops.lowering.layout import Placed, module_header_stem
from gen_ops.lowering.names import exported_names
from gen_ops.spec.model import OpSpec
from gen_ops.spec.source import LoadedSpec


class Claimed(Placed, Protocol):
    """What a valid spec's op claims across specs: ``Names``, or the
    ``OpFacts`` the render cache keeps (which hold the same fields): where
    its files go, where it stands, and the names it exports."""

    @property
    def span(self) -> Span: ...  # the op's model span (E802 points here)
    @property
    def exported(self) -> tuple[str, ...]: ...  # names ge.es.<module> exports


@dataclass(frozen=True)
class Names:
    op_type: str
    module: str
    file_stem: str
    span: Span
    exported: tuple[str, ...]

    @staticmethod
    def of(model: OpSpec) -> Names:
        return Names(
            model.op_type,
            model.module,
            model.file_stem,
            model.span,
            exported_names(model),
        )


@dataclass(frozen=True)
class Claim:
    """What one spec claims across specs: the op type it names (``op`` as
    written, if a string) and where, and, when it yields a model, what the
    model claims (module, file stem, exported names)."""

    op: str | None
    op_at: Span
    facts: Claimed | None


def claim(spec: LoadedSpec, names: Claimed | None) -> Claim:
    op = spec.data.get("op") if isinstance(spec.data, dict) else None
    return Claim(op if isinstance(op, str) else None, spec.positions.at(("op",)), names)


def check_across(claims: Sequence[Claim], sink: Sink) -> None:
    """E801 among every loaded spec that names an op; E802 among the models."""
    _unique_op_types(claims, sink)
    _distinct_files_and_names([c.facts for c in claims if c.facts], sink)


def _unique_op_types(claims: Sequence[Claim], sink: Sink) -> None:
    first: dict[str, Span] = {}
    for spec in claims:
        op = spec.op
        if op is None:
            continue
        if op not in first:
            first[op] = spec.op_at
            continue
        sink.emit(
            "E801",
            spec.op_at,
            f"op type '{op}' is already defined in {first[op]}",
            "op types are unique across all specs; rename one",
        )


def _distinct_files_and_names(models: Sequence[Claimed], sink: Sink) -> None:
    stems: dict[tuple[str, str], Claimed] = {}
    exported: dict[tuple[str, str], Claimed] = {}
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
        for name in model.exported:
            clash = exported.setdefault((model.module, name), model)
            if clash.op_type != model.op_type:
                sink.emit(
                    "E802",
                    model.span,
                    f"ge.es.{model.module}.{name} would be defined by both "
                    f"'{clash.op_type}' and '{model.op_type}'",
                    "rename one op or move it to another module",
                )
