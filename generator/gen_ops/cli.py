"""The ``gen-ops`` command line. See docs/cli.md.

Exit status: 0 success; 1 ``--check`` found drift; 2 invalid specs or usage;
3 an output could not be written (or the system refused a path); 4 an
internal error; 128 + N when signal N (SIGHUP, SIGINT, SIGTERM) stopped it:
129, 130, 143; 141 when standard output was closed early. No traceback ever
reaches the user: an unexpected error is reported in one line (set
GEN_OPS_DEBUG=1 for the trace).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops import __version__, diagnostics_json, discovery, interrupts, state
from gen_ops.diagnostics import Diagnostic, Severity, Sink
from gen_ops.layout import author_path_of
from gen_ops.outputs import Target
from gen_ops.render_options import RenderOptions, excluded_ops

if TYPE_CHECKING:
    from gen_ops import render_cache, writer
    from gen_ops.model import OpSpec
    from gen_ops.outputs import OutputFile
    from gen_ops.writer import Manifest

EXIT_OK, EXIT_DRIFT, EXIT_INVALID, EXIT_IO, EXIT_INTERNAL = 0, 1, 2, 3, 4
COMMANDS = (
    "render",
    "validate",
    "new",
    "schema",
    "import",
    "roundtrip",
    "release",
    "compat",
    "changelog",
    "package",
    "completion",
    "test",
)
# One line per command, for --help and shell completion.
SUMMARIES = {
    "render": "(the default) validate specs/ and render every output into --out",
    "validate": "check specs and report every problem; write nothing",
    "new": "write a starter spec for a new op",
    "schema": "print the JSON Schema of op specs",
    "import": "turn REG_OP headers into specs",
    "roundtrip": "check that headers mean the same after gen-ops renders them",
    "package": "build an es_<module> wheel and sdist of one module",
    "release": "record the current specs as a release in a history registry",
    "compat": "check the specs against the registry's releases for breaking changes",
    "changelog": "print what each release changed, in Markdown",
    "completion": "print a bash or zsh completion script",
    "test": "check ops against their references on drawn cases (docs/opcheck.md)",
}
DEFAULT_MAX_ERRORS = 50


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def _path_text(text: str) -> str:
    """A path argument: never empty (an empty path would mean the current
    directory, where gen-ops would then write)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; name a file or directory")
    return text


def _path(text: str) -> Path:
    return Path(_path_text(text))


def _spec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--specs",
        metavar="PATH",
        action="append",
        type=_path,
        help="a spec file or a directory searched for *.yaml and *.yml (repeatable; "
        "default: specs)",
    )
    parser.add_argument(
        "--exclude-ops",
        metavar="OPS",
        default="",
        help="comma-separated op types to leave out",
    )
    _diagnostic_options(parser)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (0 or more)")
    return value


def _diagnostic_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="diagnostics as text lines, or as one JSON document (for editors "
        "and CI); both on standard error",
    )
    parser.add_argument(
        "--max-errors",
        metavar="N",
        type=_count,
        default=DEFAULT_MAX_ERRORS,
        help=f"show at most N diagnostics as text, then how many more there are "
        f"(default {DEFAULT_MAX_ERRORS}; 0: all)",
    )


def _targets(text: str) -> frozenset[Target]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    known = {t.value: t for t in Target}
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown target(s) {', '.join(bad) or '(none)'}; choose from "
            + ", ".join(known)
        )
    return frozenset(known[n] for n in names)


