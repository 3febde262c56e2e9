"""gen-ops import and roundtrip measured on a corpus of real REG_OP headers.

The corpus is not part of the repository: fetch the public headers you want
to measure (GE's own ops/*.h, the <op>/op_graph/*_proto.h headers of CANN's
ops-nn, ops-math, ops-cv, ops-transformer, ...) into a directory, one
subdirectory per repository, and point this script at it:

    python bench/real_corpus.py CORPUS_DIR [--json PATH]

or straight from git directories (bare mirrors, as the ``fetch`` tool gives
them), each named, with GE's graph headers from a metadef mirror for the
compile check:

    python bench/real_corpus.py --mirror graphengine=GIT_DIR \
        --mirror ops-nn=GIT_DIR ... --metadef GIT_DIR

From a mirror it takes, at HEAD, every op-proto header: ``*_proto*.h``
anywhere (``<op>/op_graph/<op>_proto.h``, ``op_*_proto_extend.h``, ...) and
GE's own ``fwkacllib/inc/ops/*.h``, outside ``tests/`` directories; each
mirror's headers go to the subdirectory NAME of the corpus.

It measures, with every header's ops in the module named by its stem
(--module-per-header):

- declarations: REG_OP declarations the importer reads, and an independent
  count (a regular expression over the text, comments removed);
- valid GE: declarations imported without an error, as written and with
  --fix-dtypes;
- round trip: of the valid ones, how many `gen-ops roundtrip` gives back the
  same in meaning (and each one that differs or cannot be rendered);
- invalid dtype names: every DT_/DI_ name in a declaration that is not one of
  GE's DataType enumerators, and every other identifier in a type argument
  (INPUT, OUTPUT, DATATYPE, ...) that is neither an enumerator nor a named
  set nor a type variable of the declaration (``float16``,
  ``REALNUMBERTYPE``), found by regular expressions independently of the
  importer, and whether the importer reported each at its line;
- round trip excluding the op types the runtime reserves (Const, Data, ...:
  R101 for E308), which gen-ops never generates;
- packages: the specs of every valid declaration (with --fix-dtypes) rendered
  by gen-ops, and every generated ge.es and ge_impl module imported in a
  fresh interpreter;
- compile: with --metadef, whether every type expression of every header
  gen-ops renders (and, for comparison, of the corpus as written) compiles
  against GE's graph/types.h (bench/type_expressions.py);
- not imported: every declaration the import leaves out, with its reason
  (the first error), and the ops each repository's own import leaves out
  when merging its declarations (I206).

Prints a table and writes JSON (default bench/results/real_corpus.json).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import _report  # bench/ is the script's directory
import type_expressions

from ge_ir.types import NAMED_TENSOR_TYPES, DataType
from gen_ops.base.diagnostics import Diagnostic
from gen_ops.importer import driver, roundtrip
from gen_ops.importer.headers import HEADER_SUFFIXES

ENUMERATORS = frozenset(member.name for member in DataType)
NAMED_SETS = frozenset(NAMED_TENSOR_TYPES)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
DECLARATION = re.compile(r"\bREG_OP\s*\(\s*(\w+)\s*\)(.*?)OP_END_FACTORY_REG", re.S)
DT_NAME = re.compile(r"\bD[A-Z]_[A-Za-z0-9_]+\b")
# A type argument: the second argument of these elements, up to the ')'
# that closes the element (balanced by hand below).
TYPED = re.compile(
    r"\.(?:INPUT|OUTPUT|OPTIONAL_INPUT|DYNAMIC_INPUT|DYNAMIC_OUTPUT|DATATYPE)"
    r"\s*\(\s*\w+\s*,"
)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
STRING = re.compile(r'"[^"\n]*"')
TYPE_WORDS = frozenset({"ge", "TensorType", "ListTensorType", "Promote"})
DATATYPE_NAME = re.compile(r"\.DATATYPE\s*\(\s*(\w+)")
DTYPE_CODES = ("I202", "I203", "I204", "I302")

IMPORT_ALL = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception as error:
        failed.append(f"{name}: {type(error).__name__}: {error}")
print("\\n".join(failed))
"""


