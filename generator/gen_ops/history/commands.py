"""``gen-ops release``, ``gen-ops compat`` and ``gen-ops changelog``
(docs/cli.md).

Exit status: 0 done (compat: no break that the specs do not mark
intended); 1 (compat) a change breaks callers of a release and no mark
covers it; 2 invalid specs, a wrong command line, a registry whose index
cannot be read (H101), a release it does not list (H109) or one it lists
already (H201); 3 (release) a file could not be written, and the registry
is as it was.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gen_ops import cli
from gen_ops.base.charset import invisible
from gen_ops.base.diagnostics import Severity, Sink
from gen_ops.emit import locking, transaction
from gen_ops.history import changelog, compat, dates, recording, registry, window
from gen_ops.history.dates import ReleaseDate
from gen_ops.spec.discovery import display
from gen_ops.spec.model import OpSpec
from gen_ops.spec.schema_check import pattern


def _version(text: str) -> str:
    """A release version: the spec's version pattern, so that a spec's
    ``breaking:`` can name it."""
    if re.fullmatch(pattern("$defs", "version"), text) is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a version: a letter or digit, then letters, digits "
            "and . + _ - (e.g. 1.2.0)"
        )
    return text


def _date(text: str) -> ReleaseDate:
    why = dates.problem(text)
    if why is not None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date GE reads: {why} (YYYY-MM-DD, year 1900 to "
            "9999, month 1 to 12, day 1 to 31)"
        )
    return ReleaseDate(text)


def _branch(text: str) -> str:
    if not text or invisible(text) is not None:
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be a branch name: it is empty or holds an invisible "
            "character"
        )
    return text


def _days(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of days (0 or more)"
        )
    return int(text)


def _parser(name: str, description: str, statuses: str) -> argparse.ArgumentParser:
    parser = cli._Parser(
        prog=f"gen-ops {name}",
        description=description,
        epilog=f"Exit status: {statuses}. See docs/releases.md.",
    )
    cli._spec_options(parser)
    parser.add_argument(
        "--registry",
        metavar="DIR",
        type=cli._path,
        required=True,
        help="the history registry: DIR/index.json, DIR/registry/<version>/",
    )
    parser.add_argument(
        "--module", metavar="NAME", help="only the specs of this module"
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="load every spec, not the models the spec cache kept of unchanged "
        "ones ($GEN_OPS_CACHE_DIR; docs/performance.md)",
    )
    return parser


def _release_parser() -> argparse.ArgumentParser:
    parser = _parser(
        "release",
        "Record the current specs as a release of a history registry, in GE's "
        "layout.",
        "0 recorded, 2 invalid specs, usage, an unreadable index (H101) or a "
        "version recorded already (H201), 3 cannot write (the registry is as it "
        "was): a file cannot be written, another run holds the registry past "
        "--lock-timeout, or a journal gen-ops cannot prove it wrote",
    )
    cli.lock_timeout_option(parser)
    parser.add_argument(
        "version",
        metavar="VERSION",
        type=_version,
        help="the release, e.g. 1.2.0 (its directory under DIR/registry)",
    )
    parser.add_argument(
        "--date", type=_date, help="the release date, YYYY-MM-DD (default: today)"
    )
    parser.add_argument("--branch", metavar="NAME", type=_branch, help="branch_name")
    return parser


def _compat_parser() -> argparse.ArgumentParser:
    parser = _parser(
        "compat",
        "Compare the current specs with the releases of the window and report "
        "every change of every op.",
        "0 no break, or every break marked intended; 1 a break no spec marks; 2 "
        "invalid specs, usage, an unreadable index (H101) or a release it lacks "
        "(H109)",
    )
    parser.add_argument(
        "--against", metavar="VERSION", help="compare with this release only"
    )
    parser.add_argument(
        "--release-version",
        metavar="VERSION",
        help="anchor the window at this release's date (default: today)",
    )
    parser.add_argument(
        "--window-days",
        metavar="N",
        type=_days,
        default=window.DEFAULT_DAYS,
        help=f"the window's length in days (default: {window.DEFAULT_DAYS})",
    )
    parser.add_argument(
        "--allow-removed",
        metavar="OPS",
        default="",
        help="comma-separated op types whose removal is intended",
    )
    return parser


def _changelog_parser() -> argparse.ArgumentParser:
    parser = _parser(
        "changelog",
        "Print what each release changed, and what the current specs change, "
        "in Markdown.",
        "0 printed, 2 invalid specs, usage or an unreadable index (H101)",
    )
    return parser


def _print(sink: Sink, args: argparse.Namespace) -> None:
    """The diagnostics as ``--format`` and ``--max-errors`` say (notes left
    out under ``-q``)."""
    shown = [
        d for d in sink.sorted() if not (args.quiet and d.severity is Severity.NOTE)
    ]
    errors = sum(1 for d in shown if d.severity is Severity.ERROR)
    warnings = sum(1 for d in shown if d.severity is Severity.WARNING)
    cli._show(shown, errors, warnings, 0, args.format, args.max_errors)


def _specs(args: argparse.Namespace, sink: Sink, command: str) -> list[OpSpec] | None:
    """The current specs (of ``--module``), or None when they cannot be
    used (the diagnostics are printed)."""
    files, ops = cli._load(args, sink, cached=not args.no_cache)
    if sink.has_errors:
        cli._report(sink, args.quiet, len(files), args.format, args.max_errors)
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


def cmd_release(argv: Sequence[str]) -> int:
    args = _release_parser().parse_args(argv)
    started = time.perf_counter()
    sink = Sink()
    ops = _specs(args, sink, "release")
    if ops is None:
        return cli.EXIT_INVALID
    root: Path = args.registry
    date = args.date or dates.today()
    try:
        done = recording.record(
            root, args.version, date, args.branch, ops, sink, args.lock_timeout
        )
    except (locking.LockTimeout, OSError) as exc:
        _print(sink, args)
        reason = (
            f"{exc}"
            if isinstance(exc, locking.LockTimeout)
            else f"cannot write {exc.filename or display(root)}: {exc.strerror or exc}"
        )
        print(f"gen-ops release: {reason}", file=sys.stderr)
        return cli.EXIT_IO
    except transaction.WriteError as exc:
        _print(sink, args)
        print(
            f"gen-ops release: {exc}"
            + ("" if exc.changed else f"; {display(root)} was not changed"),
            file=sys.stderr,
        )
        return cli.EXIT_IO
    _print(sink, args)
    if done is None:
        print(f"gen-ops release: {args.version} was not recorded", file=sys.stderr)
        return cli.EXIT_INVALID
    if done.repaired:
        print(
            f"gen-ops release: finished what an interrupted release left "
            f"({done.repaired} file(s))",
            file=sys.stderr,
        )
    if done.dropped:
        print(
            f"gen-ops release: {done.dropped} index entr(ies) GE's reader skips were "
            "left out of index.json",
            file=sys.stderr,
        )
    if not args.quiet:
        print(
            f"gen-ops release: recorded {args.version} ({date}) with {len(ops)} "
            f"op(s) in {display(root)}; the index lists {len(done.index.releases)} "
            f"release(s) ({time.perf_counter() - started:.2f} s)"
        )
    return cli.EXIT_OK


def cmd_compat(argv: Sequence[str]) -> int:
    parser = _compat_parser()
    args = parser.parse_args(argv)
    if args.against is not None and args.release_version is not None:
        parser.error("--against and --release-version exclude each other")
    started = time.perf_counter()
    sink = Sink()
    ops = _specs(args, sink, "compat")
    if ops is None:
        return cli.EXIT_INVALID
    index = registry.read(args.registry, sink)
    releases: tuple[registry.Release, ...] | None = None
    if index is not None:
        if args.against is not None:
            found = window.find(index, args.against, "--against", sink)
            releases = None if found is None else (found,)
        else:
            chosen = window.anchored(
                index, args.release_version, args.window_days, sink
            )
            releases = None if chosen is None else chosen.releases
    if index is None or releases is None:
        _print(sink, args)
        print("gen-ops compat: nothing was compared", file=sys.stderr)
        return cli.EXIT_INVALID
    allowed = frozenset(n.strip() for n in args.allow_removed.split(",") if n.strip())
    report = compat.check(index, releases, ops, sink, allowed)
    compat.emit(report, sink)
    _print(sink, args)
    return _compat_summary(args, report, len(ops), time.perf_counter() - started)


def _compat_summary(
    args: argparse.Namespace, report: compat.Report, count: int, seconds: float
) -> int:
    findings = [f for _, f in report.findings]
    broken = len(report.unintended)
    if not report.releases:
        text = "no release of the registry is in the window; nothing to compare"
    else:
        text = (
            f"{count} op(s) compared with {compat.releases_text(report.releases)}: "
            f"{broken} breaking change(s), "
            f"{sum(f.intended for f in findings)} marked intended, "
            f"{sum(f.rule.code.startswith('H4') for f in findings)} compatible or "
            "to review"
        )
    if broken or not args.quiet:
        print(f"gen-ops compat: {text} ({seconds:.2f} s)", file=sys.stderr)
    return cli.EXIT_DRIFT if broken else cli.EXIT_OK


def cmd_changelog(argv: Sequence[str]) -> int:
    args = _changelog_parser().parse_args(argv)
    sink = Sink()
    ops = _specs(args, sink, "changelog")
    if ops is None:
        return cli.EXIT_INVALID
    index = registry.read(args.registry, sink)
    if index is None:
        _print(sink, args)
        return cli.EXIT_INVALID
    log = changelog.build(index, ops, sink, display(args.registry))
    _print(sink, args)
    sys.stdout.write(changelog.markdown(log))
    return cli.EXIT_OK