def _render_parser() -> argparse.ArgumentParser:
    commands = "\n".join(f"  {name:<11} {text}" for name, text in SUMMARIES.items())
    parser = _Parser(
        prog="gen-ops",
        usage="gen-ops [COMMAND] [options]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Validate op specs and render the ge.es Python builders, REG_OP\n"
        "headers, implementation skeletons and reference docs.\n\n"
        f"commands (gen-ops COMMAND --help for each):\n{commands}\n\n"
        "The options below are render's.",
        epilog="Exit status: 0 ok, 1 drift (--check), 2 invalid specs or usage, 3\n"
        "cannot write, 4 internal error, 129/130/143 stopped by SIGHUP/SIGINT/\n"
        "SIGTERM, 141 standard output closed. docs/cli.md has the details.",
    )
    _spec_options(parser)
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=_path,
        default=Path("generated"),
        help="output directory (default: generated)",
    )
    parser.add_argument(
        "--only",
        metavar="TARGETS",
        type=_targets,
        default=frozenset(Target),
        help="comma-separated subset of python,cpp,impl,docs,es (default: all)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="render in memory, print a unified diff of any drift from --out, "
        "exit 1 on drift; writes nothing",
    )
    parser.add_argument(
        "--scaffold-dir",
        metavar="DIR",
        type=_path_text,
        default="ops",
        help="where author modules are scaffolded for ops whose spec names no "
        "impl.author (default: ops)",
    )
    parser.add_argument(
        "--no-scaffold", action="store_true", help="do not scaffold author modules"
    )
    parser.add_argument(
        "--registry",
        metavar="DIR",
        type=_path,
        help="a history registry (gen-ops release): builders keep the call shapes "
        "of its releases (docs/releases.md)",
    )
    parser.add_argument(
        "--h-guard-prefix",
        metavar="PREFIX",
        type=_guard_prefix,
        default="",
        help="inserted into the header guards of the C/C++ ES API (gen_esb's "
        "--h_guard_prefix; letters, digits and _)",
    )
    lock_timeout_option(parser)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems"
    )
    parser.add_argument("--version", action="version", version=f"gen-ops {__version__}")
    return parser


def _guard_prefix(text: str) -> str:
    from gen_ops.lower_es import GUARD_PREFIX_SHAPE

    if not GUARD_PREFIX_SHAPE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a header guard prefix has only letters, digits and _"
        )
    return text


