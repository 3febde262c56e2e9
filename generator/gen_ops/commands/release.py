"""``gen-ops release``: record the current specs as a release of a history
registry (``history.recording``; docs/releases.md)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gen_ops.base.diagnostics import Sink
from gen_ops.commands import history_options as history
from gen_ops.commands.base import Command, Exit, lock_timeout_option
from gen_ops.emit import locking, transaction
from gen_ops.history import dates, recording
from gen_ops.spec.discovery import display

NAME = "release"
SUMMARY = "record the current specs as a release in a history registry"


def parser() -> argparse.ArgumentParser:
    parser = history.parser(
        "release",
        "Record the current specs as a release of a history registry, in GE's "
        "layout.",
        "0 recorded, 2 invalid specs, usage, an unreadable index (H101) or a "
        "version recorded already (H201), 3 cannot write (the registry is as it "
        "was): a file cannot be written, another run holds the registry past "
        "--lock-timeout, or a journal gen-ops cannot prove it wrote",
    )
    lock_timeout_option(parser)
    parser.add_argument(
        "version",
        metavar="VERSION",
        type=history.version,
        help="the release, e.g. 1.2.0 (its directory under DIR/registry)",
    )
    parser.add_argument(
        "--date",
        type=history.date,
        help="the release date, YYYY-MM-DD (default: today)",
    )
    parser.add_argument(
        "--branch", metavar="NAME", type=history.branch, help="branch_name"
    )
    return parser


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    started = time.perf_counter()
    sink = Sink()
    ops = history.specs(args, sink, "release")
    if ops is None:
        return Exit.INVALID
    root: Path = args.registry
    date = args.date or dates.today()
    try:
        done = recording.record(
            root, args.version, date, args.branch, ops, sink, args.lock_timeout
        )
    except (locking.LockTimeout, OSError) as exc:
        history.shown(sink, args)
        reason = (
            f"{exc}"
            if isinstance(exc, locking.LockTimeout)
            else f"cannot write {exc.filename or display(root)}: {exc.strerror or exc}"
        )
        print(f"gen-ops release: {reason}", file=sys.stderr)
        return Exit.IO
    except transaction.WriteError as exc:
        history.shown(sink, args)
        print(
            f"gen-ops release: {exc}"
            + ("" if exc.changed else f"; {display(root)} was not changed"),
            file=sys.stderr,
        )
        return Exit.IO
    history.shown(sink, args)
    if done is None:
        print(f"gen-ops release: {args.version} was not recorded", file=sys.stderr)
        return Exit.INVALID
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
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, history.paused(run), json=True)
