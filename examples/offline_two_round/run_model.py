"""Step 2 of the offline sample: load the model and run it twice, in a
process where the operator's Python module is never imported.

Each round allocates fresh input and output buffers (round 1's stay alive,
so round 2's addresses differ) and the model refreshes its kernel arguments
with them: round 1 adds 1 + 2, round 2 adds 4 + 5, over 8,192 float32
elements, and every element is compared.

    python examples/offline_two_round/run_model.py OUT_DIR/add_custom.om
"""

from __future__ import annotations

import sys

import numpy as np

from ge.device.memory import DeviceBuffer
from ge.offline import Model, load_model

OP_MODULE_STEM = "add_ops"


def device_buffer(values: np.ndarray) -> DeviceBuffer:
    buffer = DeviceBuffer(values.nbytes)
    buffer.array[:] = np.frombuffer(values.tobytes(), np.uint8)
    return buffer


def run_round(
    model: Model, round_no: int, a: float, b: float
) -> tuple[bool, list[DeviceBuffer]]:
    """One round on fresh buffers; (every element right, the buffers)."""
    n = model.get_input_dims(0)[0]
    x = device_buffer(np.full(n, a, np.float32))
    y = device_buffer(np.full(n, b, np.float32))
    z = DeviceBuffer(model.get_output_size_by_index(0))
    model.execute([x, y], [z])
    got = np.frombuffer(bytes(z.array), np.float32)
    first = got[0]
    print(
        f"ROUND_{round_no}_FIRST={first:g} "
        f"(x=0x{x.addr:x} y=0x{y.addr:x} z=0x{z.addr:x})"
    )
    return bool(np.array_equal(got, np.full(n, a + b, np.float32))), [x, y, z]


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "build/offline_two_round/add_custom.om"
    model = load_model(path)
    print(
        f"[Load] {path}: {model.get_num_inputs()} inputs, "
        f"{model.get_num_outputs()} output of {model.get_output_size_by_index(0)} bytes"
    )
    # Round 1's buffers stay alive while round 2 allocates its own.
    ok1, round1 = run_round(model, 1, 1.0, 2.0)
    ok2, round2 = run_round(model, 2, 4.0, 5.0)
    fresh = not {b.addr for b in round1} & {b.addr for b in round2}
    imported = sorted(
        name
        for name, module in sys.modules.items()
        if OP_MODULE_STEM in name
        or OP_MODULE_STEM in str(getattr(module, "__file__", "") or "")
    )
    print(f"[Check] addresses differ between rounds: {fresh}")
    print(f"[Check] operator modules imported: {imported or 'none'}")
    passed = ok1 and ok2 and fresh and not imported
    print("OFFLINE_TWO_ROUND=" + ("PASS" if passed else "FAIL"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
