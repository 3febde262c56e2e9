"""Model files the offline tests share: compiled once per process from
graphs of annotated-args ops (the op modules are loaded for compiling only).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ge.custom_op import bootstrap
from ge.es import GraphBuilder
from ge.graph import Graph, Tensor

ROOT = Path(__file__).resolve().parents[2]
ADD_OPS = ROOT / "examples" / "annotated_args_refresh" / "add_ops.py"
OP_MODULES = [
    ADD_OPS,
    ROOT / "ops" / "custom" / "scale_custom.py",
    ROOT / "ops" / "custom" / "sum_n_custom.py",
]
N = 8192
RICH_N = 2048


def load_op_modules() -> None:
    bootstrap.load_custom_op_plugins(os.pathsep.join(map(str, OP_MODULES)))


def add_graph() -> Graph:
    """The offline sample's graph: output = x + y over 8192 floats."""
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder("offline_add")
    x = builder.create_input(0, name="data_x", shape=[N])
    y = builder.create_input(1, name="data_y", shape=[N])
    return builder.build_and_reset([AnnotatedAddCustom(x, y)])


def rich_graph() -> Graph:
    """Four launches: a constant, workspaces, an absent optional input, a
    dynamic input (list arguments) and two outputs."""
    from ge.es.custom import AnnotatedAddCustom, ScaleCustom, SumNCustom

    builder = GraphBuilder("rich_model")
    x = builder.create_input(0, name="x", shape=[RICH_N])
    y = builder.create_input(1, name="y", shape=[RICH_N])
    s = AnnotatedAddCustom(x, y)
    t = ScaleCustom(s, alpha=2.0)
    bias = builder.create_const(Tensor(np.arange(RICH_N, dtype=np.float32)))
    u = ScaleCustom(t, bias, alpha=0.5)
    return builder.build_and_reset([SumNCustom([s, t, u, x]), t])


def rich_expected(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    s = x + y
    t = s * np.float32(2.0)
    u = t * np.float32(0.5) + np.arange(RICH_N, dtype=np.float32)
    return [s + t + u + x, t]


@functools.cache
def model_bytes(which: str) -> bytes:
    from ge.offline import compile_model

    load_op_modules()
    return compile_model(add_graph() if which == "add" else rich_graph())
