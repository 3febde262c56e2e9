"""A render, the whole run: ``render(options)`` (``gen-ops`` and ``gen-ops
--check``; the command only reads the command line and reports).

A render takes the no-change fast path (``state``), or loads and checks
the specs the render cache says changed (Note [Render cache]), attaches the
registry's releases (``RenderOptions.prepare``), renders in memory
(``pipeline``) and writes under the tree's lock in one transaction
(``writer``, Note [One transaction]), scaffolds author modules and records
the state for the next run. ``--check`` loads and renders every spec from
the same options and compares (Note [Render options]). Nothing here prints:
what happened is the ``RenderResult``, and the checks' diagnostics are
handed to ``on_checked`` before anything is written.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops.base.collector import collector_paused
from gen_ops.base.diagnostics import Sink
from gen_ops.emit import state
from gen_ops.lowering.layout import author_path_of
from gen_ops.render_options import RenderOptions
from gen_ops.spec import discovery

if TYPE_CHECKING:
    from gen_ops import render_cache
    from gen_ops.emit import writer
    from gen_ops.emit.outputs import OutputFile
    from gen_ops.emit.writer import Manifest
    from gen_ops.spec.model import OpSpec


class Outcome(Enum):
    UP_TO_DATE = "up to date"  # the fast path: nothing loaded
    INVALID = "invalid"  # a spec (or the registry) has an error: nothing written
    WRITTEN = "written"
    NOT_WRITTEN = "not written"  # a write failed, or the lock: ``problem`` says
    CURRENT = "current"  # --check: --out is as a render would leave it
    DRIFT = "drift"  # --check: it is not (``diff``, ``partial``)


@dataclass(frozen=True)
class Checks:
    """The checks of a run: their diagnostics, the spec files read, and the
    op types ``--exclude-ops`` named that no spec declares."""

    sink: Sink
    spec_files: int
    unknown_excluded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RenderResult:
    outcome: Outcome
    checks: Checks
    problem: str = ""  # NOT_WRITTEN: why, in one sentence
    rendered: int = 0  # ops rendered (CURRENT, DRIFT: files rendered)
    kept: int = 0  # ops the render cache kept
    plan: writer.Plan | None = None
    repaired: int = 0  # files an interrupted run left, finished or removed
    scaffolded: list[Path] = field(default_factory=list)
    diff: str = ""  # DRIFT: the unified diff
    partial: list[str] = field(default_factory=list)  # what an interrupted run left


def render(
    options: RenderOptions, on_checked: Callable[[Checks], None] | None = None
) -> RenderResult:
    """The render (or the check, ``options.check``) ``options`` ask for.
    ``on_checked`` is given the checks once they are done, before anything
    is written or compared."""
    told = on_checked or (lambda checks: None)
    # pipeline (the checks and lowerings) is imported only past the fast
    # path, which must stay cheap (Note [Render cache]).
    # Note [Registries and the cycle collector]: a render makes a model,
    # facts and files for every op, and keeps them to the end.
    from gen_ops.lowering.lower_es import guard_prefix

    with collector_paused(), guard_prefix(options.h_guard_prefix):
        return _check(options, told) if options.check else _render(options, told)


def _check(options: RenderOptions, told: Callable[[Checks], None]) -> RenderResult:
    """``gen-ops --check``: a full load and render, compared with --out; it
    never uses the state file."""
    from gen_ops import pipeline
    from gen_ops.emit import writer

    out = options.out
    sink = Sink()
    loaded = pipeline.load(options.specs, options.excluded, sink)
    ops = options.prepare(loaded.ops, sink)
    checks = Checks(sink, len(loaded.files), loaded.unknown_excluded)
    told(checks)
    if sink.has_errors:
        return RenderResult(Outcome.INVALID, checks)
    rendered = pipeline.render(ops, options.only)
    the_plan = writer.plan(out, rendered, options.only)
    diff = writer.drift(out, the_plan)
    partial = writer.partial_state(out)
    outcome = Outcome.DRIFT if diff or partial else Outcome.CURRENT
    return RenderResult(
        outcome,
        checks,
        rendered=len(rendered),
        plan=the_plan,
        diff=diff,
        partial=partial,
    )


def _render(options: RenderOptions, told: Callable[[Checks], None]) -> RenderResult:
    out = options.out
    mark = _manifest_mark(out)
    recorded = state.read(out)
    hasher = state.Hasher(recorded.hashes if recorded else {})
    key = options.key(hasher)
    sink = Sink()
    files = discovery.discover(options.specs, sink)
    spec_paths = [f.path for f in files]
    digests = None if sink.items else hasher.digests(spec_paths)
    fingerprint = (
        None if digests is None else state.fingerprint(spec_paths, key, digests)
    )
    if state.unchanged(out, fingerprint, recorded):
        return RenderResult(Outcome.UP_TO_DATE, Checks(sink, len(spec_paths)))
    from gen_ops import pipeline, render_cache, scaffold

    # Note [Render cache]: load, check and render only the specs that changed.
    excluded = options.excluded
    scaffold_dir = options.scaffold_dir
    context = state.context(key)
    decision = render_cache.Decision({}, None)
    if digests is not None:
        inputs = render_cache.Inputs(
            files, digests, context, out, options.only, excluded, scaffold_dir
        )
        decision = render_cache.decide(inputs, recorded)
    kept = decision.kept
    checked = pipeline.check(files, sink, {p: e.claim() for p, e in kept.items()})
    declared = {c.model.op_type for c in checked}
    declared |= {e.facts.op_type for e in kept.values()}
    unknown = pipeline.unknown_excluded(excluded, declared, sink)
    ops = options.prepare([c.model for c in checked], sink)
    # The files ops share and the cache are made from the models as
    # prepared, as --check makes them (Note [Render options]).
    prepared = {op.op_type: op for op in ops}
    checked = [
        (
            dataclasses.replace(c, model=prepared[c.model.op_type])
            if c.model.op_type in prepared
            else c
        )
        for c in checked
    ]
    checks = Checks(sink, len(files), unknown)
    told(checks)
    if sink.has_errors:
        return RenderResult(Outcome.INVALID, checks)
    standing = [e.facts for e in kept.values() if e.facts.op_type not in excluded]
    shared = sorted(
        [c.facts for c in checked if c.model.op_type not in excluded] + standing,
        key=lambda f: f.op_type,
    )
    rendered, kept_shared = pipeline.render_parts(
        ops,
        shared,
        options.only,
        render_cache.shared_keeper(decision, (c.facts for c in checked), out),
    )
    kept_paths = decision.kept_paths + tuple(kept_shared)

    def record(the_plan: writer.Plan) -> None:
        if fingerprint is None or digests is None:
            return
        _record_state(
            out,
            fingerprint,
            render_cache.updated(
                context,
                decision,
                checked,
                dict(zip(spec_paths, digests, strict=True)),
                {d.span.path for d in sink.items},
            ),
            decision,
            [f.path for f in rendered] + list(kept_shared),
            the_plan,
            scaffold.author_paths(ops, scaffold_dir) if scaffold_dir else [],
            scaffold_dir,
            excluded,
            hasher.seen,
        )

    done = _write(options, ops, (rendered, kept_paths, decision.manifest), mark, record)
    if isinstance(done, str):
        return RenderResult(Outcome.NOT_WRITTEN, checks, problem=done)
    repaired, the_plan, written = done
    return RenderResult(
        Outcome.WRITTEN,
        checks,
        rendered=len(ops),
        kept=len(standing),
        plan=the_plan,
        repaired=repaired,
        scaffolded=written,
    )


def _record_state(
    out: Path,
    fingerprint: str,
    cache: render_cache.Cache,
    decision: render_cache.Decision,
    rendered: list[str],
    the_plan: writer.Plan,
    authors: list[Path],
    scaffold_dir: str | None,
    excluded: frozenset[str],
    hashes: Mapping[str, object],
) -> None:
    """The state file after a render: its outputs' and author modules'
    stats (those it did not write as the decision saw them), the digests
    to keep (Note [Known digests]), the cache."""
    from gen_ops import render_cache
    from gen_ops.emit import writer

    prefix = render_cache.under(out)  # str(out / path), made faster
    outputs = [prefix + p for p in rendered + list(decision.kept_paths)]
    outputs.append(prefix + writer.MANIFEST)
    if scaffold_dir is not None:
        kept = decision.kept.values()
        authors = authors + [
            author_path_of(e.facts, e.facts.author, Path(e.project), scaffold_dir)
            for e in kept
            if e.facts.has_impl and e.facts.op_type not in excluded
        ]
    changed = {prefix + f.path for f in the_plan.writes}
    changed.add(prefix + writer.MANIFEST)
    known = {p: stat for p, stat in decision.standing.items() if p not in changed}
    files = outputs + [str(path) for path in authors]
    state.record(out, fingerprint, files, cache.to_text(), known, hashes)


def _manifest_mark(out: Path) -> tuple[int, int, int] | None:
    """Which manifest ``out`` holds (its inode, size and time; a commit
    renames a new one in), or None: taken before a render reads the tree
    and compared under the lock, so a render planned against a manifest
    another run has since replaced fails instead of writing a stale plan."""
    try:
        info = os.lstat(out / ".gen-ops-manifest.json")
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _write(
    options: RenderOptions,
    ops: list[OpSpec],
    planned: tuple[list[OutputFile], tuple[str, ...], Manifest | None],
    mark: tuple[int, int, int] | None,
    record: Callable[[writer.Plan], None],
) -> tuple[int, writer.Plan, list[Path]] | str:
    """Write a render under the tree's lock (Note [Tree lock]): finish or
    clean up what an interrupted run left, forget the fast-path state (a run
    stopped from here on must not look up to date), write, record the state.
    The files repaired, the plan and the author modules scaffolded, or why
    nothing (or not all) was written."""
    from gen_ops import scaffold
    from gen_ops.emit import locking, transaction, writer

    out = options.out
    rendered, kept_paths, manifest = planned
    try:
        with locking.hold(out, "gen-ops", options.lock_timeout):
            if _manifest_mark(out) != mark:
                return (
                    f"another run of gen-ops wrote {discovery.display(out)} "
                    f"while this one rendered; {discovery.display(out)} was not "
                    "changed by this run: run gen-ops again"
                )
            repaired = transaction.recover(out)
            state.forget(out)
            the_plan = writer.plan(out, rendered, options.only, kept_paths, manifest)
            writer.apply(out, the_plan)
            written = (
                []
                if options.scaffold_dir is None
                else scaffold.scaffold_authors(ops, options.scaffold_dir)
            )
            record(the_plan)
    except transaction.WriteError as exc:
        return f"{exc}" + ("" if exc.changed else f"; {out} was not changed")
    except locking.LockTimeout as exc:
        return f"{exc}"
    except scaffold.OutsideProject as exc:
        return (
            f"cannot scaffold {discovery.display(exc.path)}: it resolves "
            f"outside the project root {discovery.display(exc.project)} (through a "
            "symlink); no author module was written"
        )
    except OSError as exc:  # BrokenPipeError is main's, not a write failure
        if isinstance(exc, BrokenPipeError):
            raise
        return f"cannot write {exc.filename or out}: {exc.strerror or exc}"
    return repaired, the_plan, written
