"""``gen-ops schema``: print the JSON Schema of op specs (docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gen_ops.commands.base import Command, Exit, Parser

NAME = "schema"
SUMMARY = "print the JSON Schema of op specs"


def parser() -> argparse.ArgumentParser:
    return Parser(
        prog="gen-ops schema",
        description="Print the JSON Schema of op specs (for editors and CI).",
    )


def run(argv: Sequence[str]) -> int:
    parser().parse_args(argv)
    from gen_ops.base.resources import schema_text

    sys.stdout.write(schema_text())
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run)
