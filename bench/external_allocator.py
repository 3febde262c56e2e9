"""What an external allocator costs a run.

A graph of two math-library Adds ((x + y) + y, one intermediate in the
arena) over N float32 elements runs through
Session.run_graph_with_stream_async on one stream:

- default: the session's own memory, caller-given outputs or new ones;
- range, caller outputs: a RangeAllocator registered for the stream (the
  run state comes from it once and is kept), caller-given outputs;
- range, new outputs: the same, each run's output a new block of the range
  (handed back at the next run, when the previous output is dropped);
- callbacks, new outputs: a Python Allocator subclass handing out rt.malloc
  blocks (each output one malloc and one free call).

Prints median and p95 microseconds per run and writes JSON
(bench/results/external_allocator.json).

    python bench/external_allocator.py [--runs 5000] [--n 1024]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import _report  # bench/ is the script's directory
import numpy as np

from ge.allocator import Allocator, MemBlock, RangeAllocator
from ge.custom_op import bootstrap
from ge.device import rt
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import Tensor
from ge.session import Session

ROOT = Path(__file__).resolve().parents[1]


class RtAllocator(Allocator):
    def malloc(self, size: int) -> MemBlock:
        return MemBlock(rt.malloc(size), size)

    def free(self, block: MemBlock) -> None:
        rt.free(block.addr)


def timed(call: Callable[[], object], runs: int) -> tuple[float, float]:
    """(median, p95) microseconds per call."""
    for _ in range(min(200, runs)):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        call()
        times.append((time.perf_counter_ns() - start) / 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95)]


def measure(n: int, runs: int) -> list[dict[str, object]]:
    """One row per case: N, median and p95 microseconds per run."""
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, dtype=np.float32)
    builder = GraphBuilder("bench_alloc")
    x = builder.create_input(0, shape=[n])
    y = builder.create_input(1, shape=[n])
    session = Session({})
    session.add_graph(1, builder.build_and_reset([(x + y) + y]))
    stream = rt.create_stream()
    inputs = [Tensor(a), Tensor(b)]
    out = [Tensor(np.zeros(n, np.float32))]
    size = 1 << 20
    base = rt.malloc(size)
    cases: list[tuple[str, Allocator | None, bool]] = [
        ("default, caller outputs", None, False),
        ("default, new outputs", None, True),
        ("range, caller outputs", RangeAllocator(base, size), False),
        ("range, new outputs", RangeAllocator(base, size), True),
        ("callbacks, new outputs", RtAllocator(), True),
    ]
    rows: list[dict[str, object]] = []
    for name, allocator, new in cases:
        if allocator is not None:
            session.register_external_allocator(stream, allocator)

        def run(new: bool = new) -> list[Tensor]:
            if new:
                return session.run_graph_with_stream_async(1, stream, inputs)
            return session.run_graph_with_stream_async(1, stream, inputs, out)

        assert np.array_equal(run()[0].numpy(), a + 2 * b), name
        median, p95 = timed(run, runs)
        if allocator is not None:
            session.unregister_external_allocator(stream)
        rows.append({"case": name, "n": n, "median_us": median, "p95_us": p95})
    session.close()
    rt.free(base)
    rt.destroy_stream(stream)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/external_allocator.json"
    )
    args = parser.parse_args()
    bootstrap.load_custom_op_plugins(str(ROOT / "ops" / "math"))
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    rows = measure(args.n, args.runs)
    print(f"{'case':<26}{'N':>8}{'median us':>12}{'p95 us':>10}")
    for row in rows:
        print(
            f"{row['case']:<26}{row['n']:>8}{row['median_us']:>12.2f}"
            f"{row['p95_us']:>10.2f}"
        )
    _report.write(args.json, {**_report.header("external_allocator"), "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
