"""An op whose output shape depends on its input's values, in a chain.

GE's data_dependent_shape_custom sample: WhereLikeCustom gives the indices
of the true elements of a bool tensor, int64[true_count, rank]; only its
execute knows true_count. Here its output feeds Cast and Mul (the math
library) and is also a graph output; the graph runs several times with
inputs of different true counts (the sample's [4, 1] first), and every
output is compared with numpy. Run from the repository root:
python examples/data_dependent_shape/run.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# The example names its own op module, as GE's run.sh exports it.
os.environ["ASCEND_CUSTOM_OPP_PATH"] = str(HERE / "where_like_op.py")
sys.path.insert(0, str(HERE))

from where_like_op import WhereLike  # noqa: E402

import ge.es.math as m  # noqa: E402
from ge.es import GraphBuilder  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

INPUTS = [
    [True, False, True, False, True, False, False, True],  # GE's sample: [4, 1]
    [False] * 8,
    [True] * 8,
    [False, True, False, False, False, False, False, False],
]


def build():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("where_like_chain")
    x = builder.create_input(
        0, name="x", data_type=DataType.DT_BOOL, format=Format.FORMAT_ND, shape=[8]
    )
    y = WhereLike(x, name="where")
    scaled = m.Mul(
        m.Cast(y, dst_type=DataType.DT_FLOAT),
        builder.create_const_float([0.5], [1]),
        name="scaled",
    )
    builder.set_graph_output(y, 0)
    builder.set_graph_output(scaled, 1)
    return builder.build_and_reset()


def main() -> int:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0"})
    ok = True
    try:
        session = Session({})
        session.add_graph(0, build())
        for values in INPUTS:
            x = np.array(values, np.bool_)
            y, scaled = session.run_graph(0, [Tensor.from_numpy(x)])
            want = np.argwhere(x).astype(np.int64)
            good = np.array_equal(y.numpy(), want) and np.array_equal(
                scaled.numpy(), want.astype(np.float32) * 0.5
            )
            ok &= good and y.shape == list(want.shape)
            print(f"output shape: {y.shape}")
            print("output values: " + " ".join(str(v) for v in y.numpy().reshape(-1)))
            print(
                f"  scaled: {scaled.numpy().reshape(-1).tolist()} {'PASS' if good else 'FAIL'}"
            )
    finally:
        api.ge_finalize()
    print("[WhereLikeCustom] " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
