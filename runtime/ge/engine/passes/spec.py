"""What a fused element-wise kernel computes, as the math library's code
generator (``ops/math/_fusion.py``) reads it."""

from __future__ import annotations

from dataclasses import dataclass

from ge.graph.types import DataType
from ge_ir.elementwise import Expr


@dataclass(frozen=True)
class FusedInput:
    """A tensor the region reads (its shape broadcasts to the region's):
    from memory, or, for a one-element Const, from ``value`` (its bytes),
    written into the kernel."""

    dtype: DataType
    shape: tuple[int, ...]
    value: bytes | None = None


@dataclass(frozen=True)
class FusedNode:
    """One node of a region, in a topological order: its op type, output
    dtype, attrs, and each input as ("in", k) (input k of the kernel) or
    ("node", j) (the value of an earlier node j). A custom op's node has
    its element-wise expression (``expr``) and the names of its present
    inputs, in ``args`` order (``inputs``)."""

    op_type: str
    dtype: DataType
    args: tuple[tuple[str, int], ...]
    attrs: tuple[tuple[str, float | int], ...] = ()
    expr: Expr | None = None
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class FusedKernelSpec:
    """A region: the shape of every node's output, the inputs, the nodes,
    and which nodes' values are written out (by node index)."""

    shape: tuple[int, ...]
    inputs: tuple[FusedInput, ...]
    nodes: tuple[FusedNode, ...]
    outputs: tuple[int, ...]
