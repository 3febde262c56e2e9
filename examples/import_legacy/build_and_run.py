"""Build a graph with the ge.es.legacy builders gen-ops generated from the
imported specs, run it on the CPU device and compare with numpy.

run.py runs this script with the generated package on PYTHONPATH and
ASCEND_CUSTOM_OPP_PATH naming legacy_impl.py:

    PYTHONPATH=<out>/python ASCEND_CUSTOM_OPP_PATH=examples/import_legacy/legacy_impl.py \\
        python examples/import_legacy/build_and_run.py

The graph, for a float32 or float16 matrix a and an int32 row b:

    m   = LegacyMul(a, b)              # DATATYPE(T3, Promote(...)): int32 promotes
    s   = LegacyScale(m, alpha=0.5, beta=-1.0)
    r   = LegacyRelu(s)                # TensorType(DT_FLOAT, ...) without braces
    n   = LegacyAddN([r, a, m], N=3)   # a dynamic input, N passed as gen_esb's callers do
    acc = LegacyAssignAdd(n, a)        # a ref pair: n += a in place
    out = _LegacyIdentity(acc)         # an op named with a leading _
"""

from __future__ import annotations

import sys

import numpy as np

from ge.es import GraphBuilder
from ge.es.legacy import (
    LegacyAddN,
    LegacyAssignAdd,
    LegacyMul,
    LegacyRelu,
    LegacyScale,
    _LegacyIdentity,
)
from ge.ge_global import GeApi
from ge.graph import DataType, Format, Graph, Tensor
from ge.graph.numpy_dtypes import to_numpy_dtype
from ge.session import Session

SHAPE = [4, 5]
DTYPES = [DataType.DT_FLOAT, DataType.DT_FLOAT16]


def build(dtype: DataType) -> Graph:
    builder = GraphBuilder(f"import_legacy_{dtype.spec_name}")
    a = builder.create_input(
        0, name="a", data_type=dtype, format=Format.FORMAT_ND, shape=SHAPE
    )
    b = builder.create_input(
        1,
        name="b",
        data_type=DataType.DT_INT32,
        format=Format.FORMAT_ND,
        shape=SHAPE[-1:],
    )
    m = LegacyMul(a, b)
    if m.data_type is not dtype:  # the builder computed the promotion
        raise AssertionError(f"LegacyMul: {m.data_type} from {dtype} and int32")
    r = LegacyRelu(LegacyScale(m, alpha=0.5, beta=-1.0))
    acc = LegacyAssignAdd(LegacyAddN([r, a, m], N=3), a)
    return builder.build_and_reset([_LegacyIdentity(acc), m])


def expected(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = a * b.astype(a.dtype)
    s = m * a.dtype.type(0.5) + a.dtype.type(-1.0)
    r = np.maximum(s, a.dtype.type(0))
    return r + a + m + a, m


def main() -> int:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    session = Session({})
    rng = np.random.default_rng(10)
    failures = 0
    try:
        for graph_id, dtype in enumerate(DTYPES):
            session.add_graph(graph_id, build(dtype))
            a = rng.standard_normal(SHAPE).astype(to_numpy_dtype(dtype))
            b = rng.integers(-3, 4, SHAPE[-1:]).astype(np.int32)
            out, m = session.run_graph(
                graph_id, [Tensor.from_numpy(a), Tensor.from_numpy(b)]
            )
            want, want_m = expected(a, b)
            got = out.numpy()
            ok = (
                got.dtype == want.dtype
                and np.array_equal(got, want)
                and np.array_equal(m.numpy(), want_m)
            )
            failures += not ok
            err = float(np.max(np.abs(got.astype(np.float64) - want)))
            print(
                f"[import_legacy] {dtype.spec_name:8} shape={SHAPE!s:8} "
                f"ops=6 max_abs_err={err:.1e} {'PASS' if ok else 'FAIL'}"
            )
            session.remove_graph(graph_id)
    finally:
        api.ge_finalize()
    print("[import_legacy] " + ("PASS" if not failures else f"FAIL ({failures} cases)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
