"""``gen-ops test``: every op with a ``reference`` checked against it on
cases drawn from its ``samples`` (``gen_ops.optest``; docs/opcheck.md)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from gen_ops.commands.base import Command

NAME = "test"
SUMMARY = "check ops against their references on drawn cases (docs/opcheck.md)"


def parser() -> argparse.ArgumentParser:
    from gen_ops.optest import parser as optest_parser

    return optest_parser()


def run(argv: Sequence[str]) -> int:
    from gen_ops.optest import main

    return main(list(argv))


COMMAND = Command(NAME, SUMMARY, parser, run)