def blank_comments(text: str) -> str:
    """The text with comments replaced by spaces (newlines kept)."""
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def type_arguments(body: str) -> list[tuple[int, str]]:
    """(offset in body, text) of each element's type argument."""
    found = []
    for match in TYPED.finditer(body):
        depth, end = 1, match.end()
        while end < len(body) and depth:
            depth += {"(": 1, ")": -1}.get(body[end], 0)
            end += 1
        found.append((match.end(), body[match.end() : end - 1]))
    return found


def grep(headers: list[Path]) -> tuple[int, list[tuple[str, int, str]]]:
    """Declarations, and (header, line, name) of every name in a declaration
    that is no dtype: a DT_/DI_ name that is not a DataType enumerator
    anywhere, and an identifier in a type argument that is neither an
    enumerator, a named set, nor a type variable DATATYPE declares; by
    regular expression."""
    declarations = 0
    invalid = []
    for header in headers:
        text = blank_comments(header.read_text(encoding="utf-8", errors="replace"))
        for match in DECLARATION.finditer(text):
            declarations += 1
            body, start = match.group(2), match.start(2)
            seen = set()
            for name in DT_NAME.finditer(body):
                if name.group() not in ENUMERATORS:
                    seen.add(start + name.start())
            variables = set(DATATYPE_NAME.findall(body))
            known = ENUMERATORS | NAMED_SETS | TYPE_WORDS | variables
            for offset, argument in type_arguments(body):
                argument = STRING.sub(lambda m: " " * len(m.group()), argument)
                for name in IDENTIFIER.finditer(argument):
                    if name.group() not in known:
                        seen.add(start + offset + name.start())
            for at in sorted(seen):
                spelled = IDENTIFIER.match(text, at)
                assert spelled is not None
                line = text.count("\n", 0, at) + 1
                invalid.append((str(header), line, spelled.group()))
    return declarations, invalid


def reported(name: tuple[str, int, str], diagnostics: list[Diagnostic]) -> bool:
    path, line, dtype = name
    return any(
        d.code in DTYPE_CODES
        and d.span.line == line
        and Path(d.span.path).resolve() == Path(path).resolve()
        and dtype in d.message
        for d in diagnostics
    )


PROTO_HEADER = re.compile(r"(_proto[A-Za-z0-9_]*\.h|/fwkacllib/inc/ops/[^/]+\.h)$")


