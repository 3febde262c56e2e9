"""``gen-ops test --jobs N``: the chosen ops split over N child processes.

Each child is ``gen-ops test --format json`` on its share of the ops, with
the parent's seed and switches; the parent reads each child's JSON report
and returns the per-op results as the child wrote them. An op's cases do
not depend on which process draws them (the seed is per op and case), so a
report with jobs equals one without, times aside. A child that dies or
writes no report makes an ``error`` result for each of its ops, with the
end of its stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any


def shares(op_types: Sequence[str], jobs: int) -> list[list[str]]:
    """``op_types`` dealt round-robin into at most ``jobs`` non-empty lists."""
    dealt: list[list[str]] = [[] for _ in range(max(1, jobs))]
    for i, op_type in enumerate(op_types):
        dealt[i % len(dealt)].append(op_type)
    return [share for share in dealt if share]


def run_in_processes(
    op_types: Sequence[str], jobs: int, child_args: Sequence[str]
) -> list[dict[str, Any]]:
    """The JSON result of every op in ``op_types``, in their order, checked
    by ``jobs`` children each run as ``gen-ops test <child_args> --ops ...
    --format json``."""
    children = []
    for share in shares(op_types, jobs):
        command = [sys.executable, "-m", "gen_ops", "test", *child_args]
        command += ["--ops", ",".join(share), "--format", "json"]
        child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        children.append((share, child))
    found: dict[str, dict[str, Any]] = {}
    for share, child in children:
        out, err = child.communicate()
        sys.stderr.write(err)  # what the implementations printed
        try:
            report = json.loads(out)
            ops = {entry["op"]: entry for entry in report["ops"]}
        except (ValueError, KeyError, TypeError):
            tail = " ".join(err.strip().splitlines()[-3:]) or f"exit {child.returncode}"
            ops = {}
            for op_type in share:
                ops[op_type] = {
                    "op": op_type,
                    "status": "error",
                    "note": f"its test process wrote no report: {tail}",
                }
        found.update(ops)
    return [found[op_type] for op_type in op_types if op_type in found]
