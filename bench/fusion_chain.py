"""A chain of 16 element-wise ops, fused, against its floor and its peers,
in one run on one machine (issue 26).

The chain is y = x; 8 times: y = y * a_k, then y = y + b_k (8 x Mul then
Add, 16 ge.es.math nodes; a_k and b_k float32 constants), over N float32
elements. In the same process it times, per run of the whole chain:

- fused: the graph compiled with element-wise fusion (one generated kernel,
  one pass over memory, blocks on the worker pool), run with caller tensors;
- unfused: the same graph compiled with fusion off (16 kernels);
- floor: one C loop computing the whole chain, built with gcc -O3 -fopenmp
  -ffp-contract=off (the ISA of the fused kernel: no -march), called
  through ctypes, one OpenMP thread per core;
- numpy: 16 in-place ufunc calls on one output buffer (``out=``);
- torch: torch eager, the same 16 in-place calls (when importable);
- ort: ONNX Runtime running a 16-node Mul/Add graph with io_binding (when
  importable), its threads not spinning between runs.

Every path's output is checked against numpy's before it is timed (bit
equality for fused, unfused and floor, which round each op as numpy does).
The paths are timed in turns (a few runs each, order rotating), so a burst
of load on the shared machine falls on all of them. Prints a table of
median and p95 microseconds per run, then the targets as ratios (fused /
floor at most 1.25, fused / fastest peer at most 0.75), and writes JSON
(bench/results/fusion_chain.json).

    python bench/fusion_chain.py [--quick] [--ns 1048576,8388608] [--json PATH]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# OpenMP's default spin-waiting collapses on a shared, loaded machine (the
# floor and torch use OpenMP): threads that wait sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import _report  # bench/ is the script's directory
import numpy as np

from ge.engine.compiler import compile_graph
from ge.es import GraphBuilder
from ge.es.math import Add, Mul
from ge.graph import DataType, Tensor

ROOT = Path(__file__).resolve().parents[1]
STEPS = 8
A = [np.float32(1.0 + 0.01 * k) for k in range(STEPS)]
B = [np.float32(0.5 - 0.1 * k) for k in range(STEPS)]

FLOOR_SOURCE = """
#include <stddef.h>
void chain(const float *restrict x, float *restrict y, long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    float v = x[i];
%s
    y[i] = v;
  }
}
"""


def build_graph(n: int) -> object:
    builder = GraphBuilder("fusion_chain")
    y = builder.create_input(0, shape=[n], data_type=DataType.DT_FLOAT)
    for a, b in zip(A, B):
        y = Mul(y, builder.create_const(Tensor(np.asarray(a))))
        y = Add(y, builder.create_const(Tensor(np.asarray(b))))
    builder.set_graph_output(y, 0)
    return builder.build_and_reset()


def reference(x: np.ndarray) -> np.ndarray:
    y = np.empty_like(x)
    np.multiply(x, A[0], out=y)
    np.add(y, B[0], out=y)
    for a, b in zip(A[1:], B[1:]):
        np.multiply(y, a, out=y)
        np.add(y, b, out=y)
    return y


def floor_function() -> Callable[[np.ndarray, np.ndarray], None]:
    body = "\n".join(
        f"    v = v * {float(a)!r}f;\n    v = v + {float(b)!r}f;" for a, b in zip(A, B)
    )
    folder = Path(tempfile.mkdtemp(prefix="fusion_chain_"))
    (folder / "chain.c").write_text(FLOOR_SOURCE % body)
    library = folder / "chain.so"
    subprocess.run(
        [
            os.environ.get("CC", "gcc"),
            "-O3",
            "-fopenmp",
            "-ffp-contract=off",
            "-shared",
            "-fPIC",
            "-o",
            str(library),
            str(folder / "chain.c"),
        ],
        check=True,
    )
    function = ctypes.CDLL(str(library)).chain
    function.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    function.restype = None

    def run(x: np.ndarray, y: np.ndarray) -> None:
        function(x.ctypes.data, y.ctypes.data, x.size)

    return run


def torch_path(x: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(os.cpu_count() or 1)
    tx = torch.from_numpy(x)
    ty = torch.empty_like(tx)

    def run() -> np.ndarray:
        torch.mul(tx, float(A[0]), out=ty)
        ty.add_(float(B[0]))
        for a, b in zip(A[1:], B[1:]):
            ty.mul_(float(a))
            ty.add_(float(b))
        return ty.numpy()

    return run


def ort_path(x: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None
    nodes, inits, name = [], [], "x"
    for k, (a, b) in enumerate(zip(A, B)):
        inits += [
            helper.make_tensor(f"a{k}", TensorProto.FLOAT, [], [float(a)]),
            helper.make_tensor(f"b{k}", TensorProto.FLOAT, [], [float(b)]),
        ]
        nodes.append(helper.make_node("Mul", [name, f"a{k}"], [f"m{k}"]))
        name = "y" if k == STEPS - 1 else f"s{k}"
        nodes.append(helper.make_node("Add", [f"m{k}", f"b{k}"], [name]))
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [x.size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [x.size])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    # Its pool's threads spin after each run by default, taking the cores
    # from whichever path runs next in the rotation.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    y = np.empty_like(x)
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("y", "cpu", 0, np.float32, [x.size], y.ctypes.data)
    del onnx

    def run() -> np.ndarray:
        session.run_with_iobinding(binding)
        return y

    return run


def measure(
    paths: dict[str, Callable[[], object]], budget: float, turn: int
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in paths}
    names = list(paths)
    end = time.perf_counter() + budget
    rotation = 0
    while time.perf_counter() < end or min(len(t) for t in times.values()) < 5:
        order = names[rotation % len(names) :] + names[: rotation % len(names)]
        rotation += 1
        for name in order:
            run = paths[name]
            for _ in range(turn):
                start = time.perf_counter()
                run()
                times[name].append((time.perf_counter() - start) * 1e6)
    return times


def run_case(
    n: int, floor: Callable[[np.ndarray, np.ndarray], None], budget: float
) -> tuple[dict[str, Any], list[str]]:
    """Check and time every path at N = n."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    expected = reference(x)
    graph = build_graph(n)
    fused = compile_graph(graph)
    assert len(fused.report.regions) == 1, fused.report.text()
    os.environ["GE_CPU_FUSION"] = "0"
    try:
        unfused = compile_graph(graph)
    finally:
        del os.environ["GE_CPU_FUSION"]
    tx = Tensor.from_numpy(x)
    out_f = Tensor.from_numpy(np.empty_like(x))
    out_u = Tensor.from_numpy(np.empty_like(x))
    y_floor = np.empty_like(x)
    y_numpy = np.empty_like(x)

    def numpy_run() -> np.ndarray:
        np.multiply(x, A[0], out=y_numpy)
        np.add(y_numpy, B[0], out=y_numpy)
        for a, b in zip(A[1:], B[1:]):
            np.multiply(y_numpy, a, out=y_numpy)
            np.add(y_numpy, b, out=y_numpy)
        return y_numpy

    paths: dict[str, Callable[[], object]] = {
        "fused": lambda: fused.run([tx], [out_f]),
        "unfused": lambda: unfused.run([tx], [out_u]),
        "floor": lambda: floor(x, y_floor),
        "numpy": numpy_run,
    }
    peers = ["numpy"]
    for name, make in (("torch", torch_path), ("ort", ort_path)):
        run = make(x)
        if run is not None:
            paths[name] = run
            peers.append(name)
    # Check every path before timing it.
    for run in paths.values():
        run()
    got = {
        "fused": out_f.numpy(),
        "unfused": out_u.numpy(),
        "floor": y_floor,
        "numpy": y_numpy,
    }
    for name in ("fused", "unfused", "floor", "numpy"):
        assert np.array_equal(got[name].view(np.uint32), expected.view(np.uint32)), name
    for name in peers[1:]:
        value = np.asarray(paths[name]())
        assert np.allclose(value, expected, rtol=1e-5, atol=1e-5), name
    times = measure(paths, budget, 3 if n > 2_000_000 else 5)
    case = {
        name: {
            "median_us": statistics.median(t),
            "p95_us": sorted(t)[int(0.95 * (len(t) - 1))],
            "runs": len(t),
        }
        for name, t in times.items()
    }
    med = {name: c["median_us"] for name, c in case.items()}
    fastest_peer = min(peers, key=lambda p: med[p])
    case["ratios"] = {
        "fused_vs_floor": med["fused"] / med["floor"],
        "fused_vs_fastest_peer": med["fused"] / med[fastest_peer],
        "fastest_peer": fastest_peer,
        "unfused_vs_fused": med["unfused"] / med["fused"],
    }
    return case, peers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ns", default="1048576,8388608")
    parser.add_argument(
        "--json", type=Path, default=ROOT / "bench/results/fusion_chain.json"
    )
    args = parser.parse_args()
    ns = [int(v) for v in args.ns.split(",")]
    budget = 3.0 if args.quick else 12.0
    result = _report.header("fusion_chain")
    result["load_average_start"] = os.getloadavg()
    result["cases"] = {}
    floor = floor_function()
    rows = []
    for n in ns:
        case, peers = run_case(n, floor, budget)
        result["cases"][str(n)] = case
        rows.append((n, case, peers))
    result["load_average_end"] = os.getloadavg()
    result["peers_missing"] = [
        p for p in ("torch", "ort") if all(p not in r[2] for r in rows)
    ]
    names = ["fused", "unfused", "floor", "numpy", "torch", "ort"]
    print(
        f"\nload average at start {result['load_average_start'][0]:.1f}, "
        f"end {result['load_average_end'][0]:.1f}; "
        f"{os.cpu_count()} cpus; median (p95) us per run of the chain\n"
    )
    print("| N | " + " | ".join(names) + " | fused/floor | fused/fastest peer |")
    print("| ---: " * (len(names) + 3) + "|")
    for n, case, _ in rows:
        cells = [
            (
                f"{case[name]['median_us']:,.0f} ({case[name]['p95_us']:,.0f})"
                if name in case
                else "-"
            )
            for name in names
        ]
        r = case["ratios"]
        print(
            f"| {n:,} | "
            + " | ".join(cells)
            + f" | {r['fused_vs_floor']:.2f}x | {r['fused_vs_fastest_peer']:.2f}x "
            f"({r['fastest_peer']}) |"
        )
    print("\ntargets: fused/floor <= 1.25, fused/fastest peer <= 0.75")
    _report.write(args.json, result)


if __name__ == "__main__":
    main()
