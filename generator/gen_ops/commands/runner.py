"""Run a command line: choose the command (``registry``), run it, and end
with its exit status however it ends (docs/cli.md).

Exit status: 0 success; 1 ``--check`` found drift (and the other checks'
findings); 2 invalid specs or usage; 3 an output could not be written (or
the system refused a path); 4 an internal error; 128 + N when signal N
(SIGHUP, SIGINT, SIGTERM) stopped it: 129, 130, 143; 141 when standard
output was closed early. No traceback ever reaches the user: an
unexpected error is reported in one line (set GEN_OPS_DEBUG=1 for the
trace).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from gen_ops.base import diagnostics_json, interrupts
from gen_ops.commands import registry
from gen_ops.commands.base import Exit


def main(argv: Sequence[str]) -> int:
    """``gen-ops ARGV``; the exit status."""
    argv = list(argv)
    _escape_unencodable()
    named = bool(argv) and argv[0] in registry.NAMES
    command = registry.command(argv[0] if named else registry.DEFAULT)
    rest = argv[1:] if named else argv
    if command.json and diagnostics_json.requested(rest):
        return _main_json(command.name, command.run, rest)
    return _run(command.run, rest)


def _escape_unencodable() -> None:
    """A terminal that cannot show a character gets an escape, not a crash
    (a diff or a diagnostic may quote any text of a spec)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _stdout_closed() -> int:
    """The reader of standard output went away (``gen-ops schema | head``):
    stop quietly, and keep Python from reporting the unflushed rest."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing left to flush
    return Exit.PIPE


def _main_json(
    command: str, handler: Callable[[Sequence[str]], int], rest: Sequence[str]
) -> int:
    """Run a ``--format json`` command and print its one document (Note
    [JSON output]), whatever the command printed or however it ended."""
    real = sys.stdout
    output, messages = io.StringIO(), io.StringIO()
    run = diagnostics_json.JsonRun(command)
    with (
        diagnostics_json.running(run),
        contextlib.redirect_stdout(output),
        contextlib.redirect_stderr(messages),
    ):
        status = _run(handler, rest)
    try:
        real.write(run.document(status, output.getvalue(), messages.getvalue()))
        real.write("\n")
        real.flush()
    except BrokenPipeError:
        return _stdout_closed()
    return status


def _run(handler: Callable[[Sequence[str]], int], rest: Sequence[str]) -> int:
    """The command, and its exit status however it ends (docs/cli.md)."""
    try:
        with interrupts.as_exceptions():
            try:
                status = int(handler(rest))
            except SystemExit as exc:  # argparse's --help, --version, usage
                status = exc.code if isinstance(exc.code, int) else Exit.INVALID
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return int(status)
    except BrokenPipeError:
        return _stdout_closed()
    except interrupts.Interrupted as exc:
        print(f"gen-ops: interrupted by {exc.name}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print("gen-ops: interrupted by SIGINT", file=sys.stderr)
        return Exit.SIGINT
    except OSError as exc:  # the system refused a file: not a bug in gen-ops
        where = exc.filename if exc.filename is not None else "a file"
        print(f"gen-ops: {where}: {exc.strerror or exc}", file=sys.stderr)
        return Exit.IO
    except Exception as exc:  # never a traceback for the user
        if os.environ.get("GEN_OPS_DEBUG"):
            traceback.print_exc()
        print(
            f"gen-ops: internal error: {type(exc).__name__}: {exc} "
            "(please report it; GEN_OPS_DEBUG=1 shows the trace)",
            file=sys.stderr,
        )
        return Exit.INTERNAL
