"""Where the foreign-library row's time goes: the same add loop launched from
one prebuilt task table over the same buffers, three ways.

- annotated: add_kernel.c as ge's toolchain builds it (the annotated op's
  kernel), block_dim N / 1024;
- foreign: the TileLang stand-in's library (examples/tilelang_kernel) as it
  builds it, loops on 64-byte lines, called through the adapter kernel;
- foreign -O2: the same C source built with plain ``-shared -fPIC -O2``
  (gcc places the loop where it falls), through the same adapter.

Each table is a chain of K launches over N float32 elements ping-ponging
between two buffers, like the compiled graph's; no runtime, no Python per
launch (ge_replay). Prints the median per table, the per-node time, the
ratio to annotated and, when objdump is on PATH, where each hot loop starts
(its offset in the 64-byte line).

    python bench/foreign_placement.py [--k 128] [--n 4096] [--rounds 5]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ge.device import foreign
from ge.device.kernels import build_kernel, load_kernel
from ge.device.native import Task, library

ROOT = Path(__file__).resolve().parents[1]
KERNEL_C = ROOT / "examples/annotated_args_refresh/add_kernel.c"
STAND_IN = ROOT / "examples/tilelang_kernel/add_custom_kernel.py"
BLOCK = 1024


def stand_in_source(n: int) -> str:
    spec = importlib.util.spec_from_file_location("add_custom_kernel", STAND_IN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.SOURCE.format(n=n, block=module.BLOCK_SIZE))


def build_plain(n: int, out: Path) -> None:
    src = out.with_suffix(".c")
    src.write_text(stand_in_source(n), encoding="utf-8")
    cc = os.environ.get("CC", "gcc")
    subprocess.run(
        [cc, "-shared", "-fPIC", "-O2", str(src), "-o", str(out)], check=True
    )


def loop_start(binary: Path, function: str) -> str:
    """The address of the first movss in ``function`` and its offset in
    the 64-byte line, from objdump; '?' without it."""
    if shutil.which("objdump") is None:
        return "?"
    text = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(binary)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    body = text.split(f"<{function}>:", 1)[-1].split("\n\n", 1)[0]
    match = re.search(r"^\s*([0-9a-f]+):\s+movss", body, re.M)
    if match is None:
        return "?"
    address = int(match.group(1), 16)
    return f"0x{address:x} (line offset {address % 64})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=128)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    k, n = args.k, args.n
    rng = np.random.default_rng(0)
    x, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    y, z = np.zeros(n, np.float32), np.zeros(n, np.float32)
    replay = library().ge_replay
    with tempfile.TemporaryDirectory() as tmp:
        aligned, plain, ours = (Path(tmp) / f for f in ("al.so", "plain.so", "k.so"))
        subprocess.run(
            [sys.executable, str(STAND_IN), str(n), str(aligned)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        build_plain(n, plain)
        ours.write_bytes(build_kernel(KERNEL_C, name="add_kernel"))
        where = {
            "annotated": loop_start(ours, "add_custom"),
            "foreign": loop_start(aligned, "call"),
            "foreign -O2": loop_start(plain, "call"),
        }
        kernel = load_kernel(KERNEL_C, "add_custom", name="add_kernel")
        adapter = foreign.adapter_kernel("iio")
        calls = {
            "foreign": foreign.load_library(aligned.read_bytes()).function("call"),
            "foreign -O2": foreign.load_library(plain.read_bytes()).function("call"),
        }
    tables = {}
    for label in ("annotated", "foreign", "foreign -O2"):
        rows = []
        for t in range(k):
            src = x if t == 0 else (y if t % 2 else z)
            dst = z if t % 2 else y
            pointers = [src.ctypes.data, b.ctypes.data, dst.ctypes.data]
            rows.append(
                pointers if label == "annotated" else [calls[label], *pointers, 0]
            )
        slots = (ctypes.c_uint64 * sum(map(len, rows)))(*[v for r in rows for v in r])
        tasks = (Task * k)()
        at = 0
        for t, row in enumerate(rows):
            tasks[t].fn = kernel.address if label == "annotated" else adapter.address
            tasks[t].args = ctypes.addressof(slots) + 8 * at
            tasks[t].block_dim = n // BLOCK if label == "annotated" else 1
            at += len(row)
        tables[label] = (slots, tasks)
        replay(ctypes.addressof(tasks), k)
        expected = x + k * b  # float32 rounding aside
        result = y if k % 2 else z
        if not np.allclose(result, expected, rtol=1e-4, atol=1e-3):
            raise SystemExit(f"{label}: wrong result")
    medians: dict[str, list[float]] = {label: [] for label in tables}
    for _ in range(args.rounds):  # interleaved, so a disturbance hits all three
        for label, (_, tasks) in tables.items():
            address = ctypes.addressof(tasks)
            times = []
            for _ in range(max(20, 20000 // k)):
                t0 = time.perf_counter()
                replay(address, k)
                times.append(time.perf_counter() - t0)
            medians[label].append(statistics.median(times))
    base = statistics.median(medians["annotated"])
    print(f"K={k} N={n}, median of {args.rounds} interleaved rounds")
    print(f"{'path':<12} {'us/table':>9} {'ns/node':>8} {'vs annotated':>13}  hot loop")
    for label, values in medians.items():
        m = statistics.median(values)
        print(
            f"{label:<12} {m * 1e6:>9.1f} {m * 1e9 / k:>8.0f} {m / base:>12.2f}x"
            f"  {where[label]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
