"""Team-written graph passes (ge.passes) run when a graph is compiled.

The three passes in passes/ are loaded from ASCEND_GE_PY_PASS_PATH, as GE
loads Python passes:

- FuseMatMulAndAddPass (PatternFusionPass, @pattern): MatMul + Add of a
  bias becomes MatMul with its bias input;
- MoveReluBeforeConcatPass (FusionBasePass + SubgraphRewriter):
  Relu(ConcatCustom(a, b)) becomes ConcatCustom(Relu(a), Relu(b));
- DecomposeSigmoidPass (DecomposePass): Sigmoid becomes 1 / (1 + exp(-x)).

The graph runs in a Session twice: with the passes, and with them switched
off in GE's fusion switch file; both are checked against numpy and each
other. What the compiler did: the compile report, GE's fusion_result.json
(ge.exportCompileStat=2, under ASCEND_WORK_PATH) and the per-stage graph
dumps (DUMP_GE_GRAPH=1).

    python examples/fusion_pass/run.py [OUT_DIR]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOLERANCE = 1e-5  # float32: sigmoid decomposed rounds differently


def setup(out: Path) -> None:
    os.environ["ASCEND_CUSTOM_OPP_PATH"] = os.pathsep.join(
        [str(ROOT / "ops" / "math"), str(ROOT / "ops" / "custom" / "concat_custom.py")]
    )
    os.environ["ASCEND_GE_PY_PASS_PATH"] = str(HERE / "passes")
    os.environ["ASCEND_WORK_PATH"] = str(out)
    os.environ["DUMP_GE_GRAPH"] = "1"
    os.environ["DUMP_GRAPH_PATH"] = str(out / "dump")


def params() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "w1": rng.standard_normal((16, 32)).astype(np.float32) / 4,
        "b1": rng.standard_normal(32).astype(np.float32),
        "w2": rng.standard_normal((64, 10)).astype(np.float32) / 8,
        "b2": rng.standard_normal(10).astype(np.float32),
    }


def build(p: dict[str, np.ndarray]) -> object:
    from ge.es import GraphBuilder
    from ge.es.custom import ConcatCustom
    from ge.es.math import MatMul, Relu, Sigmoid, Tanh
    from ge.graph import Tensor

    b = GraphBuilder("fusion_pass_demo")
    x = b.create_input(0, name="x", shape=[8, 16])
    w1, b1, w2, b2 = (b.create_const(Tensor(p[k]), name=k) for k in p)
    h = Relu(MatMul(x, w1) + b1)
    joined = Relu(ConcatCustom([Sigmoid(h), Tanh(h)], concat_dim=1))
    return b.build_and_reset([MatMul(joined, w2) + b2])


def reference(x: np.ndarray, p: dict[str, np.ndarray]) -> np.ndarray:
    h = np.maximum(x @ p["w1"] + p["b1"], 0)
    joined = np.maximum(np.concatenate([1 / (1 + np.exp(-h)), np.tanh(h)], 1), 0)
    return joined @ p["w2"] + p["b2"]


def main(out: Path) -> int:
    setup(out)
    from ge.ge_global import GeApi
    from ge.graph import Tensor
    from ge.session import Session

    switch = out / "fusion_switch.json"
    switch.write_text(json.dumps({"Switch": {"GraphFusion": {"ALL": "off"}}}))
    p = params()
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        session = Session({"ge.exportCompileStat": "2"})
        session.add_graph(1, build(p))
        session.add_graph(2, build(p), {"ge.fusionSwitchFile": str(switch)})
        (on,) = session.run_graph(1, [Tensor.from_numpy(x)])
        (off,) = session.run_graph(2, [Tensor.from_numpy(x)])
        report = session.compiled(1).report
        print(report.text(), end="")
    finally:
        GeApi().ge_finalize()
    expected = reference(x, p)
    err_on = float(np.max(np.abs(on.numpy() - expected)))
    err_off = float(np.max(np.abs(off.numpy() - expected)))
    err_both = float(np.max(np.abs(on.numpy() - off.numpy())))
    print(f"passes on:  max |error| vs numpy = {err_on:.2e}")
    print(f"passes off: max |error| vs numpy = {err_off:.2e}")
    print(f"on vs off:  max |difference|     = {err_both:.2e}")
    result = out / "FE" / str(os.getpid()) / "fusion_result.json"
    print(f"{result.name}:\n{result.read_text()}", end="")
    stages = sorted({p.name.split("_demo_", 1)[1] for p in (out / "dump").iterdir()})
    print("dumped stages:", ", ".join(s.removesuffix(".txt") for s in stages))
    expected_passes = {
        "FuseMatMulAndAddPass": (2, 2),
        "MoveReluBeforeConcatPass": (1, 1),
        "DecomposeSigmoidPass": (1, 1),
    }
    ok = report.passes == expected_passes and max(err_on, err_off, err_both) < TOLERANCE
    print(f"FUSION_PASS={'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1:
        target = Path(sys.argv[1])
        target.mkdir(parents=True, exist_ok=True)
        sys.exit(main(target))
    with tempfile.TemporaryDirectory() as tmp:
        sys.exit(main(Path(tmp)))
