"""Wall and CPU time of ``gen-ops test`` over every spec of the repository
(docs/opcheck.md, "Cost"), and per op the cases drawn and checked.

Runs ``gen-ops test --format json`` as a user would (a fresh process, the
kernel cache as it is), ``--repeat`` times for each ``--jobs`` value (one
process, and the ops split over two: the same run measures both); prints
the totals and the five slowest ops, and writes JSON
(bench/results/opcheck_repo.json).

    python bench/opcheck_repo.py [--repeat 1] [--seed 0] [--jobs 1,2]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _report  # bench/ is the script's directory

ROOT = Path(__file__).resolve().parents[1]
GEN_OPS = Path(sys.executable).parent / "gen-ops"
PYCACHE = ROOT / "bench/results/pycache"


def one_run(seed: int, jobs: int) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(GEN_OPS), "test", "--format", "json", "--seed", str(seed)]
        + ["--jobs", str(jobs)],
        cwd=ROOT,
        # Bytecode as a user's run has it, but kept out of the tree: gen-ops
        # test imports the generated modules, and generated/ must hold only
        # what gen-ops writes (tests/generator/test_golden.py).
        env={**_report.CHILD_ENV, "PYTHONPYCACHEPREFIX": str(PYCACHE)},
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    ops = report["ops"]
    checked = sum((o.get("checked") or {}).get("reference", 0) for o in ops)
    return {
        "jobs": jobs,
        "status": done.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(
            (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2
        ),
        "ops_tested": sum(o["status"] != "skipped" for o in ops),
        "ops": len(ops),
        "cases": sum(o["cases"] for o in ops),
        "checked": checked,
        "undeclared": sum((o.get("checked") or {}).get("undeclared", 0) for o in ops),
        "errors": sum((o.get("checked") or {}).get("errors", 0) for o in ops),
        "slowest": sorted(
            ((o["op"], round(o["seconds"], 2), o["cases"]) for o in ops),
            key=lambda t: -t[1],
        )[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", default="1,2", help="comma-separated process counts")
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/opcheck_repo.json"
    )
    args = parser.parse_args()
    counts = [int(j) for j in args.jobs.split(",") if j]
    runs = [one_run(args.seed, j) for _ in range(args.repeat) for j in counts]
    print(
        "| run | jobs | status | ops tested | cases | checked in full | wall s | CPU s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, r in enumerate(runs):
        print(
            f"| {i + 1} | {r['jobs']} | {r['status']} | {r['ops_tested']} of {r['ops']} "
            f"| {r['cases']} | {r['checked']} | {r['wall_s']} | {r['cpu_s']} |"
        )
    print("slowest ops (op, seconds, cases):", runs[-1]["slowest"])
    _report.write(args.json, {**_report.header("opcheck_repo"), "runs": runs})


if __name__ == "__main__":
    main()
