"""gen-ops' C and C++ ES API against gen_esb's own expected outputs.

GE's generator unit tests (``gen_impl_unittest.cc``) hold, for the ops of
``stub_geir_ops.cc``, the exact ``es_<Op>_c.h``, ``es_<Op>.cpp`` and
``es_<Op>.h`` gen_esb writes. This script reads both from a fetched GE
mirror (a bare git directory; nothing of GE is copied into this
repository), imports the stub's REG_OPs with ``gen-ops import``, renders
their ES files, and compares each expected file with ours after GE's own
normalisation (every whitespace character removed), comments and licence
banners aside:

    python bench/esb_parity.py --ge-mirror GE_GIT_DIR \\
        [--json bench/results/esb_parity.json]

The history overload tests (``history/cpp_generator_overload_unittest.cc``)
hold the ``es_<Op>.h`` gen_esb writes with a history registry: each test
writes its registry (one or more releases' ``operators.json``) and renders
one stub op. The script writes the same registry, attaches it to the
imported op as ``gen-ops --registry`` does, and compares the C++ header the
same way. A test that hands gen_esb a plan of its own (``GenOpWithPlan``)
has no registry that gives that plan and is listed as such.

It prints a table per set (equal/total, then every deviation with its
reason) and writes the JSON. Each known deviation's reason is in DEVIATIONS (and in
docs/ge-compat.md, "C and C++ ES API"); a file that differs for any other
reason is reported with where it first differs.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "generator"), str(ROOT / "runtime")]

from _report import CHILD_ENV, header, write  # noqa: E402

TESTS = "tests/ge/ut/ge/graph/eager_style_graph_builder/es_generator"
UNIT_TESTS = f"{TESTS}/gen_impl_unittest.cc"
OVERLOAD_TESTS = f"{TESTS}/history/cpp_generator_overload_unittest.cc"
STUB_OPS = f"{TESTS}/stub_geir_ops.cc"

# Why a file of ours differs from gen_esb's, on purpose (docs/ge-compat.md).
DEVIATIONS = {
    "es_phony_keyword.cpp": "node.SetSubgraph takes the IR name 'or'; gen_esb "
    "passes the C++ parameter name 'subgraph_or', which is no subgraph of the IR",
    "es_phony_opt_attrs.h": "includes es_log.h: gen_esb's header calls "
    "EsMakeUnique (the tensor attr's default) without including es_log.h, "
    "which declares it",
}


# Why an overload test's header of ours differs from gen_esb's, on purpose.
RESOLVED_BUILDER = (
    "passes owner_graph_builder (ResolveBuilder's EsCGraphBuilder *) to the C "
    "function; gen_esb calls GetCGraphBuilder() on it, which EsCGraphBuilder "
    "lacks, so its header does not compile"
)
GE_RESOLVED = (
    "owner_graph_builder == nullptr ? nullptr : owner_graph_builder->GetCGraphBuilder()"
)
HAND_PLAN = (
    "the test hands gen_esb a plan of its own (GenOpWithPlan), which no "
    "registry gives; gen-ops plans from a registry only"
)


def git_show(mirror: Path, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), "show", f"HEAD:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def expected_files(unit_tests: str) -> dict[str, str]:
    """Each per-op file a test compares, by name, as the test expects it."""
    files: dict[str, str] = {}
    for test in re.split(r"\nTEST_F\(", unit_tests)[1:]:
        texts = re.findall(r'R"\((.*?)\)"', test, re.S)
        names = re.findall(r'test_output_dir_ \+ "([^"]+)"', test)
        for name, text in zip(names, texts):
            if name.startswith("es_") and not name.startswith("es_all_ops"):
                files[name] = text
    return files


_TOKEN = re.compile(
    r'"(?:\\.|[^"\\])*"' r"|'(?:\\.|[^'\\])*'" r"|//[^\n]*" r"|/\*.*?\*/",
    re.S,
)


def normalise(text: str) -> str:
    """Comments (banners among them) removed, string literals kept, then
    every whitespace character removed, as GE's tests compare."""

    def keep(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token[0] in "\"'" else " "

    return "".join(_TOKEN.sub(keep, text).split())


@dataclass(frozen=True)
class OverloadTest:
    name: str
    op_type: str
    expected: str
    releases: tuple[tuple[str, str, str], ...]  # (version, date, operators.json)
    hand_plan: bool


_RELEASE = re.compile(r'"([^"]+)",\s*"(\d{4}-\d{2}-\d{2})",\s*R"\((.*?)\)"', re.S)


def overload_tests(source: str) -> list[OverloadTest]:
    """Each test of cpp_generator_overload_unittest.cc: its op, its expected
    header, the registry it writes and whether it plans by hand."""
    constants = dict(
        re.findall(r'const char (kExpected\w+)\[\] = R"\((.*?)\)";', source, re.S)
    )
    tests = []
    for body in re.split(r"\nTEST_F\(", source)[1:]:
        name = body.split(",", 1)[1].split(")", 1)[0].strip()
        op_type = re.search(r'CreateOperator\("([^"]+)"', body)
        used = re.search(r"expected_cpp_content =\s*(kExpected\w+)", body)
        if op_type is None or used is None:
            continue
        tests.append(
            OverloadTest(
                name,
                op_type.group(1),
                constants[used.group(1)],
                tuple(_RELEASE.findall(body)),
                "GenOpWithPlan(" in body,
            )
        )
    return tests


def write_registry(root: Path, releases: tuple[tuple[str, str, str], ...]) -> None:
    """The registry a test writes: index, metadata and operators per release."""
    index = {
        "version": "1.0.0",
        "releases": [{"release_version": v, "release_date": d} for v, d, _ in releases],
    }
    root.mkdir(parents=True)
    (root / "index.json").write_text(json.dumps(index))
    for version, _, operators in releases:
        folder = root / "registry" / version
        folder.mkdir(parents=True)
        meta = {"release_version": version, "branch_name": "master"}
        (folder / "metadata.json").write_text(json.dumps(meta))
        (folder / "operators.json").write_text(operators)


def overload_headers(
    specs: Path, tests: list[OverloadTest], work: Path
) -> dict[str, str | None]:
    """Our es_<Op>.h per test: the stub's op rendered with the test's
    registry (None: the op was not imported)."""
    from gen_ops import pipeline
    from gen_ops.base.diagnostics import Sink
    from gen_ops.emit.outputs import Target
    from gen_ops.history import past

    sink = Sink()
    ops = {
        op.op_type: op
        for op in pipeline.load_and_check(pipeline.discover([specs], sink), sink)
    }
    headers: dict[str, str | None] = {}
    for number, test in enumerate(tests):
        op = ops.get(test.op_type)
        if op is None:
            headers[test.name] = None
            continue
        chosen = [op]
        if test.releases:
            root = work / f"registry_{number}"
            write_registry(root, test.releases)
            chosen = past.attach(root, chosen, Sink()) or chosen
        files = pipeline.render(chosen, frozenset({Target.ES}))
        headers[test.name] = next(
            f.content for f in files if Path(f.path).name == f"es_{test.op_type}.h"
        )
    return headers


def ours(stub: str, work: Path) -> tuple[dict[str, str], str]:
    """Our ES files for the stub's ops, and what ``gen-ops import`` said."""
    header_path = work / "stub_geir_ops.h"
    header_path.write_text(stub, encoding="utf-8")
    specs = work / "specs"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gen_ops",
            "import",
            str(header_path),
            "--out",
            str(specs),
        ],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
    )
    from gen_ops import pipeline
    from gen_ops.base.diagnostics import Sink
    from gen_ops.emit.outputs import Target

    sink = Sink()
    ops = pipeline.load_and_check(pipeline.discover([specs], sink), sink)
    files = pipeline.render(ops, frozenset({Target.ES}))
    return {Path(f.path).name: f.content for f in files}, done.stderr


