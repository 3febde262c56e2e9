"""What the math ops compute, in numpy, for gen-ops test (docs/opcheck.md).

The specs name these as ``reference: ops.math._reference:<function>`` where
one numpy expression cannot say the op's documented rules
(docs/math-ops.md, "Agreement with GE"): integer division truncating toward
zero with ``x / 0 = 0``, PyTorch's integer negative powers, Cast's
saturation, MatMul's float accumulation. The loader skips ``_`` files, so
this is never imported as an op module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ge.graph.numpy_dtypes import from_numpy_dtype, to_numpy_dtype
from ge_ir.promotion import promote_pair


def _float(dtype: np.dtype) -> bool:
    """A float or complex dtype, bfloat16 (ml_dtypes, kind V) included."""
    return dtype.kind in "fc" or dtype.name == "bfloat16"


def div(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """x1 / x2; integers truncate toward zero, x / 0 is 0, MIN / -1 MIN."""
    if _float(x1.dtype):
        return x1 / x2
    a, b = np.broadcast_arrays(x1.astype(np.int64), x2.astype(np.int64))
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
    q = np.where(b == 0, 0, q)
    return q.astype(x1.dtype) if x1.dtype.itemsize < 8 else _div64(x1, x2)


def _div64(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(x1, x2)
    out = np.zeros(a.shape, x1.dtype)
    for i in np.ndindex(a.shape):
        p, q = int(a[i]), int(b[i])
        if q == 0:
            continue
        r = abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)
        out[i] = np.array(r).astype(np.uint64).astype(x1.dtype)
    return out


def _affine(x: np.ndarray, scale: float, shift: float) -> np.ndarray:
    """scale * x + shift in the kernels' compute type (float for float16),
    where it may overflow, then widened."""
    c = x.astype(np.promote_types(x.dtype, np.float32))
    return (c * c.dtype.type(scale) + c.dtype.type(shift)).astype(np.float64)


def exp(x: np.ndarray, base: float, scale: float, shift: float) -> np.ndarray:
    t = _affine(x, scale, shift)
    y = np.exp(t) if base == -1 else np.power(base, t)
    return y.astype(x.dtype)


def log(x: np.ndarray, base: float, scale: float, shift: float) -> np.ndarray:
    t = np.log(_affine(x, scale, shift))
    y = t if base == -1 else t / np.log(base)
    return y.astype(x.dtype)


def pow_(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    """GE's promotion of the two dtypes; floats by C's pow, integers wrap,
    and an integer to a negative power is PyTorch's (1, +-1 or 0)."""
    promoted = promote_pair(from_numpy_dtype(x1.dtype), from_numpy_dtype(x2.dtype))
    assert promoted is not None, (x1.dtype, x2.dtype)
    out = to_numpy_dtype(promoted)
    a, b = x1.astype(out), x2.astype(out)
    if _float(out):
        return np.power(a.astype(np.float64), b.astype(np.float64)).astype(out)
    a, b = np.broadcast_arrays(a, b)
    result = np.zeros(a.shape, out)
    bits = out.itemsize * 8
    for i in np.ndindex(a.shape):
        p, q = int(a[i]), int(b[i])
        if q < 0:
            value = 1 if p == 1 else (1 if q % 2 == 0 else -1) if p == -1 else 0
        else:
            value = pow(p, q, 1 << bits)
        result[i] = np.array(value % (1 << bits)).astype(np.uint64).astype(out)
    return result


def mat_mul(
    x1: np.ndarray,
    x2: np.ndarray,
    bias: np.ndarray | None,
    transpose_x1: bool,
    transpose_x2: bool,
) -> np.ndarray:
    a = x1.T if transpose_x1 else x1
    b = x2.T if transpose_x2 else x2
    wide = np.float64 if _float(x1.dtype) else x1.dtype
    y = a.astype(wide) @ b.astype(wide)
    if bias is not None:
        y = y + bias.astype(wide)
    return y.astype(x1.dtype)


