"""Helpers of the built-in ops whose CPU implementation is numpy inside an
``execute`` callback (Identity, TensorMove, Split, Concat, ConcatV2,
Transpose, Conv2D, GEMM, BatchMatMulV2): reading a constant input when the
graph is compiled, and writing a result to an output.

Note [Value inputs]: GE's Split, Concat, ConcatV2 and Transpose take their
axis or permutation as an input tensor, which GE's shape inference reads as
a constant (a value-dependent input). Here ``infer_meta`` reads it with
``get_infer_meta_ctx().get_input_const_data(i)``: the value when a Const
node produces it, else None, and then the op refuses with a ValueError that
says to make it a constant (the output's shape would not be known before
the run).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ge.custom_op import get_execute_ctx, get_infer_meta_ctx
from ge.runtime import Tensor

from ._runs import require


def const_input(op_type: str, index: int, name: str) -> np.ndarray:
    """The value of input ``index`` (Note [Value inputs])."""
    value = get_infer_meta_ctx().get_input_const_data(index)
    if value is None:
        raise ValueError(
            f"{op_type}: input {name} must be a constant (a Const node, e.g. a "
            f"number passed to the builder): the output's shape depends on its value"
        )
    return np.asarray(value)


def axis_of(op_type: str, name: str, value: Any, rank: int) -> int:
    """A dimension index given as a 0-d (or one-element) tensor, in 0..rank-1."""
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"{op_type}: {name} must hold one value, got {flat.size}")
    axis = int(flat[0])
    if not -rank <= axis < rank:
        raise ValueError(
            f"{op_type}: {name} {axis} is out of range for a tensor of rank {rank}"
            + (f" (valid: {-rank}..{rank - 1})" if rank else "")
        )
    return axis % rank


def write(index: int, like: Tensor, value: np.ndarray) -> None:
    """Output ``index``: ``value``'s shape, ``like``'s dtype and format."""
    y = get_execute_ctx().malloc_output_tensor(
        index, list(value.shape), like.format, like.data_type
    )
    y.copy_from(value)


def read(op_type: str, **slots: Tensor | None) -> list[np.ndarray | None]:
    """The inputs as arrays, after checking the CPU runs their dtypes."""
    require(op_type, **slots)
    return [None if t is None else t.numpy() for t in slots.values()]
