"""Throughput of one compiled graph (or one loaded model) run from 1, 2 and 4
threads at once, against a per-graph lock, in one run on one machine.

Graphs are chains of K additions over N float32 elements (annotated-args
nodes, execute nodes, or both alternating); every thread has its own input
and output device buffers and calls run_graph_with_stream_async (or
Model.execute) in a loop for a fixed time. Modes, measured side by side:

- pool: the runtime as it is (Note [Concurrent runs] in
  ge/engine/compiled.py): concurrent runs take their own run state;
- lock: the same graph with every run behind one lock, the alternative
  design (a per-graph lock), measured here as the baseline.

Prints runs per second and the speedup over one thread of the same mode,
checks every thread's last result against numpy, and writes JSON
(bench/results/run_threads.json).

    python bench/run_threads.py [--quick] [--ns 1024,262144] [--threads 1,2,4]
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import _report  # bench/ is the script's directory
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples/annotated_args_refresh"
os.environ.setdefault("ASCEND_CUSTOM_OPP_PATH", str(EXAMPLE / "add_ops.py"))

from ge.es import GraphBuilder  # noqa: E402
from ge.es.custom import AnnotatedAddCustom, NoRefreshAddCustom  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Graph, Placement, Tensor  # noqa: E402
from ge.offline import compile_model  # noqa: E402
from ge.offline.model import load_model_bytes  # noqa: E402
from ge.session import Session  # noqa: E402

K = 8


def chain(kinds: str, n: int) -> Graph:
    builder = GraphBuilder(f"threads_{kinds}_{n}")
    a = builder.create_input(0, data_type=DataType.DT_FLOAT, shape=[n])
    b = builder.create_input(1, data_type=DataType.DT_FLOAT, shape=[n])
    y = a
    for kind in kinds:
        y = (AnnotatedAddCustom if kind == "a" else NoRefreshAddCustom)(y, b)
    builder.set_graph_output(y, 0)
    return builder.build_and_reset()


def device(values: np.ndarray) -> Tensor:
    return Tensor(values, placement=Placement.PLACEMENT_DEVICE)


Runner = Callable[[list[Tensor], list[Tensor]], None]


def measure(
    run: Runner, threads: int, n: int, seconds: float, lock: threading.Lock | None
) -> tuple[float, bool]:
    """Runs per second over all threads, and whether every result was right."""
    stop = threading.Event()
    counts = [0] * threads
    correct = [False] * threads
    barrier = threading.Barrier(threads + 1)

    def worker(index: int) -> None:
        rng = np.random.default_rng(index)
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        ins, outs = [device(a), device(b)], [device(np.zeros(n, np.float32))]
        barrier.wait()
        done = 0
        while not stop.is_set():
            if lock is None:
                run(ins, outs)
            else:
                with lock:
                    run(ins, outs)
            done += 1
        counts[index] = done
        expected = a
        for _ in range(K):
            expected = expected + b
        correct[index] = bool(np.array_equal(outs[0].numpy(), expected))

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in workers:
        thread.join()
    elapsed = time.perf_counter() - start
    return sum(counts) / elapsed, all(correct)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.3 s per point")
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--ns", default="1024,262144")
    parser.add_argument("--threads", default="1,2,4")
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/run_threads.json"
    )
    args = parser.parse_args()
    seconds = 0.3 if args.quick else args.seconds
    ns = [int(n) for n in args.ns.split(",")]
    counts = [int(t) for t in args.threads.split(",")]
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    session = Session()
    header = (
        f"{'graph':<10} {'N':>8} {'mode':<5} {'threads':>7} {'runs/s':>10} "
        f"{'vs 1 thread':>11} {'correct':>8}"
    )
    print(f"K={K} additions per graph; {os.cpu_count()} cores\n{header}")
    print("-" * len(header))
    rows = []
    graph_id = 0
    for n in ns:
        for label, kinds in (
            ("annotated", "a" * K),
            ("execute", "e" * K),
            ("mixed", "ae" * (K // 2)),
            ("model", "a" * K),
        ):
            graph_id += 1
            if label == "model":
                model = load_model_bytes(compile_model(chain(kinds, n)))

                def run(ins: list[Tensor], outs: list[Tensor], model=model) -> None:  # type: ignore[no-untyped-def]
                    model.execute(ins, outs)

            else:
                session.add_graph(graph_id, chain(kinds, n))
                session.compile_graph(graph_id)

                def run(ins: list[Tensor], outs: list[Tensor], gid=graph_id) -> None:  # type: ignore[no-untyped-def]
                    session.run_graph_with_stream_async(gid, 0, ins, outs)

            for mode in ("pool", "lock"):
                base = None
                for threads in counts:
                    lock = threading.Lock() if mode == "lock" else None
                    rate, correct = measure(run, threads, n, seconds, lock)
                    base = rate if base is None else base
                    row = {
                        "graph": label,
                        "N": n,
                        "K": K,
                        "mode": mode,
                        "threads": threads,
                        "runs_per_s": rate,
                        "speedup": rate / base,
                        "correct": correct,
                    }
                    rows.append(row)
                    print(
                        f"{label:<10} {n:>8} {mode:<5} {threads:>7} {rate:>10.0f} "
                        f"{rate / base:>10.2f}x {str(correct):>8}",
                        flush=True,
                    )
    GeApi().ge_finalize()
    result = {**_report.header("run_threads"), "rows": rows}
    _report.write(args.json, result)
    return 0 if all(row["correct"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