def extract(mirrors: list[tuple[str, Path]], into: Path) -> dict[str, str]:
    """The op-proto headers of each mirror's HEAD under ``into/NAME``; the
    commit of each."""
    commits = {}
    for name, git_dir in mirrors:
        git = ["git", f"--git-dir={git_dir}"]
        listing = subprocess.run(
            git + ["ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        wanted = [
            p for p in listing if PROTO_HEADER.search(p) and "/tests/" not in f"/{p}"
        ]
        (into / name).mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            git + ["archive", "HEAD", *wanted], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into / name)], input=archive, check=True)
        commits[name] = subprocess.run(
            git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    return commits


def check(
    corpus: Path, fix_dtypes: bool, rendered: Path | None = None
) -> roundtrip.Report:
    with tempfile.TemporaryDirectory(prefix="real-corpus-") as tmp:
        return roundtrip.run(
            roundtrip.Options(
                paths=(corpus,),
                rendered=rendered or Path(tmp),
                module_per_header=True,
                fix_dtypes=fix_dtypes,
            )
        )


def not_imported(report: roundtrip.Report) -> list[str]:
    """Each declaration with an import error, and each header with a syntax
    defect: ``Op header:line: I202 first message``."""
    first: dict[tuple[str, int, str], str] = {}
    for d in report.diagnostics:
        if d.severity.value != "error" or not d.code.startswith("I"):
            continue
        header_wide = not d.code.startswith("I2")
        op = "(header)" if header_wide else d.message.split(":")[0]
        message = d.message if header_wide else d.message[len(op) + 2 :]
        key = (d.span.path, d.span.line if header_wide else 0, op)
        first.setdefault(
            key, f"{op} {_short(d.span.path)}:{d.span.line}: {d.code} {message[:140]}"
        )
    return sorted(first.values())


def _short(path: str) -> str:
    return re.sub(r"^.*?/real-corpus-src-[^/]+/", "", str(Path(path).resolve()))


def merge_per_repository(corpus: Path) -> dict[str, list[str]]:
    """Each repository imported on its own (--module-per-header): the ops its
    merge leaves out (I206), with the first difference."""
    out = {}
    for repository in sorted(p for p in corpus.iterdir() if p.is_dir()):
        result = driver.plan(
            driver.Options(
                paths=(repository,),
                out=Path(tempfile.gettempdir()) / "real-corpus-unused",
                module_per_header=True,
            )
        )
        out[repository.name] = sorted(
            d.message.split("; the op")[0]
            for d in result.diagnostics
            if d.code == "I206"
        )
    return out


def packages(corpus: Path) -> dict[str, Any]:
    """Import with --fix-dtypes, render with gen-ops, import every module."""
    with tempfile.TemporaryDirectory(prefix="real-corpus-gen-") as tmp:
        out = Path(tmp)
        options = driver.Options(
            paths=(corpus,),
            out=out / "specs",
            module_per_header=True,
            fix_dtypes=True,
        )
        result = driver.plan(options)
        driver.write(options, result)  # every spec: the directory is new
        gen = subprocess.run(
            [sys.executable, "-m", "gen_ops", "--specs", str(out / "specs")]
            + ["--out", str(out / "gen"), "--no-scaffold", "-q"],
            capture_output=True,
            text=True,
            check=False,
        )
        python = out / "gen/python"
        modules = sorted(
            p.relative_to(python).with_suffix("").as_posix().replace("/", ".")
            for p in python.rglob("*.py")
            if p.parent != python / "ge_impl" and p.parent != python / "ge/es"
        )
        modules = [m.removesuffix(".__init__") for m in modules]
        run = subprocess.run(
            [sys.executable, "-c", IMPORT_ALL, *modules],
            env=dict(os.environ, PYTHONPATH=str(python)),
            capture_output=True,
            text=True,
            check=False,
        )
        failures = [line for line in run.stdout.splitlines() if line]
        if run.returncode != 0:
            failures.append(run.stderr.strip().splitlines()[-1])
        refused = [d for d in result.diagnostics if d.code == "I208"]
        return {
            "specs": len(result.files),
            "refused_by_import": len(refused),
            "refused_op_types": sorted(d.message.split(":")[0] for d in refused),
            "gen_ops_status": gen.returncode,
            "gen_ops_errors": [
                line for line in gen.stderr.splitlines() if "error[" in line
            ],
            "modules": len(modules),
            "modules_failed": failures,
        }


def measure(corpus: Path, metadef: Path | None = None) -> dict[str, Any]:
    headers = sorted(
        p for p in corpus.rglob("*") if p.suffix in HEADER_SUFFIXES and p.is_file()
    )
    per_repo = Counter(p.relative_to(corpus).parts[0] for p in headers)
    declarations, invalid = grep(headers)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="real-corpus-rendered-") as rendered:
        plain = check(corpus, fix_dtypes=False, rendered=Path(rendered))
        elapsed_plain = time.perf_counter() - started
        compiled = (
            {
                "rendered": type_expressions.measure(
                    [Path(rendered) / "include"], metadef
                ),
                "as_written": type_expressions.measure([corpus], metadef),
            }
            if metadef is not None
            else None
        )
    started = time.perf_counter()
    fixed = check(corpus, fix_dtypes=True)
    elapsed = elapsed_plain + time.perf_counter() - started
    codes = Counter(d.code for d in plain.diagnostics)
    differ = [
        d.format().splitlines()[0]
        for d in fixed.diagnostics
        if d.code.startswith("R") and d.severity.value == "error"
    ]

    def summary(report: roundtrip.Report) -> dict[str, Any]:
        valid = report.same + report.differ + report.unrendered
        reserved = sum(
            1 for d in report.diagnostics if d.code == "R101" and "E308" in d.message
        )
        unreserved = valid - reserved
        return {
            "declarations_read": valid + report.not_imported,
            "valid": valid,
            "not_imported": report.not_imported,
            "failed_headers": report.failed_headers,
            "same": report.same,
            "differ": report.differ,
            "cannot_render": report.unrendered,
            "round_trip_percent": (
                round(100 * report.same / valid, 2) if valid else None
            ),
            "reserved_op_types": reserved,
            "round_trip_percent_without_reserved": (
                round(100 * report.same / unreserved, 2) if unreserved else None
            ),
        }

    unreported = [n for n in invalid if not reported(n, plain.diagnostics)]
    return {
        "corpus": str(corpus),
        "headers": len(headers),
        "headers_per_repository": dict(sorted(per_repo.items())),
        "declarations_by_regex": declarations,
        "as_written": summary(plain),
        "with_fix_dtypes": summary(fixed),
        "diagnostic_codes": dict(sorted(codes.items())),
        "diagnostic_codes_fix_dtypes": dict(
            sorted(Counter(d.code for d in fixed.diagnostics).items())
        ),
        "headers_sharing_a_module": sum(
            1 for d in plain.diagnostics if d.code == "I312"
        ),
        "invalid_dtype_names": dict(sorted(Counter(n[2] for n in invalid).items())),
        "invalid_dtype_uses": len(invalid),
        "invalid_dtype_uses_unreported": [
            f"{p}:{line}: {n}" for p, line, n in unreported
        ],
        "round_trip_differences": differ,
        "not_imported_as_written": not_imported(plain),
        "not_imported_with_fix_dtypes": not_imported(fixed),
        "merge_not_imported_per_repository": merge_per_repository(corpus),
        "compile": compiled,
        "seconds_import_and_roundtrip_twice": round(elapsed, 2),
        "packages": packages(corpus),
    }


