"""Do the type expressions of REG_OP headers compile against GE's headers?

GE's element macros (INPUT, OUTPUT, ...) only stringify their type
argument, so a header compiles whatever that argument says; DATATYPE's
range is evaluated. This script asks the stricter question for every
element: is the argument a C++ expression of GE's types? Each one is
written into a .cc file that includes GE's ``graph/types.h``, as

    namespace ge { void e17() { auto t = <expression>; (void)t; } }

and ``g++ -fsyntax-only`` checks them all at once; an error's line names
the expression, its header and its line. A quoted type variable ("T") is a
name, not an expression, and is left out.

GE's headers come from a git directory of hicann/metadef (``fetch``
github:hicann/metadef gives one): ``inc/external/graph/types.h`` and the
``c_types.h`` it includes, read from its HEAD.

    python bench/type_expressions.py --metadef GIT_DIR HEADER_OR_DIR...
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GE_HEADERS = ("inc/external/graph/types.h", "inc/external/graph/c_types.h")
ELEMENT = re.compile(
    r"\.(INPUT|OUTPUT|OPTIONAL_INPUT|DYNAMIC_INPUT|DYNAMIC_OUTPUT|DATATYPE)"
    r"\s*\(\s*\w+\s*,"
)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
ERROR = re.compile(r"^[^:\n]*expr\.cc:(\d+):\d+: error: (.*)$", re.M)


@dataclass(frozen=True)
class Expression:
    header: str
    line: int
    element: str
    text: str


def ge_headers(metadef: Path, into: Path) -> Path:
    """GE's graph headers from a metadef git directory, under ``into``."""
    (into / "graph").mkdir(parents=True, exist_ok=True)
    for path in GE_HEADERS:
        text = subprocess.run(
            ["git", f"--git-dir={metadef}", "show", f"HEAD:{path}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (into / "graph" / Path(path).name).write_text(text, encoding="utf-8")
    return into


def expressions(header: Path, display: str) -> list[Expression]:
    """The type argument of every element: the text after the name, up to
    the ')' that closes the element."""
    text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), header.read_text())
    text = text.replace("\\\n", "  ")
    found = []
    for match in ELEMENT.finditer(text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        argument = " ".join(text[match.end() : end - 1].split())
        if re.fullmatch(r'"\w+"', argument):
            continue
        line = text.count("\n", 0, match.start()) + 1
        found.append(Expression(display, line, match.group(1), argument))
    return found


def balanced(text: str) -> bool:
    """Whether the brackets of ``text`` close in order (and no ';' ends a
    statement early): otherwise it cannot be an expression, and would
    break the expressions after it in the one .cc file."""
    stack: list[str] = []
    for char in re.sub(r'"[^"]*"', "", text):
        if char in "({[":
            stack.append(char)
        elif char in ")}]":
            if not stack or "({["[")}]".index(char)] != stack.pop():
                return False
        elif char == ";":
            return False
    return not stack


def compile_all(items: list[Expression], include: Path) -> dict[int, str]:
    """{index of a failing expression: g++'s first error about it}."""
    failed: dict[int, str] = {
        index: "its brackets do not balance: no C++ expression"
        for index, item in enumerate(items)
        if not balanced(item.text)
    }
    if len(failed) == len(items):
        return failed
    gxx = shutil.which("g++")
    if gxx is None:
        raise SystemExit("g++ is not on PATH")
    with tempfile.TemporaryDirectory(prefix="type-expr-") as tmp:
        source = Path(tmp) / "expr.cc"
        lines = ['#include "graph/types.h"']
        first = len(lines) + 1
        for index, item in enumerate(items):
            body = "" if index in failed else f"auto t = {item.text}; (void)t; "
            lines.append(f"namespace ge {{ void e{index}() {{ {body}}} }}")
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run = subprocess.run(
            [gxx, "-std=c++17", "-fsyntax-only", "-fmax-errors=0", f"-I{include}"]
            + [str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
    for match in ERROR.finditer(run.stderr):
        index = int(match.group(1)) - first
        if 0 <= index < len(items):
            failed.setdefault(index, match.group(2))
    if run.returncode != 0 and not any(ERROR.finditer(run.stderr)):
        raise SystemExit("g++ failed outside the expressions:\n" + run.stderr[-2000:])
    return failed


def measure(paths: list[Path], metadef: Path) -> dict[str, Any]:
    headers: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            headers += [
                (p, str(p.relative_to(path))) for p in sorted(path.rglob("*.h"))
            ]
        else:
            headers.append((path, path.name))
    items: list[Expression] = []
    for header, display in headers:
        items += expressions(header, display)
    with tempfile.TemporaryDirectory(prefix="ge-headers-") as tmp:
        failed = compile_all(items, ge_headers(metadef, Path(tmp)))
    bad_headers = sorted({items[i].header for i in failed})
    with_expressions = len({i.header for i in items})
    return {
        "headers": len(headers),
        "headers_with_expressions": with_expressions,
        "headers_compiling": with_expressions - len(bad_headers),
        "compile_percent": (
            round(100 * (with_expressions - len(bad_headers)) / with_expressions, 2)
            if with_expressions
            else None
        ),
        "expressions": len(items),
        "expressions_failing": len(failed),
        "failure_kinds": dict(
            sorted(
                Counter(
                    re.sub(r"‘[^’]*’", "X", why).split(";")[0]
                    for why in failed.values()
                ).items()
            )
        ),
        "failures": [
            f"{items[i].header}:{items[i].line}: {items[i].element} "
            f"{items[i].text[:100]}: {why}"
            for i, why in sorted(failed.items())
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+", help="headers or directories")
    parser.add_argument("--metadef", type=Path, required=True, help="git dir")
    args = parser.parse_args()
    result = measure(args.paths, args.metadef)
    print(json.dumps({k: v for k, v in result.items() if k != "failures"}, indent=1))
    for line in result["failures"]:
        print("  " + line)
    return 0 if not result["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
