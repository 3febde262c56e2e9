"""``gen-ops new``: write a starter spec for a new op (docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gen_ops.commands import report
from gen_ops.commands.base import Command, Exit, Parser, path

NAME = "new"
SUMMARY = "write a starter spec for a new op"


def parser() -> argparse.ArgumentParser:
    parser = Parser(
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
        type=path,
        default=Path("specs"),
        help="directory to write the spec in (default: specs)",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    from ge_ir.names import is_identifier, is_op_type

    # The shapes first (the rules the schema's patterns spell, matched
    # whole), so that no name can change the YAML it is written into.
    if not is_op_type(args.op):
        print(
            f"gen-ops new: {args.op!r} is not an op type: a letter after at most "
            "one _, then letters, digits and _ (e.g. ScaleCustom)",
            file=sys.stderr,
        )
        return Exit.INVALID
    if not is_identifier(args.module):
        print(
            f"gen-ops new: {args.module!r} cannot be a module name: a letter, "
            "then letters, digits and _",
            file=sys.stderr,
        )
        return Exit.INVALID
    from gen_ops import pipeline, scaffold
    from gen_ops.base.diagnostics import Sink
    from gen_ops.emit import transaction

    spec, text = scaffold.starter_spec(args.op, args.module, args.specs)
    try:
        blocked = args.specs.exists() and not args.specs.is_dir()
        exists = not blocked and spec.exists()
    except OSError as exc:
        print(f"gen-ops new: cannot write {spec}: {exc.strerror}", file=sys.stderr)
        return Exit.IO
    if blocked:
        print(
            f"gen-ops new: cannot write {spec}: {args.specs} is not a directory",
            file=sys.stderr,
        )
        return Exit.IO
    if exists:
        print(f"gen-ops new: {spec} exists; not overwritten", file=sys.stderr)
        return Exit.INVALID
    # Then every check validate runs, so that new never writes a spec that
    # validate refuses (a keyword module, a reserved op type, ...).
    sink = Sink()
    pipeline.check_text(text, str(spec), sink)
    if sink.items:
        report.report(sink, False, 1)
    if sink.has_errors:
        print(f"gen-ops new: {spec} was not written", file=sys.stderr)
        return Exit.INVALID
    try:
        args.specs.mkdir(parents=True, exist_ok=True)
        transaction.write_atomic(spec, text)
        schema = scaffold.schema_copy(args.specs)
    except OSError as exc:
        print(
            f"gen-ops new: cannot write {spec}: {exc.strerror or exc}", file=sys.stderr
        )
        return Exit.IO
    if schema is not None:
        print(f"gen-ops: wrote {schema} (the JSON Schema its first line names)")
    print(f"gen-ops: wrote {spec}; edit it, then run gen-ops validate")
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run)
