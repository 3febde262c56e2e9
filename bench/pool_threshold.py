"""When the worker pool pays: one launch of B blocks of the sample add kernel
(1,024 floats a block), inline on the launching thread against on the pool,
timed in alternating turns in one process (so a disturbance of a shared
machine falls on both), for B from 1 to 1,024.

Each sample is a native replay of a table of 16 launches of B blocks over
the same buffers; "inline" sets the pool's threshold above B
(``native.set_min_blocks``); "pool" below it with the backoff off (every
launch on the pool); "backoff" below it with the backoff on (Note [Pool
backoff] in native.c, the default). Prints the median per launch against
inline and writes JSON (bench/results/pool_threshold.json) with the
process's CPU seconds per wall second too. The default threshold (16 blocks,
Note [Worker pool]) was chosen from its runs (docs/performance.md).

    python bench/pool_threshold.py [--blocks 1,2,4,...] [--budget 2]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import time
from pathlib import Path

import _report  # bench/ is the script's directory
import numpy as np

from ge.device import native, rt
from ge.device.kernels import load_kernel
from ge.device.native import Task, library

ROOT = Path(__file__).resolve().parents[1]
BLOCK = 1024
LAUNCHES = 16


def table(blocks: int) -> tuple[object, object, list[object]]:
    """A replay table of LAUNCHES launches (c <- a + b), its buffers kept."""
    source = (ROOT / "examples/annotated_args_refresh/add_kernel.c").read_text()
    kernel = load_kernel(source, "add_custom", name="add_kernel")
    n = blocks * BLOCK
    buffers = [rt.malloc(4 * n) for _ in range(3)]
    ones = np.ones(n, np.float32)
    for addr in buffers[:2]:
        ctypes.memmove(addr, ones.ctypes.data, 4 * n)
    slots = (ctypes.c_uint64 * (3 * LAUNCHES))()
    tasks = (Task * LAUNCHES)()
    for t in range(LAUNCHES):
        slots[3 * t : 3 * t + 3] = buffers
        tasks[t].fn = kernel.address
        tasks[t].args = ctypes.addressof(slots) + 24 * t
        tasks[t].block_dim = blocks
    return slots, tasks, buffers


def measure(blocks: int, budget: float) -> dict[str, float]:
    slots, tasks, buffers = table(blocks)
    replay = library().ge_replay
    address = ctypes.addressof(tasks)  # type: ignore[arg-type]
    modes = ("inline", "pool", "backoff")
    times: dict[str, list[float]] = {m: [] for m in modes}
    cpu: dict[str, list[float]] = {m: [] for m in modes}
    thresholds = {"inline": blocks + 1, "pool": 2, "backoff": 2}
    start = time.perf_counter()
    rounds = 0
    while time.perf_counter() - start < budget or rounds < 10:
        rounds += 1
        for mode in modes[rounds % 3 :] + modes[: rounds % 3]:
            native.set_min_blocks(thresholds[mode])
            native.set_backoff(mode == "backoff")
            replay(address, LAUNCHES)  # warm
            for _ in range(4):
                c0, t0 = sum(os.times()[:2]), time.perf_counter()
                replay(address, LAUNCHES)
                wall = time.perf_counter() - t0
                times[mode].append(wall / LAUNCHES)
                cpu[mode].append((sum(os.times()[:2]) - c0) / wall)
    del slots, buffers
    row: dict[str, float] = {"blocks": blocks}
    for mode in modes:
        row[f"{mode}_us"] = statistics.median(times[mode]) * 1e6
        row[f"cpu_per_wall_{mode}"] = statistics.mean(cpu[mode])
    row["pool_vs_inline"] = row["pool_us"] / row["inline_us"]
    row["backoff_vs_inline"] = row["backoff_us"] / row["inline_us"]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="1,2,4,8,16,32,64,128,256,512,1024")
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/pool_threshold.json"
    )
    args = parser.parse_args()
    before, backoff = native.get_min_blocks(), native.backoff()
    rows = []
    print(f"threads {native.threads()}, load average {os.getloadavg()[0]:.1f}")
    print(
        f"{'blocks':>7} {'inline us':>10} {'pool us':>10} {'backoff us':>11}"
        f" {'pool/inline':>12} {'backoff/inline':>15}"
    )
    try:
        for blocks in map(int, args.blocks.split(",")):
            row = measure(blocks, args.budget)
            rows.append(row)
            print(
                f"{blocks:>7} {row['inline_us']:>10.2f} {row['pool_us']:>10.2f}"
                f" {row['backoff_us']:>11.2f} {row['pool_vs_inline']:>11.2f}x"
                f" {row['backoff_vs_inline']:>14.2f}x"
            )
    finally:
        native.set_min_blocks(before)
        native.set_backoff(backoff)
    result = _report.header("pool_threshold")
    result.update(threads=native.threads(), load_average=os.getloadavg(), rows=rows)
    _report.write(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
