"""How gen-ops scales with the size of one literal: a spec whose list_int
default has N items (with a list_str, a nested list and a literal shape of
N/10 items beside it), for N = 1,000, 10,000 and 100,000.

Each run is a separate `gen-ops` process into an empty directory (start-up
included), best of --repeat. Prints the table and the ratio of the largest
to the middle size (linear time gives about 10x less the fixed start-up),
and writes JSON (bench/results/large_literals.json).

    python bench/large_literals.py [--sizes 1000,10000,100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _report  # bench/ is the script's directory

ROOT = Path(__file__).resolve().parents[1]


def spec(n: int) -> str:
    return (
        "op: BigDefault\n"
        "inputs:\n  - {name: x, dtype: float32}\n"
        "outputs:\n  - {name: y, dtype: float32}\n"
        "attrs:\n"
        f"  - {{name: table, type: list_int, default: [{','.join(['7'] * n)}]}}\n"
        "  - name: words\n    type: list_str\n"
        f"    default: [{', '.join(f'w{i}' for i in range(n // 10))}]\n"
        f"  - {{name: nested, type: list_list_int, default: [[{','.join(['1'] * (n // 10))}]]}}\n"
        "infer_meta:\n"
        f"  y: {{shape: [{', '.join(['2'] * (n // 10))}], dtype: x}}\n"
        "impl:\n  capabilities: [execute]\n"
    )


def run_once(n: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        specs = Path(tmp) / "specs"
        specs.mkdir()
        text = spec(n)
        (specs / "big.yaml").write_text(text)
        command = [sys.executable, "-m", "gen_ops", "--specs", str(specs)]
        command += ["--out", str(Path(tmp) / "out"), "--no-scaffold", "-q"]
        start = time.perf_counter()
        subprocess.run(command, check=True)
        return time.perf_counter() - start, len(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/large_literals.json"
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    rows = []
    print(f"{'items':>8} {'spec bytes':>11} {'best s':>8}")
    for n in sizes:
        best, size = min(run_once(n) for _ in range(args.repeat))
        rows.append({"items": n, "spec_bytes": size, "best_s": best})
        print(f"{n:>8} {size:>11} {best:>8.2f}", flush=True)
    ratios = {}
    if len(rows) >= 2:
        ratios[f"{rows[-1]['items']}_vs_{rows[-2]['items']}"] = (
            rows[-1]["best_s"] / rows[-2]["best_s"]
        )
        for name, value in ratios.items():
            print(f"{name}: {value:.2f}x")
    _report.write(
        args.json, {**_report.header("large_literals"), "rows": rows, "ratios": ratios}
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
