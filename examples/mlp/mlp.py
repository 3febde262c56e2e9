"""The sample's model: a two-layer MLP with ReLU, written with TensorHolder
arithmetic and the math library (ge.es.math), and its numpy reference.

    y = relu(x @ w1 + b1) @ w2 + b2, then standardised: (y - mean) / scale
"""

from __future__ import annotations

import numpy as np

from ge.es import GraphBuilder
from ge.es.math import MatMul, Relu
from ge.graph import DataType, Graph, Tensor

BATCH, IN, HIDDEN, OUT = 8, 64, 128, 10
MEAN, SCALE = 0.25, 4.0


def weights(seed: int = 0) -> dict[str, np.ndarray]:
    """The model's parameters (fixed, so every run agrees)."""
    rng = np.random.default_rng(seed)
    return {
        "w1": (rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN)).astype(np.float32),
        "b1": rng.standard_normal(HIDDEN).astype(np.float32) * 0.1,
        "w2": (rng.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
        "b2": rng.standard_normal(OUT).astype(np.float32) * 0.1,
    }


def build_graph(params: dict[str, np.ndarray]) -> Graph:
    """x [BATCH, IN] -> y [BATCH, OUT]; the parameters are constants."""
    builder = GraphBuilder("mlp")
    x = builder.create_input(
        0, name="x", data_type=DataType.DT_FLOAT, shape=[BATCH, IN]
    )
    w1, b1, w2, b2 = (
        builder.create_const(Tensor(params[k]), name=k)
        for k in ("w1", "b1", "w2", "b2")
    )
    hidden = Relu(MatMul(x, w1) + b1)  # Add broadcasts b1 over the batch
    logits = MatMul(hidden, w2) + b2
    builder.set_graph_output((logits - MEAN) / SCALE, 0)  # numbers on either side
    return builder.build_and_reset()


def reference(x: np.ndarray, params: dict[str, np.ndarray]) -> np.ndarray:
    hidden = np.maximum(x @ params["w1"] + params["b1"], np.float32(0))
    logits = hidden @ params["w2"] + params["b2"]
    return (logits - np.float32(MEAN)) / np.float32(SCALE)


def sample_input(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((BATCH, IN)).astype(np.float32)
