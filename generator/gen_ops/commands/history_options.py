"""What ``gen-ops release``, ``compat`` and ``changelog`` share (docs/cli.md,
docs/releases.md): their option types, their parser, the specs they read
and how they show diagnostics.

Note [History commands and the collector]: each runs with the cycle
collector paused throughout (``paused``), not only while it loads and
compares: what those make lives on until the command returns, and a
collector running again meanwhile would walk all of it (Note [Registries
and the cycle collector]); by the time it runs again, all of it is freed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops.base.charset import invisible
from gen_ops.commands import report
from gen_ops.commands.base import Parser, path, quiet_option, spec_options
from gen_ops.history import dates
from gen_ops.history.dates import ReleaseDate

if TYPE_CHECKING:
    from gen_ops.base.diagnostics import Sink
    from gen_ops.spec.model import OpSpec


def paused(run: Callable[[Sequence[str]], int]) -> Callable[[Sequence[str]], int]:
    """``run`` with the cycle collector paused throughout (Note [History
    commands and the collector])."""

    def paused_run(argv: Sequence[str]) -> int:
        from gen_ops.base.collector import collector_paused

        with collector_paused():
            return run(argv)

    return paused_run


def version(text: str) -> str:
    """A release version: the spec's version pattern, so that a spec's
    ``breaking:`` can name it."""
    from gen_ops.spec.schema_check import pattern

    if re.fullmatch(pattern("$defs", "version"), text) is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a version: a letter or digit, then letters, digits "
            "and . + _ - (e.g. 1.2.0)"
        )
    return text


def date(text: str) -> ReleaseDate:
    why = dates.problem(text)
    if why is not None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date GE reads: {why} (YYYY-MM-DD, year 1900 to "
            "9999, month 1 to 12, day 1 to 31)"
        )
    return ReleaseDate(text)


def branch(text: str) -> str:
    if not text or invisible(text) is not None:
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be a branch name: it is empty or holds an invisible "
            "character"
        )
    return text


def days(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of days (0 or more)"
        )
    return int(text)


def parser(name: str, description: str, statuses: str) -> argparse.ArgumentParser:
    parser = Parser(
        prog=f"gen-ops {name}",
        description=description,
        epilog=f"Exit status: {statuses}. See docs/releases.md.",
    )
    spec_options(parser)
    parser.add_argument(
        "--registry",
        metavar="DIR",
        type=path,
        required=True,
        help="the history registry: DIR/index.json, DIR/registry/<version>/",
    )
    parser.add_argument(
        "--module", metavar="NAME", help="only the specs of this module"
    )
    quiet_option(parser)
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="load every spec, not the models the spec cache kept of unchanged "
        "ones ($GEN_OPS_CACHE_DIR; docs/performance.md)",
    )
    return parser


def shown(sink: Sink, args: argparse.Namespace) -> None:
    """The diagnostics as ``--format`` and ``--max-errors`` say (notes left
    out under ``-q``)."""
    report.report_findings(sink, args.quiet, args.format, args.max_errors)


def specs(args: argparse.Namespace, sink: Sink, command: str) -> list[OpSpec] | None:
    """The current specs (of ``--module``), or None when they cannot be
    used (the diagnostics are printed)."""
    from gen_ops import pipeline
    from gen_ops.render_options import excluded_ops

    roots = args.specs or [Path("specs")]
    loaded = pipeline.load(
        roots, excluded_ops(args.exclude_ops), sink, cached=not args.no_cache
    )
    report.note_unknown_excluded(loaded.unknown_excluded)
    ops = loaded.ops
    if sink.has_errors:
        report.report(sink, args.quiet, len(loaded.files), args.format, args.max_errors)
        print(f"gen-ops {command}: nothing was done", file=sys.stderr)
        return None
    if args.module is not None:
        ops = [op for op in ops if op.module == args.module]
        if not ops:
            print(
                f"gen-ops {command}: no spec'd op is in module {args.module}",
                file=sys.stderr,
            )
            return None
    return ops
