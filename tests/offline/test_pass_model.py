"""ge-atc runs the passes of ASCEND_GE_PY_PASS_PATH (as GE's pyatc does):
the model holds the rewritten graph, computes what numpy does, and
--export_compile_stat writes GE's fusion_result.json."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import ge.es.math as m
from ge.custom_op import bootstrap
from ge.es import GraphBuilder
from ge.graph import Tensor
from ge.offline import load_model, model_file
from ge.offline.compile import main as ge_atc
from ge.passes import clear_registered_passes

PASS = """
import ge.es.math as m
from ge.passes import PassStage, PatternFusionPass, pattern, register_fusion_pass

@register_fusion_pass(name="AtcFuseMatMulAdd", stage=PassStage.BEFORE_INFER_SHAPE)
class AtcFuseMatMulAdd(PatternFusionPass):
    @pattern
    def p(self, inputs):
        a, b, c = inputs[:3]
        return m.MatMul(a, b) + c

    def replacement(self, inputs):
        a, b, c = inputs[:3]
        return m.MatMul(a, b, c)
"""


@pytest.fixture(autouse=True)
def _no_passes_left() -> Iterator[None]:
    clear_registered_passes()
    yield
    clear_registered_passes()


def test_ge_atc_runs_python_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bootstrap.load_builtin_ops()
    rng = np.random.default_rng(3)
    w = rng.standard_normal((3, 5)).astype(np.float32)
    c = rng.standard_normal(5).astype(np.float32)
    b = GraphBuilder("atc_passes")
    x = b.create_input(0, shape=[4, 3])
    y = m.Relu(m.MatMul(x, b.create_const(Tensor(w))) + b.create_const(Tensor(c)))
    air = tmp_path / "graph.air"
    b.build_and_reset([y]).save_to_air(air)
    (tmp_path / "passes").mkdir()
    (tmp_path / "passes" / "fuse.py").write_text(PASS)
    monkeypatch.setenv("ASCEND_GE_PY_PASS_PATH", str(tmp_path / "passes"))
    monkeypatch.setenv("ASCEND_WORK_PATH", str(tmp_path / "work"))
    out = tmp_path / "model.om"
    argv = ["--model", str(air), "--output", str(out), "--export_compile_stat", "2"]
    assert ge_atc(argv) == 0
    kernels = model_file.decode(out.read_bytes()).kernel_names
    # unrewritten, Add and Relu would be one fused kernel (ge_fused)
    assert sorted(set(kernels)) == ["math_mat_mul", "math_relu"], kernels
    result = tmp_path / "work" / "FE" / str(os.getpid()) / "fusion_result.json"
    stats = [v["graph_fusion"] for v in json.loads(result.read_text()).values()]
    assert {"match_times": "1", "effect_times": "1"} in [
        s.get("AtcFuseMatMulAdd") for s in stats
    ]
    model = load_model(str(out))
    xv = rng.standard_normal((4, 3)).astype(np.float32)
    got = Tensor(np.zeros((4, 5), np.float32))
    model.execute([Tensor.from_numpy(xv)], [got])
    np.testing.assert_allclose(
        got.numpy(), np.maximum(xv @ w + c, 0), rtol=1e-6, atol=1e-6
    )
