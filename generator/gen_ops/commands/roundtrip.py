"""``gen-ops roundtrip``: headers through gen-ops and back (``importer.roundtrip``). See docs/importing.md section 14
and docs/cli.md.

Exit status: 0 every declaration came back the same; 1 a declaration gen-ops
cannot render or renders with another meaning (R-codes); 2 something could
not be imported (an I-code error), or the command line is wrong; 3 a
rendered header could not be written.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gen_ops.commands.base import Command, Exit, Parser, header_options, path

NAME = "roundtrip"
SUMMARY = "check that headers mean the same after gen-ops renders them"


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="gen-ops roundtrip",
        description="Import REG_OP headers, render each declaration with gen-ops' "
        "C++ renderer, import the rendered header back, and report every "
        "difference in meaning, at both places.",
        epilog="Exit status: 0 all the same, 1 a declaration differs or cannot be "
        "rendered, 2 something was not imported (or a usage error), 3 cannot "
        "write a rendered header. See docs/importing.md.",
    )
    header_options(p, "the module of every op (default: custom)")
    p.add_argument(
        "--fix-dtypes",
        action="store_true",
        help="read the names of GE's DataType string table that are not "
        "enumerators (DT_FLOAT32, DT_FLOAT64, float16, ...) as GE's table does",
    )
    p.add_argument(
        "--rendered",
        metavar="DIR",
        type=path,
        help="write the rendered headers here, as DIR/include/<module>/<op>.h "
        "(default: a temporary directory, kept only when a declaration differs)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    return p


def _done(status: int, temporary: Path | None) -> int:
    if temporary is not None:
        shutil.rmtree(temporary, ignore_errors=True)
    return status


def run(argv: Sequence[str]) -> int:
    from gen_ops.importer import roundtrip

    args = parser().parse_args(list(argv))
    started = time.perf_counter()
    temporary = args.rendered is None
    rendered = (
        Path(tempfile.mkdtemp(prefix="gen-ops-roundtrip-"))
        if temporary
        else args.rendered
    )
    options = roundtrip.Options(
        paths=tuple(args.paths),
        rendered=rendered,
        module=args.module,
        module_per_header=args.module_per_header,
        fix_dtypes=args.fix_dtypes,
    )
    try:
        report = roundtrip.run(options)
    except roundtrip.RenderedWriteError as exc:
        print(f"gen-ops roundtrip: {exc}", file=sys.stderr)
        return _done(Exit.IO, rendered if temporary else None)
    except BaseException:  # a signal or a bug: no temporary directory is left
        _done(Exit.IO, rendered if temporary else None)
        raise
    for diagnostic in report.diagnostics:
        print(diagnostic.format(), file=sys.stderr)
    status = (
        Exit.INVALID
        if report.import_errors
        else Exit.FOUND if report.differ or report.unrendered else Exit.OK
    )
    kept = not temporary or report.differ > 0
    if not kept:
        _done(status, rendered)
    if status != Exit.OK or not args.quiet:
        summary = (
            f"gen-ops roundtrip: {report.headers} header(s)"
            + (f" ({report.failed_headers} failed)" if report.failed_headers else "")
            + f", {report.checked} op(s): {report.same} the same, "
            f"{report.differ} differ, {report.unrendered} cannot be rendered"
            + (f", {report.not_imported} not imported" if report.not_imported else "")
            + f"; {report.errors} error(s), {report.warnings} warning(s)"
            + (f"; rendered headers in {rendered}" if kept else "")
            + f" ({time.perf_counter() - started:.2f} s)"
        )
        print(summary, file=sys.stderr if status else sys.stdout)
    return status


COMMAND = Command(NAME, SUMMARY, parser, run)
