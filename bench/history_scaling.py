"""How gen-ops compat scales: synthetic specs against a synthetic registry of
10 releases (default 5,000 ops each).

The specs are gen_scaling's synthetic ones. The registry is written from
their own history export, then varied release by release so that the check
has real work: in the "typical" registry, per release a fifth of the ops
have another doc, a tenth lack the last attr (a new optional attr now), and
one op in a hundred had an input the specs dropped (a break); in the
"every entry differs" registry, every op of every release has a doc of its
own, so no entry is shared and every one is read, checked and compared.

Measured, best of --repeat, in wall-clock and CPU seconds: in one process,
the phases of the check (the registry's index and metadata, then comparing
every op with every release of the window: reading each operators.json,
checking the entries, diffing and grouping), and spec loading for
reference; and a whole `gen-ops compat` process (start-up and spec loading
included), cold (``--no-cache``: every spec loaded) and warm (the spec
cache holds every spec's model, as after any earlier run on the same specs:
Note [Spec cache]). Prints a table and writes JSON (default
bench/results/history_scaling.json).

    python bench/history_scaling.py [--sizes 1000,5000] [--releases 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _report  # bench/ is the script's directory
from gen_scaling import synthetic_spec

from gen_ops.base.diagnostics import Sink
from gen_ops.emit.literals import json_text
from gen_ops.history import compat, registry, window
from gen_ops.history.records import of_spec
from gen_ops.pipeline import discover, load_and_check
from gen_ops.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[1]
GEN_OPS = [sys.executable, "-m", "gen_ops"]


def load(specs: Path) -> list[OpSpec]:
    sink = Sink()
    ops = load_and_check(discover([specs], sink), sink)
    if sink.has_errors:
        raise SystemExit("synthetic specs do not validate")
    return ops


def vary(entry: dict[str, Any], i: int, k: int, every: bool) -> dict[str, Any]:
    """Op ``i`` as release ``k`` recorded it."""
    entry = copy.deepcopy(entry)
    if every or (i + k) % 5 == 0:
        entry["doc"] = f"Synthetic op number {i} as release {k} documented it."
    if not every and i % 10 == k and entry["attrs"]:
        entry["attrs"].pop()
    if not every and i % 100 == k:
        entry["inputs"].append({"name": "legacy", "type": "OPTIONAL_INPUT"})
    return entry


def write_registry(root: Path, ops: list[OpSpec], releases: int, every: bool) -> None:
    entries = [of_spec(op)[0] for op in ops]
    listed = []
    for k in range(releases):
        version = f"1.{k}.0"
        date = f"2026-{k + 1:02d}-01"
        listed.append({"release_version": version, "release_date": date})
        base = root / "registry" / version
        base.mkdir(parents=True)
        (base / "metadata.json").write_text(json_text({"release_version": version}))
        operators = [vary(e, i, k, every) for i, e in enumerate(entries)]
        (base / "operators.json").write_text(json_text({"operators": operators}))
    (root / "index.json").write_text(
        json_text({"version": "1.0.0", "releases": listed})
    )


def check_once(root: Path, ops: list[OpSpec], anchor: str) -> dict[str, float | int]:
    cpu = time.process_time()
    started = time.perf_counter()
    sink = Sink()
    index = registry.read(root, sink)
    assert index is not None
    chosen = window.anchored(index, anchor, window.DEFAULT_DAYS, sink)
    assert chosen is not None
    read_s = time.perf_counter() - started
    report = compat.check(index, chosen.releases, ops, sink)
    compat.emit(report, sink)
    total = time.perf_counter() - started
    return {
        "index_s": read_s,
        "check_s": total - read_s,
        "in_process_s": total,
        "in_process_cpu_s": time.process_time() - cpu,
        "releases": len(chosen.releases),
        "findings": len(report.findings),
        "breaking": len(report.unintended),
    }


def command(specs: Path, root: Path, anchor: str, cold: bool) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one gen-ops compat process;
    ``cold``: with --no-cache."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        GEN_OPS + ["compat", "--specs", str(specs), "--registry", str(root),
                   "--release-version", anchor, "-q"]
        + (["--no-cache"] if cold else []),
        capture_output=True, text=True, check=False, env=_report.CHILD_ENV,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in (0, 1):
        raise SystemExit(f"gen-ops compat failed:\n{result.stderr[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu


def measure(size: int, releases: int, repeat: int, work: Path) -> list[dict[str, Any]]:
    specs = work / f"specs_{size}"
    specs.mkdir()
    for i in range(size):
        (specs / f"synth_{i:05d}.yaml").write_text(synthetic_spec(i))
    loads = []
    for _ in range(repeat):
        started = time.perf_counter()
        ops = load(specs)
        loads.append(time.perf_counter() - started)
    rows = []
    anchor = f"1.{releases - 1}.0"
    for every in (False, True):
        root = work / f"reg_{size}_{'every' if every else 'typical'}"
        write_registry(root, ops, releases, every)
        runs = [check_once(root, ops, anchor) for _ in range(repeat)]
        best = min(runs, key=lambda r: r["in_process_s"])
        wall, cpu = min(command(specs, root, anchor, True) for _ in range(repeat))
        command(specs, root, anchor, False)  # fills the spec cache
        warm, warm_cpu = min(command(specs, root, anchor, False) for _ in range(repeat))
        size_mb = sum(p.stat().st_size for p in root.rglob("*.json")) / 1e6
        rows.append(
            {
                "ops": size,
                "registry": "every entry differs" if every else "typical",
                "registry_mb": round(size_mb, 1),
                **best,
                "spec_load_s": min(loads),
                "command_s": wall,
                "command_cpu_s": cpu,
                "warm_command_s": warm,
                "warm_command_cpu_s": warm_cpu,
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--releases", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/history_scaling.json"
    )
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    print(  # check: in one process; command: a whole gen-ops compat process
        f"{'ops':>6} {'registry':<20} {'MB':>6} {'rel':>4} {'findings':>8} "
        f"{'index':>7} {'check':>7} {'in-proc':>8} {'cpu':>7} {'specs':>7} "
        f"{'cold':>7} {'cpu':>7} {'warm':>7} {'cpu':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="history_scaling_") as tmp:
        os.environ["GEN_OPS_CACHE_DIR"] = str(Path(tmp) / "cache")
        for size in (int(s) for s in args.sizes.split(",")):
            for row in measure(size, args.releases, args.repeat, Path(tmp)):
                rows.append(row)
                print(
                    f"{row['ops']:>6} {row['registry']:<20} {row['registry_mb']:>6} "
                    f"{row['releases']:>4} {row['findings']:>8} "
                    f"{row['index_s']:>6.2f}s {row['check_s']:>6.2f}s "
                    f"{row['in_process_s']:>7.2f}s {row['in_process_cpu_s']:>6.2f}s "
                    f"{row['spec_load_s']:>6.2f}s {row['command_s']:>6.2f}s "
                    f"{row['command_cpu_s']:>6.2f}s {row['warm_command_s']:>6.2f}s "
                    f"{row['warm_command_cpu_s']:>6.2f}s",
                    flush=True,
                )
    target: dict[str, Any] = {"ops": 5000, "releases": 10, "limit_s": 5.0}
    at_target = [
        r for r in rows if r["ops"] == 5000 and r["releases"] == args.releases == 10
    ]
    if at_target:
        target["check_s"] = max(r["in_process_s"] for r in at_target)
        target["command_s"] = max(r["command_s"] for r in at_target)
        target["warm_command_s"] = max(r["warm_command_s"] for r in at_target)
        target["met"] = target["command_s"] < target["limit_s"]
        target["met_warm"] = target["warm_command_s"] < target["limit_s"]
        print(
            f"target: 5,000 ops x 10 releases under 5 s: the check "
            f"{target['check_s']:.2f} s, the whole gen-ops compat command "
            f"(worst registry) cold {target['command_s']:.2f} s -> "
            + ("met" if target["met"] else "NOT met")
            + f", warm {target['warm_command_s']:.2f} s -> "
            + ("met" if target["met_warm"] else "NOT met")
        )
    result = {
        **_report.header("history_scaling"),
        "repeat": args.repeat,
        "releases": args.releases,
        "rows": rows,
        "target": target,
        # Other jobs share the machine: the load average when the runs ended.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    _report.write(args.json, result)
    print(json.dumps({"target": result["target"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
