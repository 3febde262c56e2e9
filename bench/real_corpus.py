"""gen-ops import and roundtrip measured on a corpus of real REG_OP headers.

The corpus is not part of the repository: fetch the public headers you want
to measure (GE's own ops/*.h, the <op>/op_graph/*_proto.h headers of CANN's
ops-nn, ops-math, ops-cv, ops-transformer, ...) into a directory, one
subdirectory per repository, and point this script at it:

    python bench/real_corpus.py CORPUS_DIR [--json PATH]

It measures, with every header's ops in the module named by its stem
(--module-per-header):

- declarations: REG_OP declarations the importer reads, and an independent
  count (a regular expression over the text, comments removed);
- valid GE: declarations imported without an error, as written and with
  --fix-dtypes;
- round trip: of the valid ones, how many `gen-ops roundtrip` gives back the
  same in meaning (and each one that differs or cannot be rendered);
- invalid dtype names: every DT_/DI_ name in a declaration that is not one of
  GE's DataType enumerators (found by a regular expression, independently of
  the importer), and whether the importer reported each at its line;
- packages: the specs of every valid declaration (with --fix-dtypes) rendered
  by gen-ops, and every generated ge.es and ge_impl module imported in a
  fresh interpreter.

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

from ge_ir.types import DataType
from gen_ops.diagnostics import Diagnostic
from gen_ops.importer import driver, roundtrip

ENUMERATORS = frozenset(member.name for member in DataType)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
DECLARATION = re.compile(r"\bREG_OP\s*\(\s*(\w+)\s*\)(.*?)OP_END_FACTORY_REG", re.S)
DT_NAME = re.compile(r"\bD[A-Z]_[A-Za-z0-9_]+\b")
DTYPE_CODES = ("I202", "I203", "I302")
SUFFIXES = (".h", ".hh", ".hpp", ".hxx")  # the ones gen-ops import searches

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


def grep(headers: list[Path]) -> tuple[int, list[tuple[str, int, str]]]:
    """Declarations, and (header, line, name) of every DT_/DI_ name in a
    declaration that is not a DataType enumerator, by regular expression."""
    declarations = 0
    invalid = []
    for header in headers:
        text = blank_comments(header.read_text(encoding="utf-8", errors="replace"))
        for match in DECLARATION.finditer(text):
            declarations += 1
            for name in DT_NAME.finditer(match.group(2)):
                if name.group() not in ENUMERATORS:
                    line = text.count("\n", 0, match.start(2) + name.start()) + 1
                    invalid.append((str(header), line, name.group()))
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


def check(corpus: Path, headers: list[Path], fix_dtypes: bool) -> roundtrip.Report:
    with tempfile.TemporaryDirectory(prefix="real-corpus-") as rendered:
        return roundtrip.run(
            roundtrip.Options(
                paths=(corpus,),
                rendered=Path(rendered),
                module_per_header=True,
                fix_dtypes=fix_dtypes,
            )
        )


def packages(corpus: Path) -> dict[str, Any]:
    """Import with --fix-dtypes, render with gen-ops, import every module."""
    with tempfile.TemporaryDirectory(prefix="real-corpus-gen-") as tmp:
        out = Path(tmp)
        result = driver.plan(
            driver.Options(
                paths=(corpus,),
                out=out / "specs",
                module_per_header=True,
                fix_dtypes=True,
            )
        )
        for spec in result.files:
            target = out / "specs" / spec.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(spec.text, encoding="utf-8")
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
        return {
            "specs": len(result.files),
            "gen_ops_status": gen.returncode,
            "gen_ops_errors": [
                line for line in gen.stderr.splitlines() if "error[" in line
            ],
            "modules": len(modules),
            "modules_failed": failures,
        }


def measure(corpus: Path) -> dict[str, Any]:
    headers = sorted(
        p for p in corpus.rglob("*") if p.suffix in SUFFIXES and p.is_file()
    )
    per_repo = Counter(p.relative_to(corpus).parts[0] for p in headers)
    declarations, invalid = grep(headers)
    started = time.perf_counter()
    plain = check(corpus, headers, fix_dtypes=False)
    fixed = check(corpus, headers, fix_dtypes=True)
    elapsed = time.perf_counter() - started
    codes = Counter(d.code for d in plain.diagnostics)
    differ = [
        d.format().splitlines()[0]
        for d in fixed.diagnostics
        if d.code.startswith("R") and d.severity.value == "error"
    ]

    def summary(report: roundtrip.Report) -> dict[str, Any]:
        valid = report.same + report.differ + report.unrendered
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
        "invalid_dtype_names": dict(sorted(Counter(n[2] for n in invalid).items())),
        "invalid_dtype_uses": len(invalid),
        "invalid_dtype_uses_unreported": [
            f"{p}:{line}: {n}" for p, line, n in unreported
        ],
        "round_trip_differences": differ,
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
        ("invalid dtype uses (regex)", result["invalid_dtype_uses"], ""),
        ("  of them not reported", len(result["invalid_dtype_uses_unreported"]), ""),
        ("specs written (--fix-dtypes)", gen["specs"], ""),
        ("generated modules", gen["modules"], ""),
        ("  of them failing to import", len(gen["modules_failed"]), ""),
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
    for line in result["round_trip_differences"]:
        print("  " + line)
    for line in result["invalid_dtype_uses_unreported"] + gen["modules_failed"]:
        print("  " + line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a directory of REG_OP headers")
    parser.add_argument(
        "--json",
        type=Path,
        default=Path(__file__).resolve().parent / "results/real_corpus.json",
    )
    args = parser.parse_args()
    result = {**_report.header("real_corpus"), **measure(args.corpus.resolve())}
    print_table(result)
    _report.write(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
