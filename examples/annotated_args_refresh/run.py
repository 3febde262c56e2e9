"""GE's address-refresh sample on the CPU device: two graphs, one node each.

AnnotatedAddCustom declares its kernel arguments at compile time and runs by
address refresh; NoRefreshAddCustom calls its Python execute on every run.
Both add two 8,192-element float32 tensors with the same C kernel. The script
checks both graphs on two alternating input sets, then times 5 warm-up and
100 measured runs of each and prints the per-run averages and the speedup.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
os.environ.setdefault("ASCEND_CUSTOM_OPP_PATH", str(HERE / "add_ops.py"))

from ge.es import GraphBuilder  # noqa: E402
from ge.es.custom import AnnotatedAddCustom, NoRefreshAddCustom  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Placement, Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

ANNOTATED_GRAPH_ID = 0
NO_REFRESH_GRAPH_ID = 1
NUM_ELEMENTS = 8 * 1024
WARMUP_ITERS = 5
BENCHMARK_ITERS = 100


def build_graph(name, op):  # type: ignore[no-untyped-def]
    builder = GraphBuilder(name)
    x = builder.create_input(
        0,
        name="data_x",
        data_type=DataType.DT_FLOAT,
        format=Format.FORMAT_ND,
        shape=[NUM_ELEMENTS],
    )
    y = builder.create_input(
        1,
        name="data_y",
        data_type=DataType.DT_FLOAT,
        format=Format.FORMAT_ND,
        shape=[NUM_ELEMENTS],
    )
    builder.set_graph_output(op(x, y), 0)
    return builder.build_and_reset()


def device_tensor(values: np.ndarray) -> Tensor:
    return Tensor(
        values,
        None,
        DataType.DT_FLOAT,
        Format.FORMAT_ND,
        [NUM_ELEMENTS],
        Placement.PLACEMENT_DEVICE,
    )


def input_sets() -> list[tuple[list[Tensor], np.ndarray]]:
    index = np.arange(NUM_ELEMENTS, dtype=np.float32)
    sets = []
    for (x0, dx), (y0, dy) in (((1.0, 1.0), (10.0, 0.5)), ((3.0, 2.0), (20.0, 0.25))):
        x, y = x0 + index * dx, y0 + index * dy
        sets.append(([device_tensor(x), device_tensor(y)], x + y))
    return sets


def validate(session: Session, graph_id: int, sets, name: str) -> None:  # type: ignore[no-untyped-def]
    for inputs, expected in sets:
        (output,) = session.run_graph(graph_id, inputs)
        error = float(np.max(np.abs(output.numpy() - expected)))
        if error > 1e-5:
            raise RuntimeError(f"{name} precision check failed, max_error={error}")
    print(f"[OnlinePython] {name} precision check PASS")


def benchmark(session: Session, graph_id: int, sets) -> float:  # type: ignore[no-untyped-def]
    for i in range(WARMUP_ITERS):
        session.run_graph(graph_id, sets[i % len(sets)][0])
    start = time.perf_counter()
    for i in range(BENCHMARK_ITERS):
        session.run_graph(graph_id, sets[i % len(sets)][0])
    return (time.perf_counter() - start) * 1e6


def main() -> int:
    options = {"ge.exec.deviceId": "0", "ge.graphRunMode": "1"}
    api = GeApi()
    api.ge_initialize(options)
    session = Session(options)
    try:
        session.add_graph(
            ANNOTATED_GRAPH_ID,
            build_graph("python_annotated_graph", AnnotatedAddCustom),
        )
        session.add_graph(
            NO_REFRESH_GRAPH_ID,
            build_graph("python_no_refresh_graph", NoRefreshAddCustom),
        )
        sets = input_sets()
        validate(session, ANNOTATED_GRAPH_ID, sets, "AnnotatedAddCustom")
        validate(session, NO_REFRESH_GRAPH_ID, sets, "NoRefreshAddCustom")
        annotated_us = benchmark(session, ANNOTATED_GRAPH_ID, sets)
        no_refresh_us = benchmark(session, NO_REFRESH_GRAPH_ID, sets)
        print(f"[Perf] input shape: [{NUM_ELEMENTS}], dtype: float32")
        print(f"[Perf] iters: {BENCHMARK_ITERS}")
        print(
            f"[Perf] AnnotatedAddCustom: {annotated_us:.3f} us "
            f"(avg {annotated_us / BENCHMARK_ITERS:.3f} us/iter)"
        )
        print(
            f"[Perf] NoRefreshAddCustom: {no_refresh_us:.3f} us "
            f"(avg {no_refresh_us / BENCHMARK_ITERS:.3f} us/iter)"
        )
        print(f"[Perf] Annotated speedup: {no_refresh_us / annotated_us:.3f}x")
        print("[OnlinePython] CPU_EXECUTION=PASS")
        return 0
    finally:
        for graph_id in (ANNOTATED_GRAPH_ID, NO_REFRESH_GRAPH_ID):
            try:
                session.remove_graph(graph_id)
            except ValueError:
                pass
        api.ge_finalize()


if __name__ == "__main__":
    sys.exit(main())
