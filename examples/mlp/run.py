"""A two-layer MLP with ReLU from GE's math ops, run online and offline.

1. online: build the graph (TensorHolder arithmetic, ge.es.math.MatMul and
   Relu), run it in a Session, compare with numpy;
2. offline: save the graph file, compile it with ge-atc (ops/math on
   ASCEND_CUSTOM_OPP_PATH), then load and run the model in a fresh process
   where no operator module is imported (run_model.py).

    python examples/mlp/run.py [OUT_DIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MATH_OPS = ROOT / "ops" / "math"
sys.path.insert(0, str(HERE))

from mlp import build_graph, reference, sample_input, weights  # noqa: E402

from ge.ge_global import GeApi  # noqa: E402
from ge.graph import Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

TOLERANCE = 1e-5  # float32 sums in another order than numpy's BLAS


def online(params: dict[str, np.ndarray]) -> bool:
    os.environ["ASCEND_CUSTOM_OPP_PATH"] = str(MATH_OPS)
    GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    try:
        session = Session({})
        session.add_graph(1, build_graph(params))
        ok = True
        for seed in (1, 2):
            x = sample_input(seed)
            (y,) = session.run_graph(1, [Tensor.from_numpy(x)])
            err = float(np.max(np.abs(y.numpy() - reference(x, params))))
            print(
                f"[Online] run {seed}: y{list(y.numpy().shape)} max |error| = {err:.2e}"
            )
            ok = ok and err < TOLERANCE
        return ok
    finally:
        GeApi().ge_finalize()


def ge_atc() -> list[str]:
    script = Path(sys.executable).parent / "ge-atc"
    return (
        [str(script)]
        if script.exists()
        else [sys.executable, "-m", "ge.offline.compile"]
    )


def offline(params: dict[str, np.ndarray], out: Path) -> bool:
    air, om = out / "mlp.air", out / "mlp"
    build_graph(params).save_to_air(air)
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH=str(MATH_OPS))
    atc = subprocess.run(
        [*ge_atc(), "--model", str(air), "--output", str(om)], env=env, check=False
    )
    if atc.returncode != 0:
        print("[Offline] ge-atc failed")
        return False
    print(f"[Offline] compiled {air.name} -> {om.name}.om")
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    run = subprocess.run(
        [sys.executable, str(HERE / "run_model.py"), str(out / "mlp.om")],
        env=env,
        check=False,
    )
    return run.returncode == 0


def main() -> int:
    params = weights()
    with tempfile.TemporaryDirectory(prefix="mlp-") as tmp:
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        ok_online = online(params)
        ok_offline = offline(params, out)
    print(f"MLP_ONLINE={'PASS' if ok_online else 'FAIL'}")
    print(f"MLP_OFFLINE={'PASS' if ok_offline else 'FAIL'}")
    return 0 if ok_online and ok_offline else 1


if __name__ == "__main__":
    sys.exit(main())
