"""``ge-cache``: show or clear the kernel cache (Note [Kernel cache] in
``ge.device.toolchain``).

Exit status 0; 2 for a usage error. Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ge_ir.version import __version__


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ge-cache",
        description="Show or clear the cache of kernels built by gcc "
        "($GE_CPU_CACHE_DIR, else the user cache directory; capped at "
        "$GE_CPU_CACHE_MAX_MB megabytes, default 512).",
    )
    parser.add_argument(
        "--version", action="version", version=f"ge-cache {__version__}"
    )
    commands = parser.add_subparsers(dest="command", metavar="{show,clear}")
    for name, text in (
        ("show", "where the cache is, how many entries, how large"),
        ("clear", "remove every cached kernel"),
    ):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument(
            "--format", choices=("text", "json"), default="text", help="output format"
        )
    args = parser.parse_args(argv)
    from ge.device import toolchain

    try:
        if args.command == "clear":
            freed = toolchain.clear_cache()
            stats = toolchain.cache_stats()
            if args.format == "json":
                print(json.dumps({"freed_bytes": freed, **stats.as_dict()}))
            else:
                print(f"ge-cache: cleared {stats.directory} ({_size(freed)} freed)")
            return 0
        stats = toolchain.cache_stats()
        format_ = getattr(args, "format", "text")
    except OSError as exc:
        print(
            f"ge-cache: {exc.filename or 'the cache'}: {exc.strerror}", file=sys.stderr
        )
        return 1
    if format_ == "json":
        print(json.dumps(stats.as_dict()))
        return 0
    print(f"directory: {stats.directory}" + ("" if stats.usable else " (not used)"))
    print(f"kernels:   {stats.objects} ({stats.keys} build keys)")
    print(f"size:      {_size(stats.size)} of {_size(stats.limit)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
