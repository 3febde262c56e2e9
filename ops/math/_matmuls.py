"""GEMM and BatchMatMulV2's shapes (numpy kernels)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def batch_dims(
    op_type: str, s1: Sequence[int], s2: Sequence[int], t1: bool, t2: bool
) -> list[int]:
    """The product's dims: [..., M, N] with numpy's batch broadcasting."""
    if len(s1) < 2 or len(s2) < 2:
        raise ValueError(f"{op_type}: x1 {list(s1)} and x2 {list(s2)} must be >= 2-D")
    m, k1 = (s1[-1], s1[-2]) if t1 else (s1[-2], s1[-1])
    k2, n = (s2[-1], s2[-2]) if t2 else (s2[-2], s2[-1])
    if k1 != k2:
        raise ValueError(
            f"{op_type}: inner dims differ: x1 {list(s1)} gives K={k1}, "
            f"x2 {list(s2)} K={k2} (with the transposes)"
        )
    try:
        batch = np.broadcast_shapes(tuple(s1[:-2]), tuple(s2[:-2]))
    except ValueError:
        raise ValueError(
            f"{op_type}: batch dims {list(s1[:-2])} and {list(s2[:-2])} do not broadcast"
        ) from None
    return [*batch, m, n]


def accumulator(dtype: np.dtype) -> np.dtype:
    """float for the floats (float16 and bfloat16 included), the integer itself
    (wrapping) for integers."""
    return np.dtype(np.float32) if dtype.kind in "fV" else dtype