def first_difference(want: str, got: str) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(want, got)) if a != b),
        min(len(want), len(got)),
    )
    return f"at {at}: gen_esb {want[at:at + 60]!r}, gen-ops {got[at:at + 60]!r}"


def compare(mirror: Path) -> dict[str, Any]:
    expected = expected_files(git_show(mirror, UNIT_TESTS))
    tests = overload_tests(git_show(mirror, OVERLOAD_TESTS))
    with tempfile.TemporaryDirectory() as tmp:
        rendered, imported = ours(git_show(mirror, STUB_OPS), Path(tmp))
        headers = overload_headers(Path(tmp) / "specs", tests, Path(tmp))
    history_rows = []
    for test in tests:
        got = headers.get(test.name)
        same = got is not None and normalise(got) == normalise(test.expected)
        why = None
        if not same:
            if test.hand_plan:
                why = HAND_PLAN
            elif got is not None and normalise(got) == normalise(
                test.expected.replace(GE_RESOLVED, "owner_graph_builder")
            ):
                why = RESOLVED_BUILDER
            elif got is None:
                why = "not rendered"
            else:
                why = first_difference(normalise(test.expected), normalise(got))
        history_rows.append(
            {
                "test": test.name,
                "file": f"es_{test.op_type}.h",
                "equal": same,
                "reason": why,
            }
        )
    rows = []
    for name in sorted(expected):
        got = rendered.get(name)
        equal = got is not None and normalise(got) == normalise(expected[name])
        reason = None
        if not equal:
            reason = DEVIATIONS.get(name) or (
                "not rendered"
                if got is None
                else first_difference(normalise(expected[name]), normalise(got))
            )
        rows.append({"file": name, "equal": equal, "reason": reason})
    commit = subprocess.run(
        ["git", "--git-dir", str(mirror), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    equal = sum(row["equal"] for row in rows)
    return {
        "ge_commit": commit,
        "equal": equal,
        "total": len(rows),
        "percent": round(100.0 * equal / len(rows), 1) if rows else 0.0,
        "files": rows,
        "import_diagnostics": imported.count("error["),
        "history": {
            "equal": sum(row["equal"] for row in history_rows),
            "total": len(history_rows),
            "tests": history_rows,
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ge-mirror", type=Path, required=True, metavar="GIT_DIR")
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/esb_parity.json"
    )
    args = parser.parse_args()
    result = header("esb_parity") | compare(args.ge_mirror)
    print(f"gen_esb parity (GE {result['ge_commit'][:10]}): ", end="")
    print(f"{result['equal']}/{result['total']} files equal ({result['percent']}%)")
    print(f"{'file':<34} {'equal':<6} reason")
    for row in result["files"]:
        print(
            f"{row['file']:<34} {'yes' if row['equal'] else 'NO':<6} {row['reason'] or ''}"
        )
    history = result["history"]
    print()
    print(f"history overloads: {history['equal']}/{history['total']} headers equal")
    print(f"{'test':<80} {'equal':<6} reason")
    for row in history["tests"]:
        print(
            f"{row['test']:<80} {'yes' if row['equal'] else 'NO':<6} {row['reason'] or ''}"
        )
    write(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