def lock_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--lock-timeout`` of the commands that write a tree (Note [Tree
    lock] in ``locking``)."""
    from gen_ops.locking import DEFAULT_TIMEOUT, timeout_option

    parser.add_argument(
        "--lock-timeout",
        metavar="SECONDS",
        type=timeout_option,
        default=DEFAULT_TIMEOUT,
        help="how long to wait for another gen-ops run writing the same tree "
        f"(default: {DEFAULT_TIMEOUT:g})",
    )


def _validate_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gen-ops validate",
        description="Check op specs and report every problem; write nothing.",
    )
    _spec_options(parser)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems"
    )
    return parser


def _new_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gen-ops new",
        description="Write a starter spec for a new op (never overwrites a file).",
    )
    parser.add_argument("op", metavar="Op", help="the op type, e.g. ScaleCustom")
    parser.add_argument(
        "--module", default="custom", help="ge.es module (default: custom)"
    )
    parser.add_argument(
        "--specs",
        metavar="DIR",
        type=_path,
        default=Path("specs"),
        help="directory to write the spec in (default: specs)",
    )
    return parser


def _schema_parser() -> argparse.ArgumentParser:
    return _Parser(
        prog="gen-ops schema",
        description="Print the JSON Schema of op specs (for editors and CI).",
    )


def _show(
    shown: Sequence[Diagnostic],
    errors: int,
    warnings: int,
    count: int,
    fmt: str,
    max_errors: int,
) -> None:
    """``shown`` on stderr as ``--format`` and ``--max-errors`` say: one
    JSON document, or the first ``max_errors`` lines (0: all) and how many
    more there are."""
    if fmt == "json":
        # Into the command's one document (Note [JSON output]); main always
        # runs a --format json command in a JsonRun.
        run = diagnostics_json.active()
        if run is None:
            raise RuntimeError("--format json outside a JSON run")
        run.add(shown, errors, warnings, count)
        return
    rest = len(shown) - max_errors if max_errors else 0
    for diagnostic in shown[: max_errors or None]:
        print(diagnostic.format(), file=sys.stderr)
    if rest > 0:
        print(
            f"gen-ops: {rest} more diagnostic(s) not shown (--max-errors 0 shows all)",
            file=sys.stderr,
        )


def _report(
    sink: Sink,
    quiet: bool,
    count: int,
    fmt: str = "text",
    max_errors: int = DEFAULT_MAX_ERRORS,
) -> None:
    errors = sum(1 for d in sink.items if d.severity is Severity.ERROR)
    warnings = len(sink.items) - errors
    _show(sink.sorted(), errors, warnings, count, fmt, max_errors)
    if fmt != "json" and (errors or (warnings and not quiet)):
        print(
            f"gen-ops: {errors} error(s), {warnings} warning(s) in {count} spec file(s)",
            file=sys.stderr,
        )


def _load(
    args: argparse.Namespace, sink: Sink, cached: bool = False
) -> tuple[list[discovery.SpecFile], list[OpSpec]]:
    """The spec files and the models of the valid ones; ``cached``: through
    the spec cache (Note [Spec cache])."""
    from gen_ops import pipeline, spec_cache

    roots = args.specs or [Path("specs")]
    files = discovery.discover(roots, sink)
    cache = spec_cache.open_cache(roots) if cached else None
    ops = pipeline.load_and_check(files, sink, cache)
    excluded = _excluded(args)
    _note_unknown_excluded(excluded, {op.op_type for op in ops}, sink)
    return files, [op for op in ops if op.op_type not in excluded]


def _say(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        print(text)


def cmd_validate(argv: Sequence[str]) -> int:
    args = _validate_parser().parse_args(argv)
    sink = Sink()
    files, ops = _load(args, sink)
    _report(sink, args.quiet, len(files), args.format, args.max_errors)
    if sink.has_errors:
        return EXIT_INVALID
    _say(args, f"gen-ops: {len(ops)} op(s) in {len(files)} spec file(s) are valid")
    return EXIT_OK


def _excluded(args: argparse.Namespace) -> frozenset[str]:
    return excluded_ops(args.exclude_ops)


def _note_unknown_excluded(
    excluded: frozenset[str], op_types: set[str], sink: Sink
) -> None:
    unknown = excluded - op_types
    if unknown and not sink.has_errors:
        print(
            "gen-ops: note: --exclude-ops names no spec'd op: "
            + ", ".join(sorted(unknown)),
            file=sys.stderr,
        )


def _check(args: argparse.Namespace) -> int:
    """``gen-ops --check``: a full load and render, compared with --out; it
    never uses the state file."""
    from gen_ops import pipeline, writer

    options = RenderOptions.from_args(args)  # Note [Render options]
    out = options.out
    sink = Sink()
    files, loaded = _load(args, sink)
    ops = options.prepare(loaded, sink)
    _report(sink, args.quiet, len(files), args.format, args.max_errors)
    if sink.has_errors:
        print("gen-ops: nothing was generated", file=sys.stderr)
        return EXIT_INVALID
    rendered = pipeline.render(ops, options.only)
    the_plan = writer.plan(out, rendered, options.only)
    diff = writer.drift(out, the_plan)
    partial = writer.partial_state(out)
    if diff:
        sys.stdout.write(diff)
    for line in partial:
        print(f"gen-ops: {line}", file=sys.stderr)
    if diff or partial:
        print(
            f"gen-ops: {out} is out of date: {len(the_plan.writes)} file(s) differ, "
            f"{len(the_plan.deletes)} would be removed"
            + (f", {len(partial)} left by an interrupted run" if partial else "")
            + "; run gen-ops",
            file=sys.stderr,
        )
        return EXIT_DRIFT
    _say(args, f"gen-ops: {out} is up to date ({len(rendered)} files)")
    return EXIT_OK


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
    from gen_ops import render_cache, writer

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


def cmd_render(argv: Sequence[str]) -> int:
    parser = _render_parser()
    args = parser.parse_args(argv)
    from gen_ops.untrusted import loops

    for option, path in (("--out", args.out), ("--registry", args.registry)):
        if path is not None and loops(path):
            parser.error(
                f"{option} {path}: it is a symbolic link that loops (or leads to "
                "one); remove the loop, or name a directory"
            )
    from gen_ops.collector import collector_paused

    # Note [Registries and the cycle collector]: a render makes a model,
    # facts and files for every op, and keeps them to the end.
    from gen_ops.lower_es import guard_prefix

    with collector_paused(), guard_prefix(args.h_guard_prefix):
        return _check(args) if args.check else _render(args)


def _render(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    chosen = RenderOptions.from_args(args)  # Note [Render options]
    out = chosen.out
    mark = _manifest_mark(out)
    recorded = state.read(out)
    hasher = state.Hasher(recorded.hashes if recorded else {})
    options = chosen.key(hasher)
    sink = Sink()
    files = discovery.discover(args.specs or [Path("specs")], sink)
    spec_paths = [f.path for f in files]
    digests = None if sink.items else hasher.digests(spec_paths)
    fingerprint = (
        None if digests is None else state.fingerprint(spec_paths, options, digests)
    )
    if state.unchanged(out, fingerprint, recorded):
        _say(
            args,
            f"gen-ops: up to date ({len(spec_paths)} spec files, "
            f"{time.perf_counter() - started:.2f} s)",
        )
        return EXIT_OK
    from gen_ops import pipeline, render_cache, scaffold

    # Note [Render cache]: load, check and render only the specs that changed.
    excluded = chosen.excluded
    scaffold_dir = chosen.scaffold_dir
    context = state.context(options)
    decision = render_cache.Decision({}, None)
    if digests is not None:
        inputs = render_cache.Inputs(
            files, digests, context, out, chosen.only, excluded, scaffold_dir
        )
        decision = render_cache.decide(inputs, recorded)
    kept = decision.kept
    checked = pipeline.check(files, sink, {p: e.claim() for p, e in kept.items()})
    _note_unknown_excluded(
        excluded,
        {c.model.op_type for c in checked} | {e.facts.op_type for e in kept.values()},
        sink,
    )
    ops = chosen.prepare([c.model for c in checked], sink)
    _report(sink, args.quiet, len(files), args.format, args.max_errors)
    if sink.has_errors:
        print("gen-ops: nothing was generated", file=sys.stderr)
        return EXIT_INVALID
    standing = [e.facts for e in kept.values() if e.facts.op_type not in excluded]
    shared = sorted(
        [c.facts for c in checked if c.model.op_type not in excluded] + standing,
        key=lambda f: f.op_type,
    )
    rendered, kept_shared = pipeline.render_parts(
        ops,
        shared,
        chosen.only,
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

    done = _write(
        args, chosen, ops, (rendered, kept_paths, decision.manifest), mark, record
    )
    if isinstance(done, int):
        return done
    repaired, the_plan, written = done
    if repaired:
        _say(args, f"gen-ops: repaired {repaired} file(s) an interrupted run left")
    _summarise(args, written, len(ops), len(standing), the_plan, started)
    return EXIT_OK


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
    args: argparse.Namespace,
    options: RenderOptions,
    ops: list[OpSpec],
    planned: tuple[list[OutputFile], tuple[str, ...], Manifest | None],
    mark: tuple[int, int, int] | None,
    record: Callable[[writer.Plan], None],
) -> tuple[int, writer.Plan, list[Path]] | int:
    """Write a render under the tree's lock (Note [Tree lock]): finish or
    clean up what an interrupted run left, forget the fast-path state (a run
    stopped from here on must not look up to date), write, record the state.
    The files repaired, the plan and the author modules scaffolded, or an
    exit status."""
    from gen_ops import locking, scaffold, transaction, writer

    out = options.out
    rendered, kept_paths, manifest = planned
    try:
        with locking.hold(out, "gen-ops", args.lock_timeout):
            if _manifest_mark(out) != mark:
                print(
                    f"gen-ops: another run of gen-ops wrote {discovery.display(out)} "
                    f"while this one rendered; {discovery.display(out)} was not "
                    "changed by this run: run gen-ops again",
                    file=sys.stderr,
                )
                return EXIT_IO
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
        print(
            f"gen-ops: {exc}" + ("" if exc.changed else f"; {out} was not changed"),
            file=sys.stderr,
        )
        return EXIT_IO
    except locking.LockTimeout as exc:
        print(f"gen-ops: {exc}", file=sys.stderr)
        return EXIT_IO
    except scaffold.OutsideProject as exc:
        print(
            f"gen-ops: cannot scaffold {discovery.display(exc.path)}: it resolves "
            f"outside the project root {discovery.display(exc.project)} (through a "
            "symlink); no author module was written",
            file=sys.stderr,
        )
        return EXIT_IO
    except OSError as exc:  # BrokenPipeError is main's, not a write failure
        if isinstance(exc, BrokenPipeError):
            raise
        print(
            f"gen-ops: cannot write {exc.filename or out}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return EXIT_IO
    return repaired, the_plan, written


def _summarise(
    args: argparse.Namespace,
    written: list[Path],
    rendered: int,
    kept: int,
    the_plan: writer.Plan,
    started: float,
) -> None:
    """What a render did: author modules scaffolded, ops rendered (and kept,
    Note [Render cache]), files written."""
    for path in written:
        _say(
            args,
            f"gen-ops: scaffolded {discovery.display(path)} (yours to edit; never "
            "overwritten)",
        )
    _say(
        args,
        f"gen-ops: {rendered + kept} op(s)"
        + (f" ({rendered} rendered, {kept} unchanged)" if kept else "")
        + f": {len(the_plan.writes)} file(s) written, "
        f"{len(the_plan.deletes)} removed, {the_plan.unchanged} unchanged "
        f"({time.perf_counter() - started:.2f} s)",
    )


def cmd_new(argv: Sequence[str]) -> int:
    args = _new_parser().parse_args(argv)
    from ge_ir.names import is_identifier, is_op_type

    # The shapes first (the rules the schema's patterns spell, matched
    # whole), so that no name can change the YAML it is written into.
    if not is_op_type(args.op):
        print(
            f"gen-ops new: {args.op!r} is not an op type: a letter after at most "
            "one _, then letters, digits and _ (e.g. ScaleCustom)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    if not is_identifier(args.module):
        print(
            f"gen-ops new: {args.module!r} cannot be a module name: a letter, "
            "then letters, digits and _",
            file=sys.stderr,
        )
        return EXIT_INVALID
    from gen_ops import pipeline, scaffold, transaction

    path, text = scaffold.starter_spec(args.op, args.module, args.specs)
    try:
        blocked = args.specs.exists() and not args.specs.is_dir()
        exists = not blocked and path.exists()
    except OSError as exc:
        print(f"gen-ops new: cannot write {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_IO
    if blocked:
        print(
            f"gen-ops new: cannot write {path}: {args.specs} is not a directory",
            file=sys.stderr,
        )
        return EXIT_IO
    if exists:
        print(f"gen-ops new: {path} exists; not overwritten", file=sys.stderr)
        return EXIT_INVALID
    # Then every check validate runs, so that new never writes a spec that
    # validate refuses (a keyword module, a reserved op type, ...).
    sink = Sink()
    pipeline.check_text(text, str(path), sink)
    if sink.items:
        _report(sink, False, 1)
    if sink.has_errors:
        print(f"gen-ops new: {path} was not written", file=sys.stderr)
        return EXIT_INVALID
    try:
        args.specs.mkdir(parents=True, exist_ok=True)
        transaction.write_atomic(path, text)
        schema = scaffold.schema_copy(args.specs)
    except OSError as exc:
        print(
            f"gen-ops new: cannot write {path}: {exc.strerror or exc}", file=sys.stderr
        )
        return EXIT_IO
    if schema is not None:
        print(f"gen-ops: wrote {schema} (the JSON Schema its first line names)")
    print(f"gen-ops: wrote {path}; edit it, then run gen-ops validate")
    return EXIT_OK


def cmd_import(argv: Sequence[str]) -> int:
    """``gen-ops import``: REG_OP headers to specs (docs/importing.md)."""
    from gen_ops.importer import main as import_main

    return import_main(list(argv))


def cmd_roundtrip(argv: Sequence[str]) -> int:
    """``gen-ops roundtrip``: REG_OP headers through gen-ops and back,
    compared (docs/importing.md section 14)."""
    from gen_ops.importer.roundtrip_cli import main as roundtrip_main

    return roundtrip_main(list(argv))


def cmd_history(command: str, argv: Sequence[str]) -> int:
    """``gen-ops release``, ``compat``, ``changelog``: the history registry
    (docs/releases.md)."""
    from gen_ops.collector import collector_paused
    from gen_ops.history import commands

    handler = {
        "release": commands.cmd_release,
        "compat": commands.cmd_compat,
        "changelog": commands.cmd_changelog,
    }[command]
    # The whole command, not only its loading and comparing: what those make
    # lives on until the command returns, and a collector running again
    # meanwhile would walk all of it (Note [Registries and the cycle
    # collector]); by the time it runs again, all of it is freed.
    with collector_paused():
        return handler(argv)


def cmd_package(argv: Sequence[str]) -> int:
    """``gen-ops package``: one module as an op library wheel
    (docs/packaging.md)."""
    from gen_ops.package_cli import main as package_main

    return package_main(list(argv))


def cmd_completion(argv: Sequence[str]) -> int:
    """``gen-ops completion bash|zsh``: a completion script (docs/cli.md)."""
    from gen_ops.completion import main as completion_main

    return completion_main(list(argv))


def cmd_test(argv: Sequence[str]) -> int:
    """``gen-ops test``: ops against their references (docs/opcheck.md)."""
    from gen_ops.optest import main as test_main

    return test_main(list(argv))


def cmd_schema(argv: Sequence[str]) -> int:
    _schema_parser().parse_args(argv)
    from gen_ops.schema_check import schema_text

    sys.stdout.write(schema_text())
    return EXIT_OK


EXIT_PIPE = 141  # 128 + SIGPIPE: standard output was closed early


def _escape_unencodable() -> None:
    """A terminal that cannot show a character gets an escape, not a crash
    (a diff or a diagnostic may quote any text of a spec)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _stdout_closed() -> int:
    """The reader of standard output went away (``gen-ops schema | head``):
    stop quietly, and keep Python from reporting the unflushed rest."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing left to flush
    return EXIT_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _escape_unencodable()
    command = argv[0] if argv and argv[0] in COMMANDS else "render"
    rest = argv[1:] if argv and argv[0] in COMMANDS else argv
    handler = {
        "render": cmd_render,
        "validate": cmd_validate,
        "new": cmd_new,
        "schema": cmd_schema,
        "import": cmd_import,
        "roundtrip": cmd_roundtrip,
        "release": lambda rest: cmd_history("release", rest),
        "compat": lambda rest: cmd_history("compat", rest),
        "changelog": lambda rest: cmd_history("changelog", rest),
        "package": cmd_package,
        "completion": cmd_completion,
        "test": cmd_test,
    }[command]
    if command in JSON_COMMANDS and diagnostics_json.requested(rest):
        return _main_json(command, handler, rest)
    return _run(handler, rest)


# The commands with --format json (Note [JSON output]).
JSON_COMMANDS = frozenset(
    {"render", "validate", "package", "release", "compat", "changelog"}
)


def _main_json(
    command: str, handler: Callable[[Sequence[str]], int], rest: Sequence[str]
) -> int:
    """Run a ``--format json`` command and print its one document (Note
    [JSON output]), whatever the command printed or however it ended."""
    real = sys.stdout
    output, messages = io.StringIO(), io.StringIO()
    run = diagnostics_json.JsonRun(command)
    with (
        diagnostics_json.running(run),
        contextlib.redirect_stdout(output),
        contextlib.redirect_stderr(messages),
    ):
        status = _run(handler, rest)
    try:
        real.write(run.document(status, output.getvalue(), messages.getvalue()))
        real.write("\n")
        real.flush()
    except BrokenPipeError:
        return _stdout_closed()
    return status


def _run(handler: Callable[[Sequence[str]], int], rest: Sequence[str]) -> int:
    """The command, and its exit status however it ends (docs/cli.md)."""
    try:
        with interrupts.as_exceptions():
            try:
                status = handler(rest)
            except SystemExit as exc:  # argparse's --help, --version, usage
                status = exc.code if isinstance(exc.code, int) else EXIT_INVALID
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return status
    except BrokenPipeError:
        return _stdout_closed()
    except interrupts.Interrupted as exc:
        print(f"gen-ops: interrupted by {exc.name}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("gen-ops: interrupted by SIGINT", file=sys.stderr)
        return 130
    except OSError as exc:  # the system refused a file: not a bug in gen-ops
        where = exc.filename if exc.filename is not None else "a file"
        print(f"gen-ops: {where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_IO
    except Exception as exc:  # never a traceback for the user
        if os.environ.get("GEN_OPS_DEBUG"):
            traceback.print_exc()
        print(
            f"gen-ops: internal error: {type(exc).__name__}: {exc} "
            "(please report it; GEN_OPS_DEBUG=1 shows the trace)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
