"""A model compiled with element-wise fusion and constant folding stores the
fused kernel (docs/compiler.md) and runs in a process with no compiler on
PATH, giving the unfused, unfolded graph's bits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import ge.es.math as m
from ge.custom_op import bootstrap
from ge.engine.compiler import compile_graph
from ge.es import GraphBuilder
from ge.graph import DataType, Graph, Tensor
from ge.offline import compile_model, model_file
from ge.offline.compile import main as ge_atc

ROOT = Path(__file__).resolve().parents[2]
N = 1000

RUNNER = r"""
import json, shutil, sys
import numpy as np
from ge.device.memory import DeviceBuffer
from ge.offline import load_model

assert shutil.which("gcc") is None and shutil.which("cc") is None
model = load_model(sys.argv[1])
x = np.load(sys.argv[2])
inp = DeviceBuffer(x.nbytes)
inp.array[:] = np.frombuffer(x.tobytes(), np.uint8)
outs = [DeviceBuffer(model.get_output_size_by_index(j)) for j in range(2)]
model.execute([inp], outs)
print(json.dumps([bytes(o.array).hex() for o in outs]))
"""


def graph() -> Graph:
    b = GraphBuilder("fused_offline")
    x = b.create_input(0, shape=[2, N // 2], data_type=DataType.DT_FLOAT16)
    scale = m.Exp(b.create_const(Tensor(np.array([0.5], np.float16))))  # folds
    t = m.Sigmoid(m.Mul(m.Add(x, scale), x))
    return b.build_and_reset([m.Relu(m.Sub(t, scale)), t])


def test_the_fused_model_runs_without_a_compiler(tmp_path: Path) -> None:
    bootstrap.load_builtin_ops()
    data = compile_model(graph())
    contents = model_file.decode(data)
    assert "ge_fused" in contents.kernel_names
    assert len(contents.tasks) == 1  # Add, Mul, Sigmoid, Sub, Relu: one launch
    x = (np.random.default_rng(7).standard_normal((2, N // 2)) * 4).astype(np.float16)
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "model.om").write_bytes(data)
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in ("PATH", "CC", "GE_CPU_FUSION")
    }
    env.update(PATH=str(empty), CC=str(empty / "gcc"))
    env["GE_CPU_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            RUNNER,
            str(tmp_path / "model.om"),
            str(tmp_path / "x.npy"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    got = [bytes.fromhex(h) for h in json.loads(result.stdout)]
    os.environ["GE_CPU_FUSION"] = "0"
    os.environ["GE_CPU_FOLDING"] = "0"
    try:
        plain = compile_graph(graph())
    finally:
        del os.environ["GE_CPU_FUSION"], os.environ["GE_CPU_FOLDING"]
    assert plain.report.regions == [] and plain.report.folded == []
    want = [
        t.numpy().tobytes()
        for t in plain.run([Tensor(x, data_type=DataType.DT_FLOAT16)])
    ]
    assert got == want


def test_ge_atc_takes_a_fusion_switch_file(tmp_path: Path) -> None:
    bootstrap.load_builtin_ops()
    air = tmp_path / "graph.air"
    graph().save_to_air(air)
    switch = tmp_path / "fusion_switch.cfg"
    switch.write_text(json.dumps({"Switch": {"GraphFusion": {"ALL": "off"}}}))
    kernels = {}
    for name, extra in (("on", []), ("off", ["--fusion_switch_file", str(switch)])):
        out = tmp_path / f"{name}.om"
        assert ge_atc(["--model", str(air), "--output", str(out), *extra]) == 0
        kernels[name] = model_file.decode(out.read_bytes()).kernel_names
    assert "ge_fused" in kernels["on"]
    assert "ge_fused" not in kernels["off"] and "math_exp" in kernels["off"]


CUSTOM_RUNNER = r"""
import json, shutil, sys
import numpy as np
from ge.device.memory import DeviceBuffer
from ge.offline import load_model

assert shutil.which("gcc") is None and shutil.which("cc") is None
model = load_model(sys.argv[1])
ins = []
for path in sys.argv[2:]:
    x = np.load(path)
    buffer = DeviceBuffer(x.nbytes)
    buffer.array[:] = np.frombuffer(x.tobytes(), np.uint8)
    ins.append(buffer)
out = DeviceBuffer(model.get_output_size_by_index(0))
model.execute(ins, [out])
print(bytes(out.array).hex())
assert not any(name.endswith(("add_ops", "scale_custom")) for name in sys.modules)
"""
CUSTOM_MODULES = [
    ROOT / "examples/annotated_args_refresh/add_ops.py",
    ROOT / "ops/custom/scale_custom.py",
]


def custom_graph() -> Graph:
    from ge.es.custom import AnnotatedAddCustom, ScaleCustom

    b = GraphBuilder("fused_custom_offline")
    x = b.create_input(0, name="x", shape=[4096], data_type=DataType.DT_FLOAT)
    y = b.create_input(1, name="y", shape=[4096], data_type=DataType.DT_FLOAT)
    t = ScaleCustom(AnnotatedAddCustom(AnnotatedAddCustom(x, y), y), y, alpha=-1.5)
    return b.build_and_reset([m.Relu(t)])


def test_a_fused_custom_region_runs_without_a_compiler(tmp_path: Path) -> None:
    """Custom ops with elementwise: expressions, fused with a math op, stored
    as one kernel: the model runs with no compiler and no op module."""
    bootstrap.load_custom_op_plugins(os.pathsep.join(map(str, CUSTOM_MODULES)))
    bootstrap.load_builtin_ops()
    data = compile_model(custom_graph())
    contents = model_file.decode(data)
    assert list(contents.kernel_names) == ["ge_fused"] and len(contents.tasks) == 1
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(4096).astype(np.float32) for _ in range(2)]
    arrays[0][:5] = [np.nan, np.inf, -np.inf, -0.0, 1e-42]
    for i, a in enumerate(arrays):
        np.save(tmp_path / f"x{i}.npy", a)
    (tmp_path / "model.om").write_bytes(data)
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PATH", "CC", "GE_CPU_FUSION", "ASCEND_CUSTOM_OPP_PATH")
    }
    env.update(PATH=str(empty), CC=str(empty / "gcc"))
    env["GE_CPU_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run(
        [sys.executable, "-c", CUSTOM_RUNNER, str(tmp_path / "model.om")]
        + [str(tmp_path / f"x{i}.npy") for i in range(2)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    os.environ["GE_CPU_FUSION"] = "0"
    try:
        plain = compile_graph(custom_graph())
    finally:
        del os.environ["GE_CPU_FUSION"]
    (want,) = plain.run([Tensor(a) for a in arrays])
    assert bytes.fromhex(result.stdout.strip()) == want.numpy().tobytes()