def print_table(result: dict[str, Any]) -> None:
    plain, fixed, gen = (
        result["as_written"],
        result["with_fix_dtypes"],
        result["packages"],
    )
    rows = [
        ("headers", result["headers"], ""),
        ("REG_OP declarations (regex)", result["declarations_by_regex"], ""),
        ("declarations read by the importer", plain["declarations_read"], ""),
        ("headers with a syntax defect", plain["failed_headers"], ""),
        ("valid GE (imported, as written)", plain["valid"], fixed["valid"]),
        ("round trip: the same", plain["same"], fixed["same"]),
        ("round trip: differ", plain["differ"], fixed["differ"]),
        (
            "round trip: cannot be rendered",
            plain["cannot_render"],
            fixed["cannot_render"],
        ),
        (
            "round trip, % of valid",
            plain["round_trip_percent"],
            fixed["round_trip_percent"],
        ),
        (
            "  op types the runtime reserves (R101)",
            plain["reserved_op_types"],
            fixed["reserved_op_types"],
        ),
        (
            "round trip, % of valid, without them",
            plain["round_trip_percent_without_reserved"],
            fixed["round_trip_percent_without_reserved"],
        ),
        ("invalid dtype uses (regex)", result["invalid_dtype_uses"], ""),
        ("  of them not reported", len(result["invalid_dtype_uses_unreported"]), ""),
        ("headers sharing a module (I312)", result["headers_sharing_a_module"], ""),
        ("specs written (--fix-dtypes)", gen["specs"], ""),
        ("  refused by gen-ops import (I208)", gen["refused_by_import"], ""),
        ("gen-ops on the specs: exit status", gen["gen_ops_status"], ""),
        ("generated modules", gen["modules"], ""),
        ("  of them failing to import", len(gen["modules_failed"]), ""),
    ]
    compiled = result["compile"]
    if compiled is not None:
        written, rendered = compiled["as_written"], compiled["rendered"]
        rows += [
            (
                "type expressions compiling with g++",
                f"{written['expressions'] - written['expressions_failing']}"
                f"/{written['expressions']}",
                "",
            ),
            (
                "  in the rendered headers",
                f"{rendered['expressions'] - rendered['expressions_failing']}"
                f"/{rendered['expressions']}",
                "",
            ),
            (
                "headers compiling, % (as written)",
                written["compile_percent"],
                "",
            ),
            (
                "rendered headers compiling, %",
                rendered["compile_percent"],
                "",
            ),
            (
                "the same and compiling, % of valid",
                round(
                    100
                    * (
                        plain["same"]
                        - rendered["headers_with_expressions"]
                        + rendered["headers_compiling"]
                    )
                    / plain["valid"],
                    2,
                ),
                "",
            ),
        ]
    print(f"{'':40} {'as written':>12} {'--fix-dtypes':>13}")
    for label, a, b in rows:
        print(f"{label:40} {a!s:>12} {b!s:>13}")
    print(
        "repositories:",
        ", ".join(f"{k} ({v})" for k, v in result["headers_per_repository"].items()),
    )
    print(
        "invalid dtype names:",
        ", ".join(f"{k} x{v}" for k, v in result["invalid_dtype_names"].items()),
    )
    print(
        "diagnostics (as written):",
        ", ".join(f"{k} x{v}" for k, v in result["diagnostic_codes"].items()),
    )
    print(
        "diagnostics (--fix-dtypes):",
        ", ".join(
            f"{k} x{v}" for k, v in result["diagnostic_codes_fix_dtypes"].items()
        ),
    )
    print("refused by gen-ops import:", ", ".join(gen["refused_op_types"]) or "none")
    for line in gen["gen_ops_errors"]:
        print("  " + line)
    for line in result["round_trip_differences"]:
        print("  " + line)
    for line in result["invalid_dtype_uses_unreported"] + gen["modules_failed"]:
        print("  " + line)
    if compiled is not None:
        for line in compiled["rendered"]["failures"]:
            print("  does not compile: " + line)
    print("not imported (--fix-dtypes):")
    for line in result["not_imported_with_fix_dtypes"]:
        print("  " + line)
    for repository, ops in result["merge_not_imported_per_repository"].items():
        print(f"not imported by {repository}'s own import (I206): {len(ops)}")
        for line in ops:
            print("  " + line[:200])


