"""``python -m ge.es``: the flags to build C and C++ programs against the ES
runtime library (like ``python -m pybind11 --includes``).

    g++ prog.cpp gen/es_*.cpp -I gen/include $(python -m ge.es --includes) \\
        $(python -m ge.es --libs)

``--libs`` builds the library first if needed (docs/es-c-cpp.md).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from ge.es import esrt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ge.es",
        description="Compiler and linker flags for GE's ES C/C++ API on this runtime.",
    )
    parser.add_argument(
        "--includes", action="store_true", help="print the compiler flags"
    )
    parser.add_argument(
        "--libs",
        action="store_true",
        help="print the linker flags (building libge_es.so if needed)",
    )
    parser.add_argument(
        "--library-dir",
        action="store_true",
        help="print the directory of libge_es.so (building it if needed)",
    )
    args = parser.parse_args(argv)
    if not (args.includes or args.libs or args.library_dir):
        parser.print_help()
        return 2
    try:
        words: list[str] = []
        if args.includes:
            words += esrt.compile_flags()
        if args.libs:
            words += esrt.link_flags()
        if args.library_dir:
            words.append(str(esrt.library_dir()))
    except esrt.BuildError as exc:
        print(f"python -m ge.es: {exc}", file=sys.stderr)
        return 1
    print(shlex.join(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
