"""``gen-ops validate``: check the specs and report every problem; write
nothing (docs/cli.md)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from gen_ops.commands import report
from gen_ops.commands.base import Command, Exit, Parser, quiet_option, say, spec_options

NAME = "validate"
SUMMARY = "check specs and report every problem; write nothing"


def parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="gen-ops validate",
        description="Check op specs and report every problem; write nothing.",
    )
    spec_options(parser)
    quiet_option(parser)
    return parser


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    from pathlib import Path

    from gen_ops import pipeline
    from gen_ops.base.diagnostics import Sink
    from gen_ops.render_options import excluded_ops

    sink = Sink()
    roots = args.specs or [Path("specs")]
    loaded = pipeline.load(roots, excluded_ops(args.exclude_ops), sink)
    report.note_unknown_excluded(loaded.unknown_excluded)
    files = len(loaded.files)
    report.report(sink, args.quiet, files, args.format, args.max_errors)
    if sink.has_errors:
        return Exit.INVALID
    say(args, f"gen-ops: {len(loaded.ops)} op(s) in {files} spec file(s) are valid")
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run, json=True)
