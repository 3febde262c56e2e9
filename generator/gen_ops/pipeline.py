"""Find specs, load, validate, and render every output in memory.

Nothing here touches the output directory; ``writer`` does that, and
``render_run`` runs a whole render (fast path, render cache, checks,
history, lowering, transaction, writer, scaffold, state). A run that
renders only what changed (Note [Render cache] in ``render_cache``) passes
the claims it kept for unchanged specs to ``check``, and their facts to
``render_parts``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from gen_ops import semantics
from gen_ops.base.collector import collector_paused
from gen_ops.base.diagnostics import Severity, Sink, Span
from gen_ops.emit.outputs import OutputFile, Shared, Target
from gen_ops.lowering import layout
from gen_ops.lowering.facts import OpFacts
from gen_ops.lowering.lower_es import op_paths
from gen_ops.lowering.targets import LOWERINGS, facts_of
from gen_ops.semantics import Claim, Names
from gen_ops.spec import schema_check
from gen_ops.spec.discovery import SpecFile, discover
from gen_ops.spec.model import OpSpec
from gen_ops.spec.source import load_spec_text, read_spec
from gen_ops.spec.spec_cache import SpecCache
from gen_ops.spec.spec_cache import key as cache_key

__all__ = [
    "Target",
    "OutputFile",
    "SpecFile",
    "discover",
    "load_and_check",
    "check",
    "render",
    "render_parts",
    "op_outputs",
    "load",
    "unknown_excluded",
]


@dataclass(frozen=True)
class Checked:
    """A spec that passed every check: its file, model, and where its op
    type stands (E801 points there)."""

    file: SpecFile
    model: OpSpec
    op_at: Span

    @cached_property
    def facts(self) -> OpFacts:
        """What the op gives the files it shares with others (only a render
        needs them: they are worked out when first asked for)."""
        return facts_of(self.model)


def load_and_check(
    files: Sequence[SpecFile], sink: Sink, cache: SpecCache | None = None
) -> list[OpSpec]:
    """Load every spec and check all of them; the models of the valid ones.
    With a ``cache``, a spec it holds is not loaded, and the models of the
    specs loaded with no diagnostic are kept in it (Note [Spec cache])."""
    return [c.model for c in check(files, sink, cache=cache)]


def _check_one(
    file: SpecFile, sink: Sink, cache: SpecCache | None
) -> tuple[Claim | None, Checked | None]:
    """One spec loaded and checked on its own, or its model taken from
    ``cache``: what it claims across specs (None if it did not load) and,
    if it passed, its checked model."""
    raw = read_spec(file.path, file.display, sink)
    if raw is None:
        return None, None
    name = "" if cache is None else cache_key(file, raw)  # computed once
    if cache is not None:
        kept = cache.get(name)
        if kept is not None:
            claim = Claim(kept.op_type, kept.span, Names.of(kept))
            return claim, Checked(file, kept, kept.span)
    before = len(sink.items)
    spec = load_spec_text(raw, file.display, sink)
    if spec is None:
        return None, None
    spec = dataclasses.replace(spec, label=file.label, project=file.project)
    model = semantics.check_spec(spec, sink) if schema_check.check(spec, sink) else None
    claim = semantics.claim(spec, None if model is None else Names.of(model))
    if model is None:
        return claim, None
    if cache is not None and len(sink.items) == before:
        cache.put(name, model)
    return claim, Checked(file, model, claim.op_at)


def check(
    files: Sequence[SpecFile],
    sink: Sink,
    kept: Mapping[Path, Claim] | None = None,
    cache: SpecCache | None = None,
) -> list[Checked]:
    """Load and check every spec of ``files`` but those in ``kept`` (the
    claims of specs known valid, by path), then check all of them across
    specs; the valid ones loaded, by op type. The cycle collector is paused
    meanwhile (Note [Registries and the cycle collector] in collector); each
    loaded spec is dropped once checked, only its claim and model kept."""
    kept = kept or {}
    claims: list[Claim] = []
    passed: list[Checked] = []
    with collector_paused():
        for file in files:
            if file.path in kept:
                claims.append(kept[file.path])
                continue
            claim, one = _check_one(file, sink, cache)
            if claim is not None:
                claims.append(claim)
            if one is not None:
                passed.append(one)
    semantics.check_across(claims, sink)
    # A spec with any error (in loading, structure, meaning or across specs)
    # yields no model.
    failed = {d.span.path for d in sink.items if d.severity is Severity.ERROR}
    if cache is not None:
        cache.save()
    checked = [c for c in passed if c.op_at.path not in failed]
    return sorted(checked, key=lambda c: c.model.op_type)


def check_text(text: str, display: str, sink: Sink) -> OpSpec | None:
    """Every check of one spec given as text, named ``display`` in
    diagnostics (``gen-ops new`` checks its starter spec before writing it)."""
    spec = load_spec_text(text.encode("utf-8"), display, sink)
    if spec is None or not schema_check.check(spec, sink):
        return None
    return semantics.check_spec(spec, sink)


def render(ops: Sequence[OpSpec], targets: frozenset[Target]) -> list[OutputFile]:
    """Every output file of the selected targets, formatted, in memory."""
    return render_parts(ops, [facts_of(op) for op in ops], targets)[0]


def render_parts(
    ops: Sequence[OpSpec],
    shared: Sequence[OpFacts],
    targets: frozenset[Target],
    keep: Callable[[Shared, Target], bool] | None = None,
) -> tuple[list[OutputFile], list[str]]:
    """The per-op files of ``ops``, and the files ops share (per module, the
    docs index) from the facts of every op, ``shared``; but a shared file
    that ``keep`` says stands as the last run left it is not rendered
    (Note [Render cache]). The files rendered, and the paths kept."""
    out: list[OutputFile] = []
    kept: list[str] = []
    for target in Target:
        if target not in targets:
            continue
        for lowering in LOWERINGS[target]:
            for op in ops:
                out.extend(OutputFile(p, target, c) for p, c in lowering.op_files(op))
            for file in lowering.module_files(shared):
                if keep is not None and keep(file, target):
                    kept.append(file.path)
                else:
                    out.append(OutputFile(file.path, target, file.render()))
    return sorted(out, key=lambda f: f.path), kept


def op_outputs(op: OpFacts, targets: Iterable[Target]) -> list[tuple[str, Target]]:
    """The paths of the per-op files of ``op`` (each lowering's ``op_files``)
    for each of ``targets``, in their order, without rendering them."""
    out: list[tuple[str, Target]] = []
    for target in targets:
        if target is Target.PYTHON:
            out.append((layout.builder_module(op), target))
        elif target is Target.CPP:
            out.append((layout.include_path(layout.header_include(op)), target))
        elif target is Target.IMPL:
            if op.impl_renders:
                out.append((layout.impl_module(op), target))
        elif target is Target.ES:
            if op.es_unsupported is None:
                out.extend((path, target) for path in op_paths(op.op_type))
        else:
            out.append((layout.doc_page(op), target))
    return out


@dataclass(frozen=True)
class Loaded:
    """The spec files found, the models of the valid ones (excluded ops
    left out), and the op types excluded that no spec declares."""

    files: list[SpecFile]
    ops: list[OpSpec]
    unknown_excluded: frozenset[str]


def load(
    roots: Sequence[Path], excluded: frozenset[str], sink: Sink, cached: bool = False
) -> Loaded:
    """Find the specs under ``roots``, load and check them; ``cached``:
    through the spec cache (Note [Spec cache])."""
    from gen_ops.spec import spec_cache

    files = discover(list(roots), sink)
    cache = spec_cache.open_cache(list(roots)) if cached else None
    ops = load_and_check(files, sink, cache)
    unknown = unknown_excluded(excluded, {op.op_type for op in ops}, sink)
    return Loaded(files, [op for op in ops if op.op_type not in excluded], unknown)


def unknown_excluded(
    excluded: frozenset[str], op_types: set[str], sink: Sink
) -> frozenset[str]:
    """The op types of ``excluded`` no spec declares (none told while the
    specs have errors)."""
    return frozenset() if sink.has_errors else excluded - op_types
