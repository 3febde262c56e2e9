"""What the ops of ops/custom compute, in numpy, for gen-ops test
(docs/opcheck.md). Their specs name these as
``reference: ops.custom._reference:<function>``; the loader skips ``_``
files, so this is never imported as an op module."""

from __future__ import annotations

from typing import Any

import numpy as np


def cast(x: np.ndarray, dst_type: Any, truncate: bool) -> np.ndarray:
    """Float to int rounds half to even (or truncates), NaN is 0, out of
    range saturates; everything else is numpy's astype."""
    dst = np.dtype(dst_type)
    if x.dtype.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        t = (
            np.trunc(x.astype(np.float64))
            if truncate
            else np.rint(x.astype(np.float64))
        )
        t = np.where(np.isnan(t), 0, t)
        big, small = t >= float(info.max), t <= float(info.min)
        mid = np.where(big | small, 0, t).astype(dst)
        return np.where(big, info.max, np.where(small, info.min, mid)).astype(dst)
    with np.errstate(all="ignore"):
        return x.astype(dst)


def concat(x: list[np.ndarray], concat_dim: int) -> np.ndarray:
    return np.concatenate(x, axis=concat_dim)


def split(x: np.ndarray, num_split: int, split_dim: int) -> list[np.ndarray]:
    return [np.ascontiguousarray(p) for p in np.split(x, num_split, axis=split_dim)]


def layer_norm(
    x: np.ndarray,
    gamma: np.ndarray | None,
    beta: np.ndarray | None,
    begin_norm_axis: int,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axis = begin_norm_axis % x.ndim
    axes = tuple(range(axis, x.ndim))
    wide = x.astype(np.float64)
    mean = wide.mean(axis=axes, keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + epsilon)
    y = (wide - mean) * rstd
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    keep = x.shape[:axis] + (1,) * (x.ndim - axis)
    return (
        y.astype(x.dtype),
        mean.reshape(keep).astype(np.float32),
        rstd.reshape(keep).astype(np.float32),
    )


def pad(
    x: np.ndarray, paddings: list[list[int]], mode: str, pad_value: float
) -> np.ndarray:
    return np.pad(x, [tuple(p) for p in paddings], constant_values=pad_value).astype(
        x.dtype
    )


def reduce_sum(x: np.ndarray, axes: list[int], keep_dims: bool) -> np.ndarray:
    over = tuple(axes) if axes else None
    return x.astype(np.float64).sum(axis=over, keepdims=keep_dims).astype(x.dtype)


def fill(shape: list[int], dtype: Any, value: float) -> np.ndarray:
    return np.full(shape, value, dtype=np.dtype(dtype))