def cast(x: np.ndarray, dst_type: Any) -> np.ndarray:
    """Integers wrap, floats to integers truncate; NaN to an integer is 0,
    out of range saturates; anything to bool is x != 0."""
    dst = np.dtype(dst_type)
    if dst.kind == "b":
        return x != 0
    if _float(x.dtype) and dst.kind in "iu":
        info = np.iinfo(dst)
        t = np.trunc(x.astype(np.float64))
        t = np.where(np.isnan(t), 0, t)
        big = t >= float(info.max)
        small = t <= float(info.min)
        mid = np.where(big | small, 0, t).astype(dst)
        return np.where(big, info.max, np.where(small, info.min, mid)).astype(dst)
    with np.errstate(all="ignore"):
        return x.astype(dst)


# --- the data-movement and NN ops (Split, Concat, Conv2D, GEMM, BatchMatMulV2) ---


def split(split_dim: np.ndarray, x: np.ndarray, *, num_split: int) -> list[np.ndarray]:
    return list(np.split(x, num_split, axis=int(split_dim)))


def concat(concat_dim: np.ndarray, x: list[np.ndarray], *, N: int) -> np.ndarray:
    return np.concatenate(x, axis=int(concat_dim))


def concat_v2(x: list[np.ndarray], concat_dim: np.ndarray, *, N: int) -> np.ndarray:
    return np.concatenate(x, axis=int(concat_dim))


def _acc(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if _float(dtype) else np.dtype(np.int64)


def gemm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    *,
    transpose_a: bool,
    transpose_b: bool,
) -> np.ndarray:
    """Accumulated in float64 (int64), then the scaled sum in y's dtype."""
    acc = _acc(a.dtype)
    left = (a.T if transpose_a else a).astype(acc)
    right = (b.T if transpose_b else b).astype(acc)
    scaled = alpha.reshape(()).astype(acc) * (left @ right)
    return (scaled + beta.reshape(()).astype(acc) * c.astype(acc)).astype(a.dtype)


def batch_mat_mul(
    x1: np.ndarray,
    x2: np.ndarray,
    bias: np.ndarray | None,
    offset_w: np.ndarray | None,
    *,
    adj_x1: bool,
    adj_x2: bool,
    offset_x: int,
) -> np.ndarray:
    acc = _acc(x1.dtype)
    left = np.swapaxes(x1, -1, -2) if adj_x1 else x1
    right = np.swapaxes(x2, -1, -2) if adj_x2 else x2
    y = np.matmul(left.astype(acc), right.astype(acc))
    if bias is not None:
        y = y + bias.astype(acc)
    return y.astype(x1.dtype)


def conv2d(
    x: np.ndarray,
    filter: np.ndarray,
    bias: np.ndarray | None,
    offset_w: np.ndarray | None,
    *,
    strides: list[int],
    pads: list[int],
    dilations: list[int],
    groups: int,
    data_format: str,
    offset_x: int,
) -> np.ndarray:
    """Direct definition, output element by element (float64): y[n, o, p, q]
    is the sum over the group's input channels and the filter's taps."""
    nhwc = data_format == "NHWC"
    xs = x.transpose(0, 3, 1, 2) if nhwc else x
    ws = filter.transpose(3, 2, 0, 1) if nhwc else filter
    sh, sw = (strides[1], strides[2]) if nhwc else (strides[2], strides[3])
    dh, dw = (dilations[1], dilations[2]) if nhwc else (dilations[2], dilations[3])
    top, bottom, left, right = pads
    xs = np.pad(xs.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    ws = ws.astype(np.float64)
    n, c, h, w = xs.shape
    cout, cin, kh, kw = ws.shape
    ho = (h - dh * (kh - 1) - 1) // sh + 1
    wo = (w - dw * (kw - 1) - 1) // sw + 1
    per = cout // groups
    y = np.zeros((n, cout, ho, wo))
    for o in range(cout):
        g = o // per
        for p in range(ho):
            for q in range(wo):
                patch = xs[
                    :,
                    g * cin : (g + 1) * cin,
                    p * sh : p * sh + dh * (kh - 1) + 1 : dh,
                    q * sw : q * sw + dw * (kw - 1) + 1 : dw,
                ]
                y[:, o, p, q] = (patch * ws[o]).sum(axis=(1, 2, 3))
    if bias is not None:
        y += bias.astype(np.float64).reshape(1, -1, 1, 1)
    if nhwc:
        y = y.transpose(0, 2, 3, 1)
    return y.astype(x.dtype)
