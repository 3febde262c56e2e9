"""The one diagnostics printer of the commands: ``--format`` and
``--max-errors`` (docs/cli.md), and the notes a command adds to them."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from gen_ops.base import diagnostics_json
from gen_ops.base.diagnostics import Diagnostic, Severity, Sink
from gen_ops.commands.base import DEFAULT_MAX_ERRORS


def show(
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


def report(
    sink: Sink,
    quiet: bool,
    count: int,
    fmt: str = "text",
    max_errors: int = DEFAULT_MAX_ERRORS,
) -> None:
    """Every diagnostic of ``sink`` (``count`` spec files were read), then,
    as text, how many errors and warnings there are."""
    errors = sum(1 for d in sink.items if d.severity is Severity.ERROR)
    warnings = len(sink.items) - errors
    show(sink.sorted(), errors, warnings, count, fmt, max_errors)
    if fmt != "json" and (errors or (warnings and not quiet)):
        print(
            f"gen-ops: {errors} error(s), {warnings} warning(s) in {count} spec file(s)",
            file=sys.stderr,
        )


def report_findings(sink: Sink, quiet: bool, fmt: str, max_errors: int) -> None:
    """The diagnostics of a history command (notes left out under ``-q``),
    with no summary line."""
    shown = [d for d in sink.sorted() if not (quiet and d.severity is Severity.NOTE)]
    errors = sum(1 for d in shown if d.severity is Severity.ERROR)
    warnings = sum(1 for d in shown if d.severity is Severity.WARNING)
    show(shown, errors, warnings, 0, fmt, max_errors)


def note_unknown_excluded(unknown: Iterable[str]) -> None:
    """``--exclude-ops`` named an op no spec declares."""
    names = sorted(unknown)
    if names:
        print(
            "gen-ops: note: --exclude-ops names no spec'd op: " + ", ".join(names),
            file=sys.stderr,
        )
