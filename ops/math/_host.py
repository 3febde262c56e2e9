"""Helpers of the built-in ops whose CPU implementation is numpy inside an
``execute`` callback (Identity, TensorMove, Split, Concat, ConcatV2,
Transpose, Conv2D, GEMM, BatchMatMulV2): refusing at compile the dtypes
they declare and do not run, reading a constant input when the graph is
compiled, and writing a result to an output.

Their ``compile`` does no more than ``refuse_unrun``: there is no kernel to
build, but a compile callback is where a refusal is a CompileError when
the graph is compiled rather than an ExecuteError when it runs (Note
[Declared and run dtypes] in ``_runs``). ``read`` checks again in
``execute``, which a host kernel could reach without ``compile``.

Note [Value inputs]: GE's Split, Concat, ConcatV2 and Transpose take their
axis or permutation as an input tensor, which GE's shape inference reads as
a constant (a value-dependent input). Here ``infer_meta`` reads it with
``get_infer_meta_ctx().get_input_const_data(i)``: the value when a Const
node produces it, else None, and then the op refuses with a ValueError that
says to make it a constant (the output's shape would not be known before
the run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ge.custom_op import get_execute_ctx, get_infer_meta_ctx
from ge.runtime import Tensor

from ._runs import require, require_outputs

# A slot as compile receives it: a tensor, a dynamic slot's list, or None.
Slot = Tensor | Sequence[Tensor] | None


def _named(slots: Mapping[str, Slot]) -> dict[str, Tensor | None]:
    """Each tensor by its name; a dynamic slot's as name[i]."""
    named: dict[str, Tensor | None] = {}
    for name, slot in slots.items():
        if isinstance(slot, (list, tuple)):
            named.update((f"{name}[{i}]", t) for i, t in enumerate(slot))
        else:
            named[name] = slot
    return named


def refuse_unrun(
    op_type: str, inputs: Mapping[str, Slot], outputs: Mapping[str, Slot]
) -> None:
    """compile's check: a TypeError naming the first input, else output,
    whose dtype ``op_type`` declares and the CPU device does not run."""
    require(op_type, **_named(inputs))
    require_outputs(op_type, **_named(outputs))


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
    """The inputs as arrays. Their dtypes were checked once, by the op's
    ``compile`` (``refuse_unrun``), not on every run."""
    return [None if t is None else t.numpy() for t in slots.values()]
