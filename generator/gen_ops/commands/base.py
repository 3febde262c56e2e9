"""What every command shares: the exit statuses, the parser, the option
types and option groups, and what a command is (docs/cli.md).

Note [Command layer]: each command of ``gen-ops`` is one module of
``gen_ops.commands`` exporting ``COMMAND``, a ``Command``: its name, its
one-line summary, its parser builder, its run function and whether it
takes ``--format json``. ``registry`` is the one table of which commands
exist (``cli.main``, ``gen-ops --help`` and ``gen-ops completion`` read
it). A command parses its arguments, calls the domain code (``pipeline``,
``importer``, ``history``, ``package_build``) and turns what it returns
into text and an exit status; the domain packages import no command
module, and a command module imports no other command module but the
shared ones (this one, ``report``, ``registry``, ``history_options``), so
the layer has no import cycle (tests/generator/test_command_layer.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path


class Exit(IntEnum):
    """Every exit status of gen-ops (docs/cli.md)."""

    OK = 0
    # A check found something: --check drift, a compat break, a roundtrip
    # difference, import warnings under --strict.
    FOUND = 1
    INVALID = 2  # invalid specs or usage (import, roundtrip: not imported)
    IO = 3  # an output could not be written, or the system refused a path
    INTERNAL = 4  # a bug in gen-ops, reported in one line
    SIGINT = 130  # 128 + the signal's number (SIGHUP 129, SIGTERM 143)
    PIPE = 141  # 128 + SIGPIPE: standard output was closed early


@dataclass(frozen=True)
class Command:
    """One command of ``gen-ops`` (Note [Command layer])."""

    name: str
    summary: str  # one line, for --help and shell completion
    parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[Sequence[str]], int]
    json: bool = False  # takes --format json (Note [JSON output])


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits with ``Exit.INVALID``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(Exit.INVALID)


DEFAULT_MAX_ERRORS = 50


def path_text(text: str) -> str:
    """A path argument: never empty (an empty path would mean the current
    directory, where gen-ops would then write)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; name a file or directory")
    return text


def path(text: str) -> Path:
    return Path(path_text(text))


def count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (0 or more)")
    return value


def library_module(text: str) -> str:
    """``--module`` of import and roundtrip: a module name an op library
    may have."""
    from ge_ir.names import is_identifier, library_module_refusal

    if not is_identifier(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be a module name: a letter, then letters, digits and _"
        )
    refusal = library_module_refusal(text)
    if refusal is not None:
        raise argparse.ArgumentTypeError(f"{refusal}; choose another module name")
    return text


def header_options(parser: argparse.ArgumentParser, module_help: str) -> None:
    """The REG_OP headers to read and the modules of their ops, as ``gen-ops
    import`` and ``gen-ops roundtrip`` take them."""
    parser.add_argument(
        "paths",
        metavar="HEADER_OR_DIR",
        nargs="+",
        type=path,
        help="a header, or a directory searched for *.h, *.hh, *.hpp, *.hxx",
    )
    modules = parser.add_mutually_exclusive_group()
    modules.add_argument(
        "--module", type=library_module, default="custom", help=module_help
    )
    modules.add_argument(
        "--module-per-header",
        action="store_true",
        help="each op's module is its header's stem (nn_norm.h: nn_norm)",
    )


def spec_options(parser: argparse.ArgumentParser) -> None:
    """``--specs``, ``--exclude-ops`` and the diagnostic options."""
    parser.add_argument(
        "--specs",
        metavar="PATH",
        action="append",
        type=path,
        help="a spec file or a directory searched for *.yaml and *.yml (repeatable; "
        "default: specs)",
    )
    parser.add_argument(
        "--exclude-ops",
        metavar="OPS",
        default="",
        help="comma-separated op types to leave out",
    )
    diagnostic_options(parser)


def diagnostic_options(parser: argparse.ArgumentParser) -> None:
    """``--format`` and ``--max-errors`` (``report.show`` reads them)."""
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="diagnostics as text lines, or as one JSON document (for editors "
        "and CI); both on standard error",
    )
    parser.add_argument(
        "--max-errors",
        metavar="N",
        type=count,
        default=DEFAULT_MAX_ERRORS,
        help=f"show at most N diagnostics as text, then how many more there are "
        f"(default {DEFAULT_MAX_ERRORS}; 0: all)",
    )


def lock_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--lock-timeout`` of the commands that write a tree (Note [Tree
    lock] in ``locking``)."""
    from gen_ops.emit.locking import DEFAULT_TIMEOUT, timeout_option

    parser.add_argument(
        "--lock-timeout",
        metavar="SECONDS",
        type=timeout_option,
        default=DEFAULT_TIMEOUT,
        help="how long to wait for another gen-ops run writing the same tree "
        f"(default: {DEFAULT_TIMEOUT:g})",
    )


def quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems"
    )


def say(args: argparse.Namespace, text: str) -> None:
    """``text`` on standard output, unless ``-q``."""
    if not args.quiet:
        print(text)
