"""Runs of one compiled graph, or one loaded model, from several threads at
once (docs/runtime.md, "Threads"): every result is checked against numpy.

Each graph is a chain, so intermediates live in the arena and launches
read what earlier launches wrote: runs sharing one arena or one argument
table would mix their data."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from ge.custom_op import bootstrap
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Placement, Tensor
from ge.offline import compile_model
from ge.offline.model import load_model_bytes
from ge.session import Session

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    ROOT / "examples/annotated_args_refresh/add_ops.py",
    ROOT / "examples/add_custom/add_custom_op.py",
]
THREADS = 8
RUNS = int(os.environ.get("GE_CONCURRENCY_RUNS", "2000"))
N = 2048  # two blocks of the sample kernels


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    bootstrap.load_custom_op_plugins(os.pathsep.join(str(m) for m in MODULES))
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    yield Session()


def chain(kinds: str) -> Graph:
    """out = x + y + y ... one addition per letter: 'a' annotated, 'e' execute."""
    from ge.es.custom import AddCustom, AnnotatedAddCustom

    builder = GraphBuilder(f"chain_{kinds}")
    x = builder.create_input(0, shape=[N])
    y = builder.create_input(1, shape=[N])
    out = x
    for kind in kinds:
        out = (AnnotatedAddCustom if kind == "a" else AddCustom)(out, y)
    builder.set_graph_output(out, 0)
    return builder.build_and_reset()


def expected(x: np.ndarray, y: np.ndarray, additions: int) -> np.ndarray:
    out = x
    for _ in range(additions):
        out = out + y  # float32 throughout, in the kernels' order
    return out


def hammer(run: Callable[[np.ndarray, np.ndarray], np.ndarray], additions: int) -> None:
    """THREADS threads, RUNS runs each, fresh random inputs every run; every
    wrong result and every exception is collected."""
    wrong: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            start.wait()
            for i in range(RUNS):
                x = rng.standard_normal(N).astype(np.float32)
                y = rng.standard_normal(N).astype(np.float32)
                got = run(x, y)
                if not np.array_equal(got, expected(x, y, additions)):
                    wrong.append(f"thread {seed} run {i}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert wrong == [], f"{len(wrong)} of {THREADS * RUNS} results wrong: {wrong[:5]}"


@pytest.mark.parametrize(
    "kinds",
    [
        pytest.param("aaaa", id="annotated"),
        pytest.param("eeee", id="execute"),
        pytest.param("aeae", id="mixed"),
    ],
)
def test_run_graph_from_eight_threads(session: Session, kinds: str) -> None:
    graph_id = {"aaaa": 1, "eeee": 2, "aeae": 3}[kinds]
    session.add_graph(graph_id, chain(kinds))
    session.compile_graph(graph_id)

    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        (out,) = session.run_graph(graph_id, [Tensor(x), Tensor(y)])
        return out.numpy()

    hammer(run, len(kinds))


def test_caller_buffers_from_eight_threads(session: Session) -> None:
    """run_graph_with_stream_async into each thread's own output tensor."""
    session.add_graph(4, chain("aaa"))
    session.compile_graph(4)
    local = threading.local()

    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if not hasattr(local, "out"):
            local.out = Tensor(
                np.zeros(N, np.float32), placement=Placement.PLACEMENT_DEVICE
            )
        session.run_graph_with_stream_async(4, 0, [Tensor(x), Tensor(y)], [local.out])
        return local.out.numpy().copy()

    hammer(run, 3)


def test_one_model_from_eight_threads(session: Session) -> None:
    model = load_model_bytes(compile_model(chain("aaaa")))

    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = Tensor(np.zeros(N, np.float32), data_type=DataType.DT_FLOAT)
        model.execute([Tensor(x), Tensor(y)], [out])
        return out.numpy()

    hammer(run, 4)


def test_a_graph_run_by_one_thread_uses_one_set_of_buffers(session: Session) -> None:
    """The pool grows only with concurrency: sequential runs reuse the
    compiled arena and argument table."""
    session.add_graph(5, chain("aa"))
    session.compile_graph(5)
    compiled = session._entry(5).static
    assert compiled is not None
    for _ in range(50):
        session.run_graph(5, [Tensor(np.ones(N, np.float32))] * 2)
    assert compiled.run_states() == 1
