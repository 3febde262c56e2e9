"""The whole run: find specs, load, validate, and render every output in memory.

Nothing here touches the output directory; ``writer`` does that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gen_ops import schema_check, semantics
from gen_ops.collector import collector_paused
from gen_ops.diagnostics import Diagnostic, Severity, Sink, Span
from gen_ops.discovery import SpecFile, discover
from gen_ops.model import OpSpec
from gen_ops.outputs import OutputFile, Target
from gen_ops.source import load_spec_text, read_spec
from gen_ops.spec_cache import SpecCache

__all__ = ["Target", "OutputFile", "SpecFile", "discover", "load_and_check", "render"]


Head = tuple[str, Span]  # a loaded spec's op type and the span of its value


def _check_each(
    files: Sequence[SpecFile], cache: SpecCache | None
) -> tuple[list[OpSpec], list[Diagnostic], list[Head]]:
    """Each spec loaded and checked on its own (or its model taken from
    ``cache``: Note [Spec cache]): the models, the diagnostics, and each
    loaded spec's op type and where it stands (what the checks across
    specs need of it)."""
    sink = Sink()
    heads: list[Head] = []
    models: list[OpSpec] = []
    for file in files:
        raw = read_spec(file.path, file.display, sink)
        if raw is None:
            continue
        if cache is not None:
            kept = cache.get(file, raw)
            if kept is not None:
                heads.append((kept.op_type, kept.span))
                models.append(kept)
                continue
        before = len(sink.items)
        model = _check_one(file, raw, sink, heads)
        if model is not None:
            models.append(model)
            if cache is not None and len(sink.items) == before:
                cache.put(file, raw, model)
    return models, sink.items, heads


def _check_one(
    file: SpecFile, raw: bytes, sink: Sink, heads: list[Head]
) -> OpSpec | None:
    spec = load_spec_text(raw, file.display, sink)
    if spec is None:
        return None
    spec = dataclasses.replace(spec, label=file.label, project=file.project)
    op = spec.data.get("op") if isinstance(spec.data, dict) else None
    if isinstance(op, str):
        heads.append((op, spec.positions.at(("op",))))
    if schema_check.check(spec, sink):
        return semantics.check_spec(spec, sink)
    return None


def load_and_check(
    files: Sequence[SpecFile], sink: Sink, cache: SpecCache | None = None
) -> list[OpSpec]:
    """Load every spec and check all of them; the models of the valid ones.
    The cycle collector is paused meanwhile (Note [Registries and the cycle
    collector] in collector). With a ``cache``, a spec it holds is not
    loaded, and the models of the specs loaded with no diagnostic are kept
    in it (Note [Spec cache])."""
    with collector_paused():
        models, items, heads = _check_each(files, cache)
    sink.items.extend(items)
    semantics.check_across(heads, models, sink)
    # A spec with any error (in loading, structure, meaning or across specs)
    # yields no model.
    failed = {d.span.path for d in sink.items if d.severity is Severity.ERROR}
    if cache is not None:
        cache.save()
    return sorted(
        (m for m in models if m.spec_path not in failed), key=lambda m: m.op_type
    )


def check_text(text: str, display: str, sink: Sink) -> OpSpec | None:
    """Every check of one spec given as text, named ``display`` in
    diagnostics (``gen-ops new`` checks its starter spec before writing it)."""
    spec = load_spec_text(text.encode("utf-8"), display, sink)
    if spec is None or not schema_check.check(spec, sink):
        return None
    return semantics.check_spec(spec, sink)


def render(ops: Sequence[OpSpec], targets: frozenset[Target]) -> list[OutputFile]:
    """Every output file of the selected targets, formatted, in memory."""
    from gen_ops import lower_cpp, lower_docs, lower_impl, lower_python

    renderers = {
        Target.PYTHON: lower_python.files,
        Target.CPP: lower_cpp.files,
        Target.IMPL: lower_impl.files,
        Target.DOCS: lower_docs.files,
    }
    out: list[OutputFile] = []
    for target in Target:
        if target in targets:
            out.extend(
                OutputFile(path, target, content)
                for path, content in renderers[target](ops)
            )
    return sorted(out, key=lambda f: f.path)
