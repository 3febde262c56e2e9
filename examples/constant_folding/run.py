"""Constant folding: the part of a graph that reads only constants is
computed once, when the graph is compiled (docs/compiler.md).

The graph standardises its input with statistics given as constants:
y = (x - mean) * rsqrt(var + eps) * gamma + beta. Everything right of x
reads only Consts, so the compiler folds it: rsqrt(var + eps) * gamma
becomes one Const (``scale``), and the graph that runs is
y = (x - mean) * scale + beta. The graph runs in a Session with folding,
and with ConstantFoldingPass switched off in GE's fusion switch file; the
two agree bit for bit (a folded node's value is its own kernel's), and
both agree with numpy. The per-stage dumps (DUMP_GE_GRAPH=1) show the
graph before and after folding.

    python examples/constant_folding/run.py [OUT_DIR]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EPS = 1e-5


def stats() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {
        "mean": rng.standard_normal(16).astype(np.float32),
        "var": rng.uniform(0.5, 2.0, 16).astype(np.float32),
        "gamma": rng.standard_normal(16).astype(np.float32),
        "beta": rng.standard_normal(16).astype(np.float32),
    }


def build(s: dict[str, np.ndarray]) -> object:
    from ge.es import GraphBuilder
    from ge.es.math import Mul, Rsqrt
    from ge.graph import Tensor

    b = GraphBuilder("constant_folding_demo")
    x = b.create_input(0, name="x", shape=[8, 16])
    mean, var, gamma, beta = (b.create_const(Tensor(s[k]), name=k) for k in s)
    scale = Mul(Rsqrt(var + EPS), gamma, name="scale")
    return b.build_and_reset([(x - mean) * scale + beta])


def main(out: Path) -> int:
    os.environ["ASCEND_CUSTOM_OPP_PATH"] = str(ROOT / "ops" / "math")
    os.environ["DUMP_GE_GRAPH"] = "1"
    os.environ["DUMP_GRAPH_PATH"] = str(out / "dump")
    from ge.ge_global import GeApi
    from ge.graph import Tensor
    from ge.session import Session

    switch = out / "fusion_switch.json"
    switch.write_text(
        json.dumps({"Switch": {"GraphFusion": {"ConstantFoldingPass": "off"}}})
    )
    s = stats()
    x = np.random.default_rng(5).standard_normal((8, 16)).astype(np.float32)
    GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        session = Session({})
        session.add_graph(1, build(s))
        session.add_graph(2, build(s), {"ge.fusionSwitchFile": str(switch)})
        (folded,) = session.run_graph(1, [Tensor.from_numpy(x)])
        (unfolded,) = session.run_graph(2, [Tensor.from_numpy(x)])
        on, off = session.compiled(1), session.compiled(2)
        print(on.report.text(), end="")
        consts = [len(c.array) for c in on.consts], [len(c.array) for c in off.consts]
    finally:
        GeApi().ge_finalize()
    scale = (1 / np.sqrt(s["var"] + np.float32(EPS))) * s["gamma"]
    expected = (x - s["mean"]) * scale + s["beta"]
    err = float(np.max(np.abs(folded.numpy() - expected)))
    same = folded.numpy().tobytes() == unfolded.numpy().tobytes()
    print(f"constants: {len(consts[0])} with folding, {len(consts[1])} without")
    print(f"folded vs numpy: max |error| = {err:.2e}")
    print(f"folded vs unfolded: {'bit for bit the same' if same else 'DIFFERENT'}")
    stages = sorted({p.name.split("_demo_", 1)[1] for p in (out / "dump").iterdir()})
    print("dumped stages:", ", ".join(s.removesuffix(".txt") for s in stages))
    ok = on.report.folded == ["Add_0", "Rsqrt_0", "scale"] and same and err < 1e-5
    ok = ok and not off.report.folding
    print(f"CONSTANT_FOLDING={'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1:
        target = Path(sys.argv[1])
        target.mkdir(parents=True, exist_ok=True)
        sys.exit(main(target))
    with tempfile.TemporaryDirectory() as tmp:
        sys.exit(main(Path(tmp)))
