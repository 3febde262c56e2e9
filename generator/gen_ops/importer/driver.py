"""The whole import: headers in, spec files out, as one transaction.

Each header goes through lexer, preprocess, parser and convert on its own
(in worker processes when there are many, ``--jobs``); a header with a
syntax defect (I103 to I108) gives no op at all. The ops of the other
headers are merged (Note [Duplicates] in ``merge``), each is written to
``<out>/<module>/<stem>.yaml`` (``<stem>`` is the op type in snake case, as
for every gen-ops file), and all files are written in one transaction
(``gen_ops.emit.transaction``): a spec file is complete or absent. The import's
record of what it wrote (Note [Import record] in ``reimport``) is written in
the same transaction; a file the team edited since is merged with the new
import (Note [Three-way re-import]), and one it deleted is not written
again unless ``--restore-deleted``. A file the record does not name that
exists with other content is kept unless ``--overwrite`` or ``--adopt``
(I207).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ge_ir.names import is_identifier, library_module_refusal
from gen_ops import pipeline
from gen_ops.base.diagnostics import Diagnostic, Severity, Sink, Span
from gen_ops.base.resources import SCHEMA_COPY, schema_reference, schema_text
from gen_ops.base.untrusted import SPEC_LIMIT, UntrustedFileError, read_text
from gen_ops.emit import transaction
from gen_ops.importer import headers, reimport
from gen_ops.importer.convert import convert
from gen_ops.importer.lexer import tokenize
from gen_ops.importer.merge import Found, merge
from gen_ops.importer.model import ImportedOp
from gen_ops.importer.parser import parse
from gen_ops.importer.preprocess import active_tokens
from gen_ops.importer.reimport import (
    RECORD,
    Record,
    RecordRefused,
    read_record,
    record_text,
)
from gen_ops.importer.syntax import Broken
from gen_ops.importer.yaml_writer import spec_text
from gen_ops.lowering.layout import file_stem
from gen_ops.spec.discovery import display

if TYPE_CHECKING:
    from gen_ops.spec.model import OpSpec

# Fewer headers than this are read in this process: starting workers costs
# more than they save.
PARALLEL_FROM = 32


@dataclass(frozen=True)
class Options:
    paths: tuple[Path, ...]
    out: Path
    module: str = "custom"
    module_per_header: bool = False
    fix_dtypes: bool = False
    prefer: tuple[str, ...] = ()
    overwrite: bool = False
    jobs: int = 1
    restore_deleted: bool = False  # write specs the team deleted since
    adopt: bool = False  # keep files the record does not name, as edits


@dataclass(frozen=True)
class HeaderResult:
    """What one header gave: its ops, its diagnostics, whether it failed as
    a whole, and how many of its declarations could not be imported."""

    header: headers.HeaderFile
    ops: tuple[ImportedOp, ...]
    texts: tuple[str, ...]  # each op's spec
    diagnostics: tuple[Diagnostic, ...]
    failed: bool
    not_imported: int
    # each op's errors under gen-ops' own checks (``check_spec``; empty: the
    # spec is taken), computed here so that --jobs spreads them too
    refusals: tuple[tuple[Diagnostic, ...], ...] = ()


@dataclass(frozen=True)
class SpecFile:
    path: str  # relative to the output directory
    text: str
    op: ImportedOp


@dataclass(frozen=True)
class Result:
    """A run's outcome, before anything is written."""

    headers: int
    failed_headers: int
    files: tuple[SpecFile, ...]  # every spec to write or that is unchanged
    writes: tuple[SpecFile, ...]  # those whose file must change
    merged: int
    not_imported: int
    diagnostics: tuple[Diagnostic, ...]
    # the import record's new text, None when it does not change
    record: str | None = None
    # specs the team deleted since the last import, not written again
    kept_deleted: int = 0
    # files written with the team's edits merged in (among ``writes``)
    merged_edits: int = 0

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors


def module_of(header: headers.HeaderFile, options: Options) -> str:
    return header.path.stem if options.module_per_header else options.module


