"""``gen-ops`` / ``gen-ops render``: validate the specs and render every
output (docs/cli.md). The run is ``render_run.render``; this module reads
the command line into ``RenderOptions`` and reports the result."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops import __version__
from gen_ops.commands import registry, report
from gen_ops.commands.base import (
    Command,
    Exit,
    Parser,
    lock_timeout_option,
    path,
    path_text,
    quiet_option,
    say,
    spec_options,
)
from gen_ops.emit.outputs import Target

if TYPE_CHECKING:
    from gen_ops import render_run

NAME = "render"
SUMMARY = "(the default) validate specs/ and render every output into --out"
DESCRIPTION = (
    "Validate op specs and render the ge.es Python builders, REG_OP\n"
    "headers, implementation skeletons and reference docs.\n\n"
    "commands (gen-ops COMMAND --help for each):\n{commands}\n\n"
    "The options below are render's."
)


class _ProgramParser(Parser):
    """The render parser is also the program's: its help lists every
    command, read from the registry only when help is shown."""

    def format_help(self) -> str:
        commands = "\n".join(f"  {c.name:<11} {c.summary}" for c in registry.commands())
        self.description = DESCRIPTION.format(commands=commands)
        return super().format_help()


def targets(text: str) -> frozenset[Target]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    known = {t.value: t for t in Target}
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown target(s) {', '.join(bad) or '(none)'}; choose from "
            + ", ".join(known)
        )
    return frozenset(known[n] for n in names)


def _guard_prefix(text: str) -> str:
    from gen_ops.lowering.lower_es import GUARD_PREFIX_SHAPE

    if not GUARD_PREFIX_SHAPE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a header guard prefix has only letters, digits and _"
        )
    return text


def parser() -> argparse.ArgumentParser:
    parser = _ProgramParser(
        prog="gen-ops",
        usage="gen-ops [COMMAND] [options]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Exit status: 0 ok, 1 drift (--check), 2 invalid specs or usage, 3\n"
        "cannot write, 4 internal error, 129/130/143 stopped by SIGHUP/SIGINT/\n"
        "SIGTERM, 141 standard output closed. docs/cli.md has the details.",
    )
    spec_options(parser)
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=path,
        default=Path("generated"),
        help="output directory (default: generated)",
    )
    parser.add_argument(
        "--only",
        metavar="TARGETS",
        type=targets,
        default=frozenset(Target),
        help="comma-separated subset of python,cpp,impl,docs,es (default: all)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="render in memory, print a unified diff of any drift from --out, "
        "exit 1 on drift; writes nothing",
    )
    parser.add_argument(
        "--scaffold-dir",
        metavar="DIR",
        type=path_text,
        default="ops",
        help="where author modules are scaffolded for ops whose spec names no "
        "impl.author (default: ops)",
    )
    parser.add_argument(
        "--no-scaffold", action="store_true", help="do not scaffold author modules"
    )
    parser.add_argument(
        "--registry",
        metavar="DIR",
        type=path,
        help="a history registry (gen-ops release): builders keep the call shapes "
        "of its releases (docs/releases.md)",
    )
    parser.add_argument(
        "--h-guard-prefix",
        metavar="PREFIX",
        type=_guard_prefix,
        default="",
        help="inserted into the header guards of the C/C++ ES API (gen_esb's "
        "--h_guard_prefix; letters, digits and _)",
    )
    lock_timeout_option(parser)
    quiet_option(parser)
    parser.add_argument("--version", action="version", version=f"gen-ops {__version__}")
    return parser


def run(argv: Sequence[str]) -> int:
    started = time.perf_counter()
    the_parser = parser()
    args = the_parser.parse_args(argv)
    from gen_ops.base.untrusted import loops

    for option, where in (("--out", args.out), ("--registry", args.registry)):
        if where is not None and loops(where):
            the_parser.error(
                f"{option} {where}: it is a symbolic link that loops (or leads to "
                "one); remove the loop, or name a directory"
            )
    from gen_ops import render_run
    from gen_ops.render_options import RenderOptions

    options = RenderOptions.from_args(args)  # Note [Render options]

    def checked(checks: render_run.Checks) -> None:
        report.note_unknown_excluded(checks.unknown_excluded)
        report.report(
            checks.sink, args.quiet, checks.spec_files, args.format, args.max_errors
        )

    result = render_run.render(options, checked)
    return _reported(args, options.out, result, started)


def _reported(
    args: argparse.Namespace,
    out: Path,
    result: render_run.RenderResult,
    started: float,
) -> int:
    """What the render did, in words; its exit status."""
    from gen_ops.render_run import Outcome
    from gen_ops.spec import discovery

    outcome, plan = result.outcome, result.plan
    if outcome is Outcome.UP_TO_DATE:
        say(
            args,
            f"gen-ops: up to date ({result.checks.spec_files} spec files, "
            f"{time.perf_counter() - started:.2f} s)",
        )
        return Exit.OK
    if outcome is Outcome.INVALID:
        print("gen-ops: nothing was generated", file=sys.stderr)
        return Exit.INVALID
    if outcome is Outcome.NOT_WRITTEN:
        print(f"gen-ops: {result.problem}", file=sys.stderr)
        return Exit.IO
    assert plan is not None
    if outcome is Outcome.CURRENT:
        say(args, f"gen-ops: {out} is up to date ({result.rendered} files)")
        return Exit.OK
    if outcome is Outcome.DRIFT:
        if result.diff:
            sys.stdout.write(result.diff)
        for line in result.partial:
            print(f"gen-ops: {line}", file=sys.stderr)
        print(
            f"gen-ops: {out} is out of date: {len(plan.writes)} file(s) differ, "
            f"{len(plan.deletes)} would be removed"
            + (
                f", {len(result.partial)} left by an interrupted run"
                if result.partial
                else ""
            )
            + "; run gen-ops",
            file=sys.stderr,
        )
        return Exit.FOUND
    if result.repaired:
        say(
            args, f"gen-ops: repaired {result.repaired} file(s) an interrupted run left"
        )
    for written in result.scaffolded:
        say(
            args,
            f"gen-ops: scaffolded {discovery.display(written)} (yours to edit; never "
            "overwritten)",
        )
    rendered, kept = result.rendered, result.kept
    say(
        args,
        f"gen-ops: {rendered + kept} op(s)"
        + (f" ({rendered} rendered, {kept} unchanged)" if kept else "")
        + f": {len(plan.writes)} file(s) written, "
        f"{len(plan.deletes)} removed, {plan.unchanged} unchanged "
        f"({time.perf_counter() - started:.2f} s)",
    )
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run, json=True)
