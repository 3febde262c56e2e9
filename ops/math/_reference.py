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