def import_header(
    header: headers.HeaderFile,
    module: str,
    fix_dtypes: bool,
    out: Path,
    check: bool = True,
) -> HeaderResult:
    """One header through lexer, preprocess, parser, convert and the YAML
    writer (specs that merge then drops cost little, and writing them here
    puts the work in the worker processes); with ``check``, each spec through
    ``check_spec`` too (``refusals``; a caller that checks the specs itself,
    as ``gen-ops roundtrip`` does, passes False and gets none)."""
    sink = Sink()
    if not is_identifier(module):
        sink.emit(
            "I108",
            Span(header.display, 1, 1),
            f"the header's stem {module!r} is not a module name (a letter, then "
            "letters, digits and _)",
            "rename the header, or import it with --module NAME",
        )
        return HeaderResult(header, (), (), tuple(sink.items), True, 0)
    refusal = library_module_refusal(module)
    if refusal is not None:
        sink.emit(
            "I108",
            Span(header.display, 1, 1),
            f"the header's stem cannot be a module name: {refusal}",
            "rename the header, or import it with --module NAME",
        )
        return HeaderResult(header, (), (), tuple(sink.items), True, 0)
    source = headers.read(header, sink)
    if source is None:
        return HeaderResult(header, (), (), tuple(sink.items), True, 0)
    tokens, whole = tokenize(source, sink)
    tokens, nested, conditionals = active_tokens(source, tokens, sink)
    found, balanced = parse(
        source, tokens, sink, complete=whole, conditionals=conditionals
    )
    if not (whole and nested and balanced):
        # A syntax defect: what follows it cannot be trusted, so no op of
        # the header is converted (nor reported on).
        return HeaderResult(header, (), (), tuple(sink.items), True, len(found))
    ops: list[ImportedOp] = []
    not_imported = 0
    for item in found:
        if isinstance(item, Broken):
            not_imported += 1
            continue
        op = convert(item, source, sink, module, fix_dtypes)
        if op is None:
            not_imported += 1
        else:
            ops.append(op)
    schema = schema_reference(1)  # <out>/<module>/<stem>.yaml
    texts = tuple(spec_text(op, schema, f"{op.span.path}:{op.span.line}") for op in ops)
    refusals = (
        tuple(tuple(check_spec(op, text)[1]) for op, text in zip(ops, texts))
        if check
        else ()
    )
    return HeaderResult(
        header, tuple(ops), texts, tuple(sink.items), False, not_imported, refusals
    )


def report_shared_modules(found: Sequence[headers.HeaderFile], sink: Sink) -> None:
    """With --module-per-header, a header whose stem is the stem of an
    earlier one (in another directory) gives the same module: say so (I312)
    at the later header, since its ops join the other header's module."""
    first: dict[str, headers.HeaderFile] = {}
    for header in found:
        earlier = first.setdefault(header.path.stem, header)
        if earlier is not header:
            sink.emit(
                "I312",
                Span(header.display, 1, 1),
                f"module '{header.path.stem}' is also the module of "
                f"{earlier.display} (--module-per-header names a module by the "
                "header's stem): the ops of both headers go into one module",
                "rename one of the headers, or import each directory in a run "
                "of its own with --module NAME",
            )


def check_spec(op: ImportedOp, text: str) -> tuple[OpSpec | None, list[Diagnostic]]:
    """The imported spec ``text`` of ``op`` through gen-ops' own checks, as
    ``gen-ops validate`` runs them: (the checked spec, None if any check
    failed; the errors). The one place ``gen-ops import`` (I208) and
    ``gen-ops roundtrip`` (R101) decide whether gen-ops would take a spec."""
    checks = Sink()
    spec = pipeline.check_text(
        text, f"{op.module}/{file_stem(op.op_type)}.yaml", checks
    )
    errors = [d for d in checks.items if d.severity is Severity.ERROR]
    return (None if errors else spec), errors


def failed_checks(errors: Sequence[Diagnostic]) -> str:
    """``E308 Const: op type 'Const' is ...; ...``: the errors of
    ``check_spec``, for a message."""
    return "; ".join(f"{d.code} {d.message}" for d in errors)


def _one(task: tuple[headers.HeaderFile, str, bool, Path]) -> HeaderResult:
    return import_header(*task)


