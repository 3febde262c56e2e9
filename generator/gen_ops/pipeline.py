"""The whole run: find specs, load, validate, and render every output in memory.

Nothing here touches the output directory; ``writer`` does that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gen_ops import parallel, schema_check, semantics
from gen_ops.collector import collector_paused
from gen_ops.diagnostics import Diagnostic, Severity, Sink, Span
from gen_ops.discovery import SpecFile, discover
from gen_ops.model import OpSpec
from gen_ops.outputs import OutputFile, Target
from gen_ops.source import load_spec, load_spec_text

__all__ = ["Target", "OutputFile", "SpecFile", "discover", "load_and_check", "render"]


# Note [Loading in parallel]: loading and checking a spec needs nothing of
# any other spec until the rules between specs (E8xx), so from
# PARALLEL_FROM files on, and with more than one CPU, the files are split
# into contiguous chunks checked in forked worker processes. Each returns
# its models, its diagnostics and, per loaded spec, the op type and where
# it stands (all E801 needs); the parent joins them in file order and runs
# the checks across specs, so the result is the serial one (a test
# compares them). Where fork is not available, or for fewer files, one
# process does it all.
PARALLEL_FROM = 400

Head = tuple[str, Span]  # a loaded spec's op type and the span of its value


def _check_chunk(
    files: Sequence[SpecFile],
) -> tuple[list[OpSpec], list[Diagnostic], list[Head]]:
    sink = Sink()
    heads: list[Head] = []
    models: list[OpSpec] = []
    for file in files:
        spec = load_spec(file.path, file.display, sink)
        if spec is None:
            continue
        spec = dataclasses.replace(spec, label=file.label, project=file.project)
        op = spec.data.get("op") if isinstance(spec.data, dict) else None
        if isinstance(op, str):
            heads.append((op, spec.positions.at(("op",))))
        if schema_check.check(spec, sink):
            model = semantics.check_spec(spec, sink)
            if model is not None:
                models.append(model)
    return models, sink.items, heads


def _workers(count: int, jobs: int | None) -> int:
    if jobs is None and count < PARALLEL_FROM:
        return 1
    return parallel.workers(count, PARALLEL_FROM // 2, jobs)


def load_and_check(
    files: Sequence[SpecFile], sink: Sink, jobs: int | None = None
) -> list[OpSpec]:
    """Load every spec and check all of them; the models of the valid ones.
    ``jobs`` forces that many worker processes (Note [Loading in
    parallel]); by default the number of files and CPUs decides."""
    with collector_paused():
        chunks = parallel.map_chunks(_check_chunk, files, _workers(len(files), jobs))
    models: list[OpSpec] = []
    heads: list[Head] = []
    for chunk_models, items, chunk_heads in chunks:
        models += chunk_models
        sink.items.extend(items)
        heads += chunk_heads
    semantics.check_across(heads, models, sink)
    # A spec with any error (in loading, structure, meaning or across specs)
    # yields no model.
    failed = {d.span.path for d in sink.items if d.severity is Severity.ERROR}
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
