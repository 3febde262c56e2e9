"""``gen-ops compat``: check the specs against the releases of a history
registry for breaking changes (``history.compat``; docs/releases.md)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from gen_ops.base.diagnostics import Sink
from gen_ops.commands import history_options as history
from gen_ops.commands.base import Command, Exit
from gen_ops.history import compat, registry, window

NAME = "compat"
SUMMARY = "check the specs against the registry's releases for breaking changes"


def parser() -> argparse.ArgumentParser:
    parser = history.parser(
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
        type=history.days,
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


def run(argv: Sequence[str]) -> int:
    the_parser = parser()
    args = the_parser.parse_args(argv)
    if args.against is not None and args.release_version is not None:
        the_parser.error("--against and --release-version exclude each other")
    started = time.perf_counter()
    sink = Sink()
    ops = history.specs(args, sink, "compat")
    if ops is None:
        return Exit.INVALID
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
        history.shown(sink, args)
        print("gen-ops compat: nothing was compared", file=sys.stderr)
        return Exit.INVALID
    allowed = frozenset(n.strip() for n in args.allow_removed.split(",") if n.strip())
    report = compat.check(index, releases, ops, sink, allowed)
    compat.emit(report, sink)
    history.shown(sink, args)
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
    return Exit.FOUND if broken else Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, history.paused(run), json=True)
