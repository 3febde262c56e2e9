"""Shared by the math-library tests: ops/math registered, a Session, and
running a graph of many nodes on numpy arrays."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ge.custom_op import (
    bootstrap,
    get_registered_op_impl,
    get_registered_op_proto_by_op_type,
)
from ge.ge_global import GeApi, is_initialized
from ge.graph import Graph, Tensor
from ge.session import Session

ROOT = Path(__file__).resolve().parents[2]
MATH_DIR = ROOT / "ops" / "math"
MATH_OPS = (
    "Add",
    "Sub",
    "Mul",
    "RealDiv",
    "Div",
    "Maximum",
    "Minimum",
    "Neg",
    "Abs",
    "Relu",
    "Sqrt",
    "Exp",
    "Log",
    "MatMul",
    "Cast",
    "Pow",
    "Rsqrt",
    "Sigmoid",
    "Tanh",
)

_lock = threading.RLock()
_graph_ids = itertools.count(1000)


def _registered(op_type: str) -> bool:
    impl = get_registered_op_impl(op_type)
    if get_registered_op_proto_by_op_type(op_type) is None or impl is None:
        return False
    file = impl.source.rpartition(":")[0]
    return bool(file) and Path(file).resolve().parent == MATH_DIR


@contextmanager
def math_session() -> Iterator[Session]:
    """A Session with every op of ops/math registered from its module."""
    with _lock:
        if not all(_registered(t) for t in MATH_OPS):
            bootstrap._imported.difference_update(
                str(f.resolve()) for f in MATH_DIR.glob("*.py")
            )
            bootstrap.load_custom_op_plugins(str(MATH_DIR))
        for op_type in MATH_OPS:
            assert _registered(op_type), f"{op_type} is not registered from ops/math"
        initialised_here = not is_initialized()
        if initialised_here:
            GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
        try:
            yield Session({})
        finally:
            if initialised_here:
                GeApi().ge_finalize()


def run(session: Session, graph: Graph, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Run ``graph`` once on ``arrays``; its outputs as numpy arrays."""
    graph_id = next(_graph_ids)
    session.add_graph(graph_id, graph)
    try:
        outputs = session.run_graph(graph_id, [Tensor.from_numpy(a) for a in arrays])
    finally:
        session.remove_graph(graph_id)
    return [o.numpy() for o in outputs]
