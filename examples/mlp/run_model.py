"""Load the compiled MLP model and run it on two inputs, in a process that
never imports the math ops' Python (ASCEND_CUSTOM_OPP_PATH is unset).

    python examples/mlp/run_model.py OUT_DIR/mlp.om
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mlp import BATCH, OUT, reference, sample_input, weights

from ge.graph import Tensor
from ge.offline import load_model

TOLERANCE = 1e-5


def main() -> int:
    model = load_model(sys.argv[1])
    params = weights()
    ok = "ge_impl.math.mat_mul" not in sys.modules
    for seed in (1, 2):
        x = sample_input(seed)
        y = Tensor(np.zeros((BATCH, OUT), np.float32))
        model.execute([Tensor.from_numpy(x)], [y])
        err = float(np.max(np.abs(y.numpy() - reference(x, params))))
        print(f"[Offline] run {seed}: max |error| = {err:.2e}")
        ok = ok and err < TOLERANCE
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
