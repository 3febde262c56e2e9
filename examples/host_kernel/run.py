"""A custom op folded at compile time by its host kernel.

GE's host_cpu_add_custom/constant_folding sample: two constants feed
AddCustom, whose only kernel is a host kernel
(``register_kernel(backend=OpBackend.HOST)``). Compiling the graph calls it
once; the compiled graph holds a Const in AddCustom's place (the
``01_after_constant_folding`` dump and the compile report show it), and
running it calls no kernel. The same op fed by graph inputs is not
foldable: its host kernel runs on every run. Checked against numpy.
Run from the repository root: python examples/host_kernel/run.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# The example names its own op module, as GE's run.sh exports it.
os.environ["ASCEND_CUSTOM_OPP_PATH"] = str(HERE / "host_add_op.py")

from ge.custom_op import get_registered_op_impl_dicts  # noqa: E402
from ge.custom_op.bootstrap import load_custom_op_plugins  # noqa: E402
from ge.es import GraphBuilder  # noqa: E402
from ge.es.custom import AddCustom  # noqa: E402
from ge.ge_global import GeApi  # noqa: E402
from ge.graph import DataType, Format, Tensor  # noqa: E402
from ge.session import Session  # noqa: E402

LEFT = np.array([1.0, 2.5, -4.0], np.float32)
RIGHT = np.array([2.0, 0.5, 8.0], np.float32)


def const_graph():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("host_kernel_folding")
    left = builder.create_const(Tensor(LEFT, data_type=DataType.DT_FLOAT))
    right = builder.create_const(Tensor(RIGHT, data_type=DataType.DT_FLOAT))
    builder.set_graph_output(AddCustom(left, right, name="add"), 0)
    return builder.build_and_reset()


def input_graph():  # type: ignore[no-untyped-def]
    builder = GraphBuilder("host_kernel_at_run_time")
    x, y = (
        builder.create_input(
            i, data_type=DataType.DT_FLOAT, format=Format.FORMAT_ND, shape=[3]
        )
        for i in range(2)
    )
    builder.set_graph_output(AddCustom(x, y, name="add"), 0)
    return builder.build_and_reset()


def main() -> int:
    api = GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0"})
    load_custom_op_plugins()
    # the op module as the plugin loader imported it (under its own name)
    host_add_op = next(m for n, m in sys.modules.items() if n.endswith(".host_add_op"))

    print("[HostKernel] registered:", get_registered_op_impl_dicts())
    ok = True
    dumps = Path(tempfile.mkdtemp(prefix="ge_host_kernel_"))
    os.environ["DUMP_GE_GRAPH"], os.environ["DUMP_GRAPH_PATH"] = "2", str(dumps)
    session = Session({})
    try:
        session.add_graph(0, const_graph())
        session.compile_graph(0)
        compiled = session.compiled(0)
        print(compiled.report.text(), end="")
        folded_calls = host_add_op.CALLS["host"]
        (z,) = session.run_graph(0, [])
        session.run_graph(0, [])
        ok &= np.array_equal(z.numpy(), LEFT + RIGHT)
        ok &= host_add_op.CALLS["host"] == folded_calls == 1  # at compile only
        stage = next(dumps.glob("*host_kernel_folding_01_after_constant_folding.txt"))
        text = stage.read_text()
        ok &= "type=Const" in text and "AddCustom" not in text
        print(f"[HostKernel] folded: {z.numpy().tolist()}; {stage.name}:")
        print(text, end="")

        del os.environ["DUMP_GE_GRAPH"]
        session.add_graph(1, input_graph())
        for n in range(3):
            x = np.arange(3, dtype=np.float32) * (n + 1)
            (z,) = session.run_graph(
                1, [Tensor.from_numpy(x), Tensor.from_numpy(RIGHT)]
            )
            ok &= np.array_equal(z.numpy(), x + RIGHT)
        ok &= host_add_op.CALLS["host"] == 4  # one per run, nothing folded
        print(session.compiled(1, [Tensor.from_numpy(LEFT)] * 2).report.text(), end="")
    finally:
        api.ge_finalize()
    print("[HostKernel] " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
