"""TensorHolder arithmetic and every op of ge.es.math against numpy, from an
installed ge-ops alone (tests/packaging: run from a temporary directory with
no op path and nothing of the checkout on sys.path). argv[1]: the checkout,
which no module of this process may come from."""

import os
import sys
from pathlib import Path

import numpy as np

import ge.es.math as math_ops
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Tensor
from ge.session import Session

checkout = Path(sys.argv[1]).resolve()
GeApi().ge_initialize({"ge.exec.deviceId": "0"})
builder = GraphBuilder("builtin")
f32 = DataType.DT_FLOAT
x = builder.create_input(0, data_type=f32, shape=[3, 4])
y = builder.create_input(1, data_type=f32, shape=[4])
w = builder.create_input(2, data_type=f32, shape=[4, 2])
img = builder.create_input(3, data_type=f32, shape=[1, 2, 4, 4])
flt = builder.create_input(4, data_type=f32, shape=[2, 1, 3, 3])
a = np.linspace(0.25, 3.0, 12, dtype=np.float32).reshape(3, 4)
b = np.array([0.5, 1.5, 2.0, 4.0], dtype=np.float32)
m = np.arange(8, dtype=np.float32).reshape(4, 2) / 4
pic = np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(1, 2, 4, 4)
ker = np.linspace(0.5, -0.5, 18, dtype=np.float32).reshape(2, 1, 3, 3)


def grouped_conv(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """NCHW, groups = channels, stride 1, no padding, in float64 then float32."""
    n, c, h, w_ = image.shape
    kh, kw = kernel.shape[2:]
    out = np.zeros((n, c, h - kh + 1, w_ - kw + 1))
    for ch in range(c):
        for i in range(h - kh + 1):
            for j in range(w_ - kw + 1):
                window = image[:, ch, i : i + kh, j : j + kw].astype(np.float64)
                out[:, ch, i, j] = (window * kernel[ch, 0]).sum(axis=(1, 2))
    return out.astype(np.float32)


cases = {
    "arithmetic": (x * 2.0 + y - 1 / x, a * np.float32(2) + b - np.float32(1) / a),
    "Add": (math_ops.Add(x, y), a + b),
    "Sub": (math_ops.Sub(x, y), a - b),
    "Mul": (math_ops.Mul(x, y), a * b),
    "RealDiv": (math_ops.RealDiv(x, y), a / b),
    "Div": (math_ops.Div(x, y), a / b),
    "Maximum": (math_ops.Maximum(x, y), np.maximum(a, b)),
    "Minimum": (math_ops.Minimum(x, y), np.minimum(a, b)),
    "Pow": (math_ops.Pow(x, y), np.power(a, b)),
    "Neg": (math_ops.Neg(x), -a),
    "Abs": (math_ops.Abs(math_ops.Neg(x)), a),
    "Relu": (math_ops.Relu(x - 1.5), np.maximum(a - np.float32(1.5), 0)),
    "Sqrt": (math_ops.Sqrt(x), np.sqrt(a)),
    "Rsqrt": (math_ops.Rsqrt(x), np.float32(1) / np.sqrt(a)),
    "Sigmoid": (math_ops.Sigmoid(x), 1 / (1 + np.exp(-a))),
    "Tanh": (math_ops.Tanh(x), np.tanh(a)),
    "Exp": (math_ops.Exp(x), np.exp(a)),
    "Log": (math_ops.Log(x), np.log(a)),
    "MatMul": (math_ops.MatMul(x, w), a @ m),
    "Identity": (math_ops.Identity(x), a),
    "TensorMove": (math_ops.TensorMove(x), a),
    "Split": (math_ops.Split(1, x, 2, num_split=2)[1], a[:, 2:]),
    "Concat": (math_ops.Concat(0, [x, x], N=2), np.concatenate([a, a], 0)),
    "ConcatV2": (math_ops.ConcatV2([x, x], 1, N=2), np.concatenate([a, a], 1)),
    "Transpose": (math_ops.Transpose(x, [1, 0]), a.T.copy()),
    "Conv2D": (
        math_ops.Conv2D(
            img,
            flt,
            strides=[1, 1, 1, 1],
            pads=[0, 0, 0, 0],
            groups=2,
            data_format="NCHW",
        ),
        grouped_conv(pic, ker),
    ),
    "GEMM": (
        math_ops.GEMM(x, w, [[0.5, -1.0]], 2.0, 3.0),
        np.float32(2) * (a @ m) + np.float32(3) * np.array([[0.5, -1.0]], np.float32),
    ),
    "BatchMatMulV2": (math_ops.BatchMatMulV2(x, w), a @ m),
    "Cast": (
        math_ops.Cast(x * 2.0, dst_type=DataType.DT_INT32),
        (a * 2).astype(np.int32),
    ),
}
untested = set(math_ops.__all__) - set(cases)
assert not untested, f"ge.es.math ops this program does not run: {untested}"
graph = builder.build_and_reset([holder for holder, _ in cases.values()])
session = Session({})
session.add_graph(0, graph)
outputs = session.run_graph(0, [Tensor.from_numpy(v) for v in (a, b, m, pic, ker)])
for (name, (_, want)), got in zip(cases.items(), outputs, strict=True):
    result = got.numpy()
    assert result.dtype == want.dtype, (name, result.dtype, want.dtype)
    assert np.allclose(result, want, rtol=1e-5, atol=1e-6), (name, result, want)
    print(f"{name} ok")

installed = ("ge", "ge_ir", "ge_impl")
loaded = []
for name, module in sorted(sys.modules.items()):
    file = getattr(module, "__file__", None)
    paths = [file] if file else list(getattr(module, "__path__", []) or [])
    for path in paths:
        # as found on sys.path: the test links its dependencies (numpy, ...)
        # from its own environment, which may sit in the checkout
        found = Path(os.path.abspath(path))
        assert not found.is_relative_to(checkout), (name, path)
        if name.split(".")[0] in installed or name.startswith("_ge_py_custom_op_"):
            resolved = Path(path).resolve()  # our files: copies, never links
            assert not resolved.is_relative_to(checkout), (name, path)
            assert "site-packages" in resolved.parts, (name, path)
            loaded.append(name)
# the built-in library itself was loaded, from the wheel
assert "ge_impl.math.add" in loaded and "ge.es.math.add" in loaded, loaded
assert any(n.startswith("_ge_py_custom_op_math_") for n in loaded), loaded
print("builtin ok")
