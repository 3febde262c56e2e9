"""How gen-ops scales: synthetic spec sets of 100, 1,000 and 5,000 ops.

For each size: a full run into an empty output directory, then a second run
with nothing changed, then a run after one spec changed (which renders only
that op: Note [Render cache] in gen_ops/render_cache.py). Each is a separate
`gen-ops` process (start-up included), timed with a wall clock and in CPU
seconds (user + system, of the process: less sensitive to other jobs on the
machine), best of --repeat. Prints a table and writes JSON (default
bench/results/gen_scaling.json).

Every attempt renders into a directory of its own, and none is deleted
before the script ends: on a filesystem without a journal (this machine's
ext4), ext4 skips inodes freed in the last minute when it places a new
file, so a render that follows the deletion of 19,000 files creates each
of its own many times slower (docs/performance.md), and the figures would
measure the script's own clean-up.

    python bench/gen_scaling.py [--sizes 100,1000,5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _report  # bench/ is the script's directory

ROOT = Path(__file__).resolve().parents[1]
GEN_OPS = [sys.executable, "-m", "gen_ops"]

DTYPES = ["float32", "float16", "int32", "int64", "bfloat16"]


def synthetic_spec(i: int) -> str:
    """A spec whose features vary with i: attrs of several types, optional and
    dynamic inputs, dynamic outputs, infer_meta and impl in a mix."""
    kind = i % 5
    lines = [
        f"op: Synth{i:05d}Op",
        f"module: synth{i % 7}",
        "doc: |",
        f"  Synthetic op number {i}, for the scaling benchmark.",
        "",
        "  It has a multi-line description that is rendered into every target.",
        "dtypes:",
        f"  T: [{DTYPES[i % 5]}, {DTYPES[(i + 1) % 5]}]",
        "inputs:",
        "  - {name: x, dtype: T, doc: The first input.}",
    ]
    if kind in (1, 3):
        lines.append("  - {name: bias, dtype: T, optional: true, doc: Optional.}")
    if kind == 2:
        lines.append("  - {name: xs, dtype: T, dynamic: true, doc: A list.}")
    lines += ["outputs:", "  - {name: y, dtype: T, doc: The result.}"]
    if kind == 4:
        lines.append(
            "  - {name: parts, dtype: T, dynamic: true, count: attr(n), doc: Parts.}"
        )
    lines += [
        "attrs:",
        "  - {name: alpha, type: float, default: 1e-5, doc: A float.}",
        "  - {name: axes, type: list_int, default: [0, 1], doc: Some axes.}",
        "  - {name: mode, type: str, default: fast, doc: A mode.}",
        "  - {name: n, type: int, default: 2, doc: A count.}",
    ]
    if kind == 2:
        lines.append("  - {name: N, type: int, derive: len(xs), doc: Derived.}")
    if kind != 4:
        lines += ["infer_meta:", "  y:", "    shape: same_as(x)", "    dtype: x"]
    if kind in (0, 3):
        lines += [
            "impl:",
            "  capabilities: [compile, declare_launch_args]",
            "  kernel: synth_kernel",
            "  launch_args:",
            "    - input: x",
            "    - output: y",
            "    - attr: alpha",
        ]
    elif kind == 1:
        lines += ["impl:", "  capabilities: [execute]"]
    return "\n".join(lines) + "\n"


def run(args: list[str]) -> tuple[float, float, float]:
    """Wall-clock, CPU and user-mode CPU seconds of one gen-ops process."""
    before = os.times()
    started = time.perf_counter()
    result = subprocess.run(
        GEN_OPS + args,
        cwd=ROOT,
        env=_report.CHILD_ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    after = os.times()
    if result.returncode != 0:
        raise SystemExit(f"gen-ops failed ({result.returncode}):\n{result.stderr}")
    user = after.children_user - before.children_user
    return elapsed, user + after.children_system - before.children_system, user


def measure(size: int, repeat: int, work: Path) -> dict[str, float | int]:
    specs = work / f"specs_{size}"
    specs.mkdir()
    for i in range(size):
        (specs / f"synth_{i:05d}.yaml").write_text(synthetic_spec(i))
    common = ["--specs", str(specs), "--no-scaffold", "-q"]
    full, again, one = [], [], []
    files = 0
    for attempt in range(repeat):
        out = work / f"out_{size}_{attempt}"
        full.append(run(common + ["--out", str(out)]))
        again.append(run(common + ["--out", str(out)]))
        target = specs / f"synth_{size // 2:05d}.yaml"
        original = target.read_text()
        target.write_text(
            original.replace("Synthetic op number", f"Changed ({attempt}) op number")
        )
        one.append(run(common + ["--out", str(out)]))
        target.write_text(original)
        files = sum(1 for p in out.rglob("*") if p.is_file())
    return {
        "ops": size,
        "files": files,
        "full_s": min(w for w, _, _ in full),
        "full_cpu_s": min(c for _, c, _ in full),
        "full_user_s": min(u for _, _, u in full),
        "no_change_s": min(w for w, _, _ in again),
        "no_change_cpu_s": min(c for _, c, _ in again),
        "one_changed_s": min(w for w, _, _ in one),
        "one_changed_cpu_s": min(c for _, c, _ in one),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/gen_scaling.json"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="gen_scaling_") as tmp:
        for size in sizes:
            rows.append(measure(size, args.repeat, Path(tmp)))
            row = rows[-1]
            print(
                f"{row['ops']:>6} ops  {row['files']:>6} files  "
                f"full {row['full_s']:7.3f} s ({row['full_cpu_s']:.3f} CPU, "
                f"{row['full_user_s']:.3f} user)  "
                f"no-change {row['no_change_s']:6.3f} s "
                f"({row['no_change_cpu_s']:.3f} CPU)  "
                f"one changed {row['one_changed_s']:6.3f} s "
                f"({row['one_changed_cpu_s']:.3f} CPU)",
                flush=True,
            )
    by_size = {r["ops"]: r for r in rows}
    ratio = user_ratio = None
    if 1000 in by_size and 5000 in by_size:
        ratio = by_size[5000]["full_s"] / by_size[1000]["full_s"]
        user_ratio = by_size[5000]["full_user_s"] / by_size[1000]["full_user_s"]
        print(
            f"5,000-op full run / 1,000-op full run = {ratio:.2f} "
            f"(target: at most 6); in user-mode CPU seconds {user_ratio:.2f} "
            "(the rest is the kernel creating files)"
        )
    if 5000 in by_size:
        print(
            f"one spec changed at 5,000 ops: {by_size[5000]['one_changed_s']:.3f} s "
            "(target: under 1 s)"
        )
    print()
    print("| ops | files | full render | no change | one spec changed |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['ops']:,} | {r['files']:,} | {r['full_s']:.2f} s | "
            f"{r['no_change_s']:.2f} s | {r['one_changed_s']:.2f} s |"
        )
    result = {
        **_report.header("gen_scaling"),
        "repeat": args.repeat,
        "rows": rows,
        "ratio_5000_to_1000": ratio,
        "user_ratio_5000_to_1000": user_ratio,
        "targets": {
            "full_1000_s": 5.0,
            "no_change_s": 0.5,
            "one_changed_5000_s": 1.0,
            "ratio_max": 6.0,
        },
    }
    _report.write(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
