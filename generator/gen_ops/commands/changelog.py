"""``gen-ops changelog``: what each release changed, in Markdown
(``history.changelog``; docs/releases.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gen_ops.base.diagnostics import Sink
from gen_ops.commands import history_options as history
from gen_ops.commands.base import Command, Exit
from gen_ops.history import changelog, registry
from gen_ops.spec.discovery import display

NAME = "changelog"
SUMMARY = "print what each release changed, in Markdown"


def parser() -> argparse.ArgumentParser:
    parser = history.parser(
        "changelog",
        "Print what each release changed, and what the current specs change, "
        "in Markdown.",
        "0 printed, 2 invalid specs, usage or an unreadable index (H101)",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    sink = Sink()
    ops = history.specs(args, sink, "changelog")
    if ops is None:
        return Exit.INVALID
    index = registry.read(args.registry, sink)
    if index is None:
        history.shown(sink, args)
        return Exit.INVALID
    log = changelog.build(index, ops, sink, display(args.registry))
    history.shown(sink, args)
    sys.stdout.write(changelog.markdown(log))
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, history.paused(run), json=True)
