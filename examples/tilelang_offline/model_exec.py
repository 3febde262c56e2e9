"""Step 4 of the offline sample (GE's model_exec): load the model and run
it, in a process that needs neither the op's Python module nor a compiler.

Loading restores the kernel libraries the model file carries (GE's
Deserialize: integrity-checked, loaded from memory, all or nothing); each
of two rounds allocates fresh [4096] float32 buffers (round 1's stay alive,
so round 2's addresses differ), executes, and checks every element.

    python examples/tilelang_offline/model_exec.py MODEL.om
"""

from __future__ import annotations

import sys

import numpy as np

from ge.device.memory import DeviceBuffer
from ge.offline import load_model

NUM_ELEMENTS = 4096


def check(z: np.ndarray, expected: np.ndarray) -> bool:
    if np.isnan(z).any():
        print("Precision check failed: NaN in the output")
        return False
    max_error = float(np.max(np.abs(z - expected)))
    if max_error > 1e-6:
        print(f"Precision check failed, max_error={max_error:g}")
        return False
    print(f"Precision check passed, max_error={max_error:g}")
    return True


def main() -> int:
    path = sys.argv[1]
    print(f"Loading OM model (triggers Deserialize): {path}")
    model = load_model(path)
    print(f"Deserialized {model.restored_libraries} kernel(s)")
    rng = np.random.default_rng(4096)
    kept = []  # earlier rounds' buffers stay alive: every round's addresses differ
    ok = True
    for _ in range(2):
        x = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        y = rng.standard_normal(NUM_ELEMENTS).astype(np.float32)
        buffers = [DeviceBuffer(NUM_ELEMENTS * 4) for _ in range(3)]
        buffers[0].array[:] = x.view(np.uint8)
        buffers[1].array[:] = y.view(np.uint8)
        print("Executing model (triggers Execute)...")
        model.execute(buffers[:2], buffers[2:])
        z = np.frombuffer(bytes(buffers[2].array), dtype=np.float32)
        ok = check(z, x + y) and ok
        kept.append(buffers)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
