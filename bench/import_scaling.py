"""How gen-ops import scales: synthetic REG_OP header sets of 100, 1,000 and
2,000 headers (three ops each, like GE's: doc blocks, type variables, named
sets, attrs of many types, splices, a wrapper, an odd form now and then).

For each size and each --jobs value: a full import into an empty directory,
then the same import again (every spec unchanged). Each is a separate
`gen-ops import` process (start-up included), timed with a wall clock, best
of --repeat. Prints a table and writes JSON (default
bench/results/import_scaling.json).

    python bench/import_scaling.py [--sizes 100,1000,2000] [--jobs 1,2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _report  # bench/ is the script's directory

ROOT = Path(__file__).resolve().parents[1]
GEN_OPS = [sys.executable, "-m", "gen_ops", "import"]

TYPES = ["DT_FLOAT", "DT_FLOAT16", "DT_BF16", "DT_INT32", "DT_INT64", "DT_INT8"]
SETS = ["NumberType", "BasicType", "RealNumberType", "IndexNumberType", "ALL"]

LICENCE = """\
/**
 * Copyright (c) synthetic header {n} of the import benchmark.
 *
 * Licensed under the Apache License, Version 2.0 (the "License"); you may
 * not use this file except in compliance with the License.
 */
"""


def synthetic_op(n: int, k: int) -> str:
    """One declaration whose features vary with n and k."""
    name = f"Synth{n:05d}Op{k}"
    kind = (n + k) % 4
    types = ", ".join(TYPES[(n + i) % len(TYPES)] for i in range(3))
    lines = [
        "/**",
        f"*@brief Synthetic op {k} of header {n}, for the import benchmark . \\n",
        "",
        "*@par Inputs:",
        "*Two inputs, including:",
        f"* @li x: A tensor. Must be one of the following types: {types.lower()},",
        "*     and it may be large.",
        "* @li bias: An optional tensor of the same type as x. \\n",
        "",
        "*@par Attributes:",
        "*@li alpha: A float. Defaults to 1e-5.",
        "*@li axes: The axes, a list of ints.",
        "*@li mode: A string. \\n",
        "",
        "*@par Outputs:",
        "*y: The result. \\n",
        "",
        "*@par Third-party framework compatibility",
        "*Compatible with the TensorFlow operator of the same name.",
        "*/",
        f"REG_OP({name})",
        '    .INPUT(x, "T")',
        '    .OPTIONAL_INPUT(bias, "T")',
    ]
    if kind == 1:
        lines.append(f"    .DYNAMIC_INPUT(xs, TensorType::{SETS[n % len(SETS)]}())")
    if kind == 2:
        lines.append("    .INPUT(index, TensorType({BasicType(), DT_BOOL}))")
    lines += [
        '    .OUTPUT(y, "T")',
        f"    .OUTPUT(mask, TensorType({{{types}}}))",
        "    .ATTR(alpha, Float, 1e-5f)",
        "    .ATTR(axes, ListInt, {0, 1, 2, 3})",
        '    .ATTR(mode, String, "fast")',
        "    .ATTR(keep_dims, Bool, false)",
        "    .ATTR(dtype, Int, DT_INT32)",
        "    .REQUIRED_ATTR(num, Int)",
        f"    .DATATYPE(T, TensorType({{{types}, \\",
        "                             DT_DOUBLE}))",
        f"    .OP_END_FACTORY_REG({name})",
        "",
    ]
    if kind == 3:
        lines = ["#ifndef BUILD_LITE"] + lines + ["#endif  // BUILD_LITE", ""]
    return "\n".join(lines)


def synthetic_header(n: int) -> str:
    guard = f"OPS_SYNTH_{n:05d}_H_"
    body = "\n".join(synthetic_op(n, k) for k in range(3))
    return (
        LICENCE.format(n=n)
        + f"#ifndef {guard}\n#define {guard}\n\n"
        + '#include "graph/operator_reg.h"\n\nnamespace ge {\n'
        + body
        + "}  // namespace ge\n\n"
        + f"#endif  // {guard}\n"
    )


def run(args: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        GEN_OPS + args, cwd=ROOT, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):  # warnings (odd forms) are expected
        raise SystemExit(
            f"gen-ops import failed ({result.returncode}):\n{result.stderr}"
        )
    return elapsed


def measure(size: int, jobs: int, repeat: int, work: Path) -> dict[str, float | int]:
    headers = work / f"headers_{size}"
    if not headers.exists():
        headers.mkdir()
        for n in range(size):
            (headers / f"synth_{n:05d}_ops.h").write_text(synthetic_header(n))
    megabytes = sum(p.stat().st_size for p in headers.iterdir()) / 1e6
    full, again = [], []
    specs = 0
    for attempt in range(repeat):
        out = work / f"out_{size}_{jobs}_{attempt}"
        common = [str(headers), "--module-per-header", "--out", str(out), "-q"]
        common += ["--jobs", str(jobs)]
        full.append(run(common))
        again.append(run(common))
        specs = sum(1 for _ in out.rglob("*.yaml"))
        shutil.rmtree(out)
    return {
        "headers": size,
        "megabytes": round(megabytes, 2),
        "jobs": jobs,
        "specs": specs,
        "full_s": min(full),
        "unchanged_s": min(again),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,2000")
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/import_scaling.json"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    jobs = [int(j) for j in args.jobs.split(",")]
    rows = []
    print(
        f"{'headers':>8} {'MB':>6} {'jobs':>4} {'specs':>6} {'full':>9} {'unchanged':>10}"
    )
    with tempfile.TemporaryDirectory(prefix="import_scaling_") as tmp:
        for size in sizes:
            for job in jobs:
                row = measure(size, job, args.repeat, Path(tmp))
                rows.append(row)
                print(
                    f"{row['headers']:>8} {row['megabytes']:>6} {row['jobs']:>4} "
                    f"{row['specs']:>6} {row['full_s']:>7.2f} s {row['unchanged_s']:>8.2f} s",
                    flush=True,
                )
    target = next((r for r in rows if r["headers"] == 1000 and r["jobs"] == 2), None)
    result = {
        **_report.header("import_scaling"),
        "repeat": args.repeat,
        "rows": rows,
        "targets": {"headers_1000_jobs_2_full_s": 10.0},
        "met": None if target is None else target["full_s"] < 10.0,
    }
    _report.write(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
