"""``gen-ops import``: REG_OP headers to specs (``importer``). See
docs/importing.md and docs/cli.md.

Exit status: 0 every declaration was imported (warnings allowed); 1 the same
with warnings under ``--strict``; 2 something could not be imported (an
error), or the command line is wrong; 3 a spec file could not be written
(nothing was: the writes are one transaction).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gen_ops.commands.base import (
    Command,
    Exit,
    Parser,
    header_options,
    lock_timeout_option,
    path,
)
from gen_ops.importer.merge import FIRST, LAST

NAME = "import"
SUMMARY = "turn REG_OP headers into specs"


def _prefer(text: str) -> str:
    if text.upper() in (FIRST, LAST):
        return text.upper()
    if not text or not Path(text).exists():
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither FIRST, LAST nor an existing header or directory"
        )
    return text


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes")
    return value


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="gen-ops import",
        description="Import REG_OP declarations from C/C++ headers as op specs, "
        "one YAML file per op.",
        epilog="Exit status: 0 all imported, 1 warnings under --strict, 2 something "
        "was not imported (or a usage error), 3 cannot write. "
        "See docs/importing.md.",
    )
    header_options(p, "the module of every imported op (default: custom)")
    p.add_argument(
        "--out",
        metavar="DIR",
        type=path,
        default=Path("specs"),
        help="where specs are written, as DIR/<module>/<op>.yaml (default: specs)",
    )
    p.add_argument(
        "--fix-dtypes",
        action="store_true",
        help="read the names of GE's DataType string table that are not "
        "enumerators (DT_FLOAT32, DT_FLOAT64, DT_BFLOAT16, float16, ...) as GE's "
        "table does; other unknown dtype names stay errors",
    )
    p.add_argument(
        "--prefer",
        metavar="FIRST|LAST|PATH",
        type=_prefer,
        action="append",
        default=[],
        help="which declaration of an op declared differently in several places "
        "to import: the first, the last, or the one in PATH (repeatable, tried "
        "in order)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace spec files that exist with other content, the team's edits "
        "since the last import included",
    )
    p.add_argument(
        "--restore-deleted",
        action="store_true",
        help="write again the specs deleted since the last import (by default "
        "they stay deleted)",
    )
    p.add_argument(
        "--adopt",
        action="store_true",
        help="keep spec files the import record does not name (specs imported "
        "before gen-ops kept a record) as edits of this import, so that later "
        "imports merge into them",
    )
    p.add_argument(
        "--strict", action="store_true", help="exit 1 when there are warnings"
    )
    p.add_argument(
        "--jobs",
        metavar="N",
        type=_jobs,
        default=_default_jobs(),
        help="processes that read headers (default: the CPUs available)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    lock_timeout_option(p)
    return p


def run(argv: Sequence[str]) -> int:
    from gen_ops.emit import locking, transaction
    from gen_ops.importer import driver

    args = parser().parse_args(list(argv))
    started = time.perf_counter()
    options = driver.Options(
        paths=tuple(args.paths),
        out=args.out,
        module=args.module,
        module_per_header=args.module_per_header,
        fix_dtypes=args.fix_dtypes,
        prefer=tuple(args.prefer),
        overwrite=args.overwrite,
        jobs=args.jobs,
        restore_deleted=args.restore_deleted,
        adopt=args.adopt,
    )
    refused = driver.refuse_out(options)
    if refused is not None:
        for diagnostic in refused.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        return Exit.INVALID
    try:
        # Note [Tree lock]: the plan reads the spec files on disk, so the
        # lock is held from before it until the commit.
        with locking.hold(options.out, "gen-ops import", args.lock_timeout):
            result = driver.plan(options)
            for diagnostic in result.diagnostics:
                print(diagnostic.format(), file=sys.stderr)
            if result.writes or result.record is not None:
                transaction.recover(options.out)
            driver.write(options, result)
    except transaction.WriteError as exc:
        print(
            f"gen-ops import: {exc}"
            + ("" if exc.changed else "; no spec file was written"),
            file=sys.stderr,
        )
        return Exit.IO
    except (locking.LockTimeout, OSError) as exc:
        reason = (
            f"{exc}"
            if isinstance(exc, locking.LockTimeout)
            else f"cannot write {exc.filename or options.out}: {exc.strerror or exc}"
        )
        print(f"gen-ops import: {reason}; no spec file was written", file=sys.stderr)
        return Exit.IO
    status = (
        Exit.INVALID
        if result.errors
        else Exit.FOUND if result.warnings and args.strict else Exit.OK
    )
    if status != Exit.OK or not args.quiet:
        summary = (
            f"gen-ops import: {result.headers} header(s)"
            + (f" ({result.failed_headers} failed)" if result.failed_headers else "")
            + f", {len(result.files)} op(s) imported"
            + (f" ({result.merged} duplicate(s) merged)" if result.merged else "")
            + (f", {result.not_imported} not imported" if result.not_imported else "")
            + f"; {len(result.writes)} file(s) written"
            + (
                f" ({result.merged_edits} merged with your edits)"
                if result.merged_edits
                else ""
            )
            + f", {len(result.files) - len(result.writes)} unchanged"
            + (
                f", {result.kept_deleted} deleted since the last import "
                "(not restored: --restore-deleted)"
                if result.kept_deleted
                else ""
            )
            + "; "
            f"{result.errors} error(s), {result.warnings} warning(s) "
            f"({time.perf_counter() - started:.2f} s)"
        )
        print(summary, file=sys.stderr if status else sys.stdout)
    return status


COMMAND = Command(NAME, SUMMARY, parser, run)