def parse_mirrors(
    parser: argparse.ArgumentParser, items: list[str]
) -> list[tuple[str, Path]]:
    """``--mirror NAME=GIT_DIR`` values as (name, git dir); a usage error
    for one that is not of that form."""
    mirrors = []
    for item in items:
        name, _, git_dir = item.partition("=")
        if not name or not git_dir:
            parser.error(f"--mirror {item}: write NAME=GIT_DIR")
        mirrors.append((name, Path(git_dir)))
    return mirrors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus", type=Path, nargs="?", help="a directory of REG_OP headers"
    )
    parser.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="NAME=GIT_DIR",
        help="take the op-proto headers of this git directory's HEAD (repeatable)",
    )
    parser.add_argument(
        "--metadef",
        type=Path,
        help="a git directory of hicann/metadef: compile the type expressions "
        "against its graph/types.h",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=Path(__file__).resolve().parent / "results/real_corpus.json",
    )
    args = parser.parse_args()
    if (args.corpus is None) == (not args.mirror):
        parser.error("give a corpus directory or --mirror NAME=GIT_DIR, not both")
    mirrors = parse_mirrors(parser, args.mirror)
    with tempfile.TemporaryDirectory(prefix="real-corpus-src-") as tmp:
        corpus = args.corpus.resolve() if args.corpus else Path(tmp)
        commits = extract(mirrors, corpus) if mirrors else {}
        result = {
            **_report.header("real_corpus"),
            "mirrors": commits,
            **measure(corpus, args.metadef),
        }
    print_table(result)
    _report.write(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
