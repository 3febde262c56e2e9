"""Run GE's Python fusion-pass samples against this runtime and report, per
sample, whether it ran and the rewritten graph gave the un-rewritten
graph's numbers (docs/compiler.md, "GE's samples").

The samples are read from GE's source mirror (GE_MIRROR, default
GE_MIRROR names a bare git dir of hicann/ge); nothing of GE is copied
here. Each sample file is imported as written. What is patched at run
time (NPU-only setup) is nothing in the file: GE's samples are loaded by
ASCEND_GE_PY_PASS_PATH after `source set_env.sh` and with a generated
`es_custom` package on PYTHONPATH; here the file is imported directly
(ge.passes registers its passes) and `ge.es.custom.AddCustom` comes from
this repository's own op library (specs/add_custom.yaml, whose op module
examples/add_custom/add_custom_op.py is loaded) instead of a generated
es_custom. The graph each sample rewrites is built here, after
the sample's data/ script (torch_forward.py and friends), since those
need torch_npu.

    python bench/ge_fusion_samples.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MIRROR = Path(os.environ.get("GE_MIRROR") or "/nonexistent")
ROOT = Path(__file__).resolve().parents[1]
SAMPLES = "examples/fusion_pass"


def sample_files(mirror: Path = MIRROR) -> list[str]:
    out = subprocess.run(
        ["git", f"--git-dir={mirror}", "ls-tree", "-r", "--name-only", "HEAD", SAMPLES],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(p for p in out if "/python/src/" in p and p.endswith(".py"))


def source(path: str, mirror: Path = MIRROR) -> str:
    return subprocess.run(
        ["git", f"--git-dir={mirror}", "show", f"HEAD:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


# --- the graphs (after each sample's data/ script) ----------------------------


def _rng() -> np.random.Generator:
    return np.random.default_rng(26)


def g_matmul_add() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder
    from ge.es.math import MatMul

    b = GraphBuilder("matmul_add")
    x = b.create_input(0, shape=[4, 3])
    w = b.create_input(1, shape=[3, 5])
    c = b.create_input(2, shape=[4, 5])
    r = _rng()
    data = [r.standard_normal(s).astype(np.float32) for s in ((4, 3), (3, 5), (4, 5))]
    return b.build_and_reset([MatMul(x, w) + c]), data


def g_add_zero() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder

    b = GraphBuilder("add_zero")
    x = b.create_input(0, shape=[2, 3])
    return b.build_and_reset([(x + 0.0) * 2.0]), [
        _rng().standard_normal((2, 3)).astype(np.float32)
    ]


def g_relu_concat() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder
    from ge.es.math import ConcatV2, Relu

    b = GraphBuilder("relu_concat")
    x = b.create_input(0, shape=[2, 3])
    y = b.create_input(1, shape=[2, 4])
    out = Relu(ConcatV2([x, y], 1, N=2))
    r = _rng()
    return b.build_and_reset([out]), [
        r.standard_normal((2, 3)).astype(np.float32),
        r.standard_normal((2, 4)).astype(np.float32),
    ]


def g_grouped_conv() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder
    from ge.es.math import Conv2D

    b = GraphBuilder("grouped_conv")
    x = b.create_input(0, shape=[1, 4, 6, 6])
    f = b.create_input(1, shape=[4, 2, 3, 3])
    out = Conv2D(
        x, f, strides=[1, 1, 1, 1], pads=[1, 1, 1, 1], groups=2, data_format="NCHW"
    )
    r = _rng()
    return b.build_and_reset([out]), [
        r.standard_normal((1, 4, 6, 6)).astype(np.float32),
        r.standard_normal((4, 2, 3, 3)).astype(np.float32),
    ]


def g_conv_transpose() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder
    from ge.es.math import Conv2D, Identity, Transpose
    from ge.graph import Format

    b = GraphBuilder("conv_format")
    # torchair gives the conv's tensors format NCHW; GE's conv reads its
    # layout from there, so data_format NHWC set by the pass changes nothing
    nchw = Format.FORMAT_NCHW
    x = b.create_input(0, shape=[3, 6, 9, 9], format=nchw)
    f = b.create_input(1, shape=[6, 6, 3, 3], format=nchw)
    y = Conv2D(x, f, strides=[1, 1, 3, 3], pads=[0, 0, 0, 0], data_format="NCHW")
    y = Transpose(Transpose(y, [0, 2, 3, 1]) + 1.0, [0, 3, 1, 2])
    # GE's graph ends in a NetOutput node, which the pass relinks the last
    # Transpose's reader to; a graph output is not a node here
    # (docs/ge-compat.md, "Graph passes: nodes and descs"), so an Identity stands in
    y = Identity(y)
    r = _rng()
    return b.build_and_reset([y]), [
        r.standard_normal((3, 6, 9, 9)).astype(np.float32),
        r.standard_normal((6, 6, 3, 3)).astype(np.float32),
    ]


ADD_CUSTOM = ROOT / "examples" / "add_custom" / "add_custom_op.py"


def g_addcustom_zero() -> tuple[Any, list[np.ndarray]]:
    from ge.custom_op import bootstrap
    from ge.es import GraphBuilder

    # GE's sample has AddCustom from its own op package; ours is
    # examples/add_custom (specs/add_custom.yaml names it the author)
    bootstrap.load_custom_op_plugins(str(ADD_CUSTOM))
    from ge.es.custom import AddCustom
    from ge.es.math import Identity
    from ge.graph import Tensor

    b = GraphBuilder("addcustom_zero")
    x = b.create_input(0, shape=[2, 8])
    y = b.create_input(1, shape=[2, 8])
    # torch_forward.py adds a scalar zero (broadcast); AddCustom here needs
    # equal shapes, so the zero is a [2, 8] Const (the pass matches any Const
    # and checks its first value)
    zero = Identity(b.create_const(Tensor(np.zeros((2, 8), np.float32))))
    out = AddCustom(AddCustom(x, zero), y)
    r = _rng()
    return b.build_and_reset([out]), [
        r.standard_normal((2, 8)).astype(np.float32),
        r.standard_normal((2, 8)).astype(np.float32),
    ]


def g_matmul_add_const() -> tuple[Any, list[np.ndarray]]:
    from ge.es import GraphBuilder
    from ge.es.math import MatMul

    b = GraphBuilder("matmul_add_const")
    x = b.create_input(0, shape=[2, 3])
    w = b.create_input(1, shape=[3, 2])
    out = MatMul(x, w) + [[0.1, 0.1], [0.1, 0.1]]
    r = _rng()
    data = [r.standard_normal(s).astype(np.float32) for s in ((2, 3), (3, 2))]
    return b.build_and_reset([out]), data


GRAPHS: dict[str, Callable[[], tuple[Any, list[np.ndarray]]]] = {
    "1_fuse_matmul_add_pass": g_matmul_add,
    "2_fuse_matmul_add_pass_with_capture_tensor": g_matmul_add,
    "3_fuse_matmul_add_pass_with_pattern_matcher_config": g_matmul_add_const,
    "4_add_zero_pass": g_add_zero,
    "5_add_zero_pass_in_custom_op": g_addcustom_zero,
    "6_decompose_grouped_conv_to_splited_pass": g_grouped_conv,
    "2_move_relu_before_concat_pass": g_relu_concat,
    "3_modify_conv_data_format_pass": g_conv_transpose,
}


@dataclass
class Outcome:
    sample: str
    ok: bool
    rewrites: int
    why: str


def _run(
    graph: Any, data: list[np.ndarray], passes_on: bool
) -> tuple[list[np.ndarray], int]:
    from ge.graph import Tensor
    from ge.session import Session

    opts = {"a": "b"}
    s = Session(opts)
    s.add_graph(1, graph)
    outs = s.run_graph(1, [Tensor(d) for d in data])
    report = s.compiled(1).report
    rewrites = sum(r for _, r in report.passes.values()) if report.passes else 0
    return [o.numpy() for o in outs], rewrites


def run_sample(path: str, mirror: Path = MIRROR) -> Outcome:
    import types

    from ge.passes import clear_registered_passes

    key = path.split("/")[-4] if "/python/src/" in path else path
    name = f"{key}/{Path(path).name}"
    make = GRAPHS.get(key)
    if make is None:
        return Outcome(name, False, 0, "no graph for this sample here")
    clear_registered_passes()
    try:
        graph, data = make()
        expected, _ = _run(graph, data, False)
        module = types.ModuleType(f"ge_sample_{key}")
        module.__file__ = path
        exec(compile(source(path, mirror), path, "exec"), module.__dict__)
        graph, data = make()
        got, rewrites = _run(graph, data, True)
        if rewrites == 0:
            return Outcome(name, False, 0, "the pass rewrote nothing")
        if len(got) != len(expected):
            return Outcome(
                name, False, rewrites, f"{len(got)} outputs, not {len(expected)}"
            )
        for a, e in zip(got, expected):
            if a.shape != e.shape or not np.allclose(a, e, rtol=1e-5, atol=1e-5):
                return Outcome(
                    name, False, rewrites, "rewritten graph's numbers differ"
                )
        return Outcome(name, True, rewrites, "")
    except Exception as exc:  # the report says why
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{Path(last.filename).name}:{last.lineno}"
        return Outcome(name, False, 0, f"{type(exc).__name__}: {exc} ({where})"[:300])
    finally:
        clear_registered_passes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not (MIRROR / "HEAD").exists():
        print("no GE mirror: set GE_MIRROR to a bare git dir of hicann/ge")
        return 0
    sys.path.insert(0, str(ROOT))
    from ge.ge_global import GeApi

    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    outcomes = [run_sample(p) for p in sample_files()]
    print(f"{'sample':<75} {'result':<6} rewrites  why")
    for o in outcomes:
        print(f"{o.sample:<75} {'ok' if o.ok else 'FAIL':<6} {o.rewrites:>8}  {o.why}")
    ran = sum(o.ok for o in outcomes)
    print(f"samples run: {ran} / {len(outcomes)}")
    if args.json:
        args.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
