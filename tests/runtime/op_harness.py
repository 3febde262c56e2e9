"""Shared by the op tests: the op modules registered, a Session, and running
a graph on numpy arrays.

Registrations are process-wide, and other tests (those using
``clean_registries``) empty the registries, which also forgets the modules
that registered. So ``ops_registered`` checks every op of AUTHORS is
registered from its author module and, if one is not, loads the author
modules again through the plugin loader (the real loading path).

It loads the author modules by file, not the ops/custom directory: the
directory also holds ops other tests own (ScaleCustom, SumNCustom), and a
load is all or nothing. test_ops_numpy loads the directory through
ASCEND_CUSTOM_OPP_PATH in a fresh process.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ge.custom_op import (
    bootstrap,
    get_registered_op_impl,
    get_registered_op_proto_by_op_type,
)
from ge.es import GraphBuilder, TensorHolder
from ge.ge_global import GeApi, is_initialized
from ge.graph import Graph, Tensor
from ge.graph.numpy_dtypes import from_numpy_dtype
from ge.session import Session

ROOT = Path(__file__).resolve().parents[2]
OPS_DIR = ROOT / "ops" / "custom"
# op type -> the module implementing it
AUTHORS = {
    op_type: OPS_DIR / f"{stem}.py"
    for op_type, stem in [
        ("CastCustom", "cast_custom"),
        ("ConcatCustom", "concat_custom"),
        ("FillCustom", "fill_custom"),
        ("LayerNormCustom", "layer_norm_custom"),
        ("PadCustom", "pad_custom"),
        ("ReduceSumCustom", "reduce_sum_custom"),
        ("SplitCustom", "split_custom"),
    ]
}
AUTHORS["AddCustom"] = ROOT / "examples" / "add_custom" / "add_custom_op.py"
AUTHORS["NoRefreshAddCustom"] = (
    ROOT / "examples" / "annotated_args_refresh" / "add_ops.py"
)

_lock = threading.RLock()


def _registered(op_type: str) -> bool:
    """Both halves of ``op_type`` registered, the implementation from its
    author module."""
    impl = get_registered_op_impl(op_type)
    if get_registered_op_proto_by_op_type(op_type) is None or impl is None:
        return False
    file = impl.source.rpartition(":")[0]
    return bool(file) and Path(file).resolve() == AUTHORS[op_type]


@contextmanager
def ops_registered() -> Iterator[None]:
    """Within: every op of AUTHORS registered from its author module."""
    with _lock:
        missing = sorted({AUTHORS[t] for t in AUTHORS if not _registered(t)})
        if missing:
            # A path remembered as loaded would be skipped.
            bootstrap._imported.difference_update(str(p) for p in missing)
            bootstrap.load_custom_op_plugins(os.pathsep.join(map(str, missing)))
        for op_type in AUTHORS:
            assert _registered(op_type), f"{op_type} is not registered from its module"
    yield


@contextmanager
def ge_session() -> Iterator[Session]:
    """A Session with the ops registered (GE initialised for it if needed)."""
    with ops_registered():
        initialised_here = not is_initialized()
        if initialised_here:
            GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
        try:
            yield Session({})
        finally:
            if initialised_here:
                GeApi().ge_finalize()


_graph_ids = itertools.count()


def inputs(builder: GraphBuilder, *arrays: np.ndarray) -> list[TensorHolder]:
    """One graph input per array, of its dtype and shape."""
    return [
        builder.create_input(
            i,
            data_type=from_numpy_dtype(a.dtype),
            shape=list(a.shape),
        )
        for i, a in enumerate(arrays)
    ]


def run(session: Session, graph: Graph, *arrays: np.ndarray) -> list[np.ndarray]:
    """Run ``graph`` once on ``arrays``; its outputs as numpy arrays."""
    graph_id = next(_graph_ids)
    session.add_graph(graph_id, graph)
    try:
        outputs = session.run_graph(graph_id, [Tensor.from_numpy(a) for a in arrays])
    finally:
        session.remove_graph(graph_id)
    return [t.numpy() for t in outputs]


def build(
    name: str,
    arrays: Sequence[np.ndarray],
    body: Callable[..., TensorHolder | Sequence[TensorHolder]],
) -> Graph:
    """A graph whose inputs match ``arrays`` and whose outputs are what
    ``body(builder, *inputs)`` returns (one holder or a list)."""
    builder = GraphBuilder(name)
    result = body(builder, *inputs(builder, *arrays))
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    return builder.build_and_reset(outputs)
