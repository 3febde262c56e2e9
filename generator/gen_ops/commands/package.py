"""``gen-ops package``: one module as an op library wheel and sdist
(``package_build``; docs/packaging.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gen_ops.commands import report
from gen_ops.commands.base import (
    Command,
    Exit,
    Parser,
    diagnostic_options,
    lock_timeout_option,
    path,
    path_text,
    quiet_option,
)

NAME = "package"
SUMMARY = "build an es_<module> wheel and sdist of one module"


def parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="gen-ops package",
        description="Build an installable op library (wheel and sdist, named "
        "es_<module> as GE names them) from one module's specs, its author "
        "modules and kernels. See docs/packaging.md.",
    )
    parser.add_argument("--module", required=True, help="the ge.es module to package")
    parser.add_argument("--version", required=True, help="the library's version")
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=path,
        default=Path("dist"),
        help="where the wheel and sdist go (default: dist)",
    )
    parser.add_argument(
        "--specs",
        metavar="PATH",
        action="append",
        type=path,
        help="a spec file or directory (repeatable; default: specs)",
    )
    parser.add_argument(
        "--scaffold-dir",
        metavar="DIR",
        type=path_text,
        default="ops",
        help="where the author modules are, as for gen-ops (default: ops)",
    )
    parser.add_argument("--summary", help="the library's one-line description")
    lock_timeout_option(parser)
    diagnostic_options(parser)
    quiet_option(parser)
    return parser


def run(argv: Sequence[str]) -> int:
    from gen_ops import pipeline
    from gen_ops.base.diagnostics import Sink
    from gen_ops.base.untrusted import loops
    from gen_ops.emit.locking import LockTimeout
    from gen_ops.emit.staging import WriteError
    from gen_ops.package_build import (
        PackageError,
        build,
        checked_module,
        checked_version,
        require_tools,
    )
    from gen_ops.spec import discovery

    args = parser().parse_args(argv)
    try:
        require_tools()
        module = checked_module(args.module)
        version = checked_version(args.version)
        if loops(args.out):
            raise PackageError(
                f"--out {discovery.display(args.out)} is a symbolic link that loops "
                "(or leads to one); remove the loop, or name a directory"
            )
        sink = Sink()
        roots = args.specs or [Path("specs")]
        files = discovery.discover(roots, sink)
        ops = pipeline.load_and_check(files, sink)
        report.report(sink, args.quiet, len(files), args.format, args.max_errors)
        if sink.has_errors:
            print("gen-ops package: nothing was built", file=sys.stderr)
            return Exit.INVALID
        mine = [op for op in ops if op.module == module]
        if not mine:
            found = sorted({op.module for op in ops})
            raise PackageError(
                f"no spec declares module {module!r} (modules found: "
                f"{', '.join(found) or 'none'}); pass --specs or --module"
            )
        built = build(
            module,
            version,
            args.summary,
            mine,
            args.scaffold_dir,
            (args.out, roots, files),
            args.lock_timeout,
        )
    except PackageError as exc:
        print(f"gen-ops package: {exc}", file=sys.stderr)
        return Exit.INVALID
    except (WriteError, LockTimeout) as exc:
        print(f"gen-ops package: {exc}", file=sys.stderr)
        return Exit.IO
    except OSError as exc:
        print(
            f"gen-ops package: cannot write {exc.filename or args.out}: "
            f"{exc.strerror or exc}",
            file=sys.stderr,
        )
        return Exit.IO
    if not args.quiet:
        for written in built:
            print(f"gen-ops package: wrote {discovery.display(written)}")
        print(
            f"gen-ops package: {len(mine)} op(s) of module {module}; install with "
            f"pip install {discovery.display(built[-1])}"
        )
    return Exit.OK


COMMAND = Command(NAME, SUMMARY, parser, run, json=True)