def _results(
    found: Sequence[headers.HeaderFile], options: Options
) -> Iterator[HeaderResult]:
    tasks = [(h, module_of(h, options), options.fix_dtypes, options.out) for h in found]
    if options.jobs <= 1 or len(tasks) < PARALLEL_FROM:
        yield from map(_one, tasks)
        return
    chunk = max(1, len(tasks) // (options.jobs * 8))
    with ProcessPoolExecutor(max_workers=options.jobs) as pool:
        yield from pool.map(_one, tasks, chunksize=chunk)


def _only_schema_line(on_disk: str | None, text: str) -> bool:
    """The spec on disk differs from the import in its ``$schema`` line
    alone (an earlier gen-ops wrote another path; Note [Schema copy]):
    gen-ops' own line, replaced without --overwrite."""
    if on_disk is None:
        return False
    old_first, _, old_rest = on_disk.partition("\n")
    new_first, _, new_rest = text.partition("\n")
    prefix = "# yaml-language-server: $schema="
    return (
        old_rest == new_rest
        and old_first.startswith(prefix)
        and (new_first.startswith(prefix))
    )


_MISSING = "\0missing"  # no file there (text can hold no NUL: it is ours)


def _read(path: Path) -> str | None:
    """The file's text, _MISSING when there is none, None when it cannot
    be read (the write then reports why)."""
    if not os.path.lexists(path):
        return _MISSING
    try:  # not a FIFO, nor a huge file (Note [Untrusted files])
        return read_text(path, limit=SPEC_LIMIT)
    except (FileNotFoundError, NotADirectoryError):
        return _MISSING
    except (OSError, UntrustedFileError):
        return None


def refuse_out(options: Options) -> Result | None:
    """The I207 result when ``--out`` cannot hold specs (a file, a loop of
    symbolic links); None when it can. Checked before the tree lock is
    taken, since the lock lives in that directory."""
    refusal = headers.unusable_directory(options.out)
    if refusal is None:
        return None
    sink = Sink()
    sink.emit(
        "I207",
        Span(display(options.out), 1, 1),
        f"--out {display(options.out)} cannot hold the specs: {refusal}; "
        "nothing is imported",
        "name a directory (or a path where one can be made) with --out",
    )
    return Result(0, 0, (), (), 0, 0, tuple(sink.items))


def plan(options: Options) -> Result:
    """Read every header and decide every spec file; writes nothing."""
    refused = refuse_out(options)
    if refused is not None:
        return refused
    sink = Sink()
    record = _record(options, sink)
    if record is None:
        return Result(0, 0, (), (), 0, 0, tuple(sink.items))
    recorded = dict(record.specs)
    counts = {"deleted": 0, "merged": 0, "not_imported": 0}
    found_headers = headers.find(list(options.paths), sink)
    if options.module_per_header:
        report_shared_modules(found_headers, sink)
    found: list[Found] = []
    failed = 0
    for result in _results(found_headers, options):
        sink.items.extend(result.diagnostics)
        failed += result.failed
        counts["not_imported"] += result.not_imported
        resolved = headers.resolved(result.header.path)
        found.extend(
            Found(op, resolved, text, refusal)
            for op, text, refusal in zip(result.ops, result.texts, result.refusals)
        )
    outcome = merge(found, options.prefer, sink)
    counts["not_imported"] += len(outcome.rejected)
    files: list[SpecFile] = []
    writes: list[SpecFile] = []
    taken: dict[str, ImportedOp] = {}
    for item in sorted(outcome.chosen, key=lambda f: (f.op.module, f.op.op_type)):
        relative = f"{item.op.module}/{file_stem(item.op.op_type)}.yaml"
        if not _importable(item, relative, taken, sink):
            counts["not_imported"] += 1
            continue
        kind, spec = _decide(
            options, record, SpecFile(relative, item.text, item.op), sink
        )
        if kind in ("deleted", "not_imported"):
            counts[kind] += 1
            continue
        files.append(spec)
        if kind == "keep":  # the team's file stays; its base stays recorded
            continue
        recorded[relative] = item.text
        if kind in ("write", "merged"):
            writes.append(spec)
            counts["merged"] += kind == "merged"
    new_record = record_text(recorded) if recorded else None
    if record.found and recorded == record.specs:
        new_record = None
    return Result(
        headers=len(found_headers),
        failed_headers=failed,
        files=tuple(files),
        writes=tuple(writes),
        merged=outcome.merged,
        not_imported=counts["not_imported"],
        diagnostics=tuple(sink.sorted()),
        record=new_record,
        kept_deleted=counts["deleted"],
        merged_edits=counts["merged"],
    )


def _record(options: Options, sink: Sink) -> Record | None:
    """The record of the last import into ``--out``; None after I210 when it
    cannot be used. Read under the tree lock, as the specs (Note [Import
    record])."""
    try:
        return read_record(options.out)
    except RecordRefused as exc:
        sink.emit(
            "I210",
            Span(exc.display, exc.line, exc.col),
            f"the import record cannot be used: {exc.reason}; nothing is imported",
            f"{RECORD} is gen-ops' record of what the last import wrote: restore "
            "it (from version control), or remove it, which forgets which specs "
            "were deleted since and makes specs that differ from the import I207 "
            "until --adopt or --overwrite",
        )
        return None


def _importable(
    item: Found, relative: str, taken: dict[str, ImportedOp], sink: Sink
) -> bool:
    """Whether the chosen op gets a spec file: not one another op already
    has (I207), and not one gen-ops would refuse (I208)."""
    op = item.op
    if relative in taken:
        sink.emit(
            "I207",
            op.span,
            f"{op.op_type}: its spec file {relative} is also the one of "
            f"{taken[relative].op_type} (declared at {taken[relative].span})",
            "rename one op, or import them into different modules",
        )
        return False
    taken[relative] = op
    if item.refusal:
        sink.emit(
            "I208",
            op.span,
            f"{op.op_type}: gen-ops would refuse its spec "
            f"({failed_checks(item.refusal)}); "
            "the op is not imported, so that the rest of the module generates",
            "rename the op in REG_OP (and where it is used), or leave it in its "
            "header and import the others; docs/diagnostics.md explains each "
            "E-code",
        )
        return False
    return True


def _decide(
    options: Options, record: Record, spec: SpecFile, sink: Sink
) -> tuple[str, SpecFile]:
    """What becomes of one imported spec against the file on disk and the
    record (Note [Three-way re-import]): ``same`` (on disk already, or
    adopted), ``keep`` (the team's file stays), ``write`` (the import is
    written), ``merged`` (the team's edits merged with it, the returned
    spec), ``deleted`` (the team deleted it) or ``not_imported``."""
    relative, op = spec.path, spec.op
    on_disk = _read(options.out / relative)
    base = record.specs.get(relative)
    if on_disk == spec.text:
        return "same", spec
    if on_disk is _MISSING:
        if base is not None and not options.restore_deleted:
            return "deleted", spec
        return "write", spec
    if options.overwrite or _only_schema_line(on_disk, spec.text):
        return "write", spec  # or only gen-ops' own $schema line (Note [Schema copy])
    if on_disk is None or base is None:
        if on_disk is not None and options.adopt:  # the file is the team's edit
            return "same", spec
        _refuse_existing(options, relative, op, record.found, on_disk, sink)
        return "not_imported", spec
    if on_disk == base:  # the team did not touch it
        return "write", spec
    if base == spec.text:  # the header did not change: the team's stays
        return "keep", spec
    text = _merge(options, relative, op, base, on_disk, spec.text, sink)
    if text is None:
        return "not_imported", spec
    if text == on_disk:
        return "same", spec
    return "merged", SpecFile(relative, text, op)


def _refuse_existing(
    options: Options,
    relative: str,
    op: ImportedOp,
    recorded: bool,
    on_disk: str | None,
    sink: Sink,
) -> None:
    """I207 for a spec file that differs from the import and that the
    import record does not name, or that cannot be read."""
    path = display(options.out / relative)
    if on_disk is None:
        sink.emit(
            "I207",
            op.span,
            f"{op.op_type}: {path} exists but cannot be read as a spec file (not "
            "a regular file, or too large); it is not overwritten",
            "move it away, or pass --overwrite to replace it",
        )
        return
    why = (
        f"the import record ({RECORD}) does not name it"
        if recorded
        else f"there is no import record ({RECORD}; specs imported before gen-ops "
        "kept one)"
    )
    sink.emit(
        "I207",
        op.span,
        f"{op.op_type}: {path} exists and differs from the import, and {why}, so "
        "your edits cannot be told from the header's changes; it is not "
        "overwritten",
        "pass --adopt to keep the file and merge later imports into it, "
        "--overwrite to replace it, or move it away",
    )


def _merge(
    options: Options,
    relative: str,
    op: ImportedOp,
    base: str,
    ours: str,
    theirs: str,
    sink: Sink,
) -> str | None:
    """The spec the team edited since the last import, merged with the new
    import (Note [Three-way re-import]); None, after I209, when it cannot
    be merged (the file is left as it is)."""
    path = display(options.out / relative)
    outcome = reimport.merge(base, ours, theirs, path)
    if outcome.text is not None:
        return outcome.text
    for conflict, line, col in outcome.conflicts:
        sink.emit(
            "I209",
            Span(path, line, col),
            f"{op.op_type}: {conflict.name}: changed both in the file "
            f"({reimport.change(conflict.base, conflict.ours)}) and in the header "
            f"at {op.span} ({reimport.change(conflict.base, conflict.theirs)}) "
            "since the last import; the file is left as it is",
            f"to take the header's, {reimport.take(conflict)}; to keep yours, make "
            "the header say it; then import again (--overwrite takes the whole "
            "import instead)",
        )
    if outcome.problem is not None:
        reason, line, col = outcome.problem
        sink.emit(
            "I209",
            Span(path, line, col),
            f"{op.op_type}: the file was edited since the last import and the "
            f"header changed, but they cannot be merged: {reason}; the file is "
            "left as it is",
            "apply the header's changes by hand (import into another --out to see "
            "them) and import again, or pass --overwrite to take the whole import",
        )
    return None


def write(options: Options, result: Result) -> None:
    """Write the changed spec files, and the import record, as one
    transaction (WriteError)."""
    writes = [(f.path, f.text) for f in result.writes]
    if writes:
        # The schema the specs' first lines name (Note [Schema copy]).
        schema = schema_text()
        if _read(options.out / SCHEMA_COPY) != schema:
            writes.append((SCHEMA_COPY, schema))
    if result.record is not None:  # last, as a manifest (Note [Import record])
        writes.append((RECORD, result.record))
    if writes:
        transaction.apply(options.out, transaction.Change(writes, ()))
