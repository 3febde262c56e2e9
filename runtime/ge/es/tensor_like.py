"""TensorLike: Python numbers and (nested) lists that builders turn into consts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np

__all__ = ["TensorLike", "is_tensor_like", "literal_array"]

TensorLike: TypeAlias = int | float | bool | Sequence["TensorLike"]


def is_tensor_like(value: object) -> bool:
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return True
    if isinstance(value, np.ndarray):
        return True
    return isinstance(value, (list, tuple)) and all(is_tensor_like(v) for v in value)


def literal_array(value: object) -> np.ndarray:
    """The numpy array of a TensorLike; ValueError for ragged lists."""
    try:
        array = np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"irregular nested list: {exc}") from None
    if array.dtype == object:
        raise ValueError("irregular nested list (rows of different lengths)")
    return array
