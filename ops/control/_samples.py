"""The sample subgraphs gen-ops test builds IfCustom and CaseCustom with
(``samples.graphs`` in their specs; docs/opcheck.md), which
``_reference.py`` mirrors in numpy.

Each branch moves its inputs to its outputs in its own order, so every
dtype can be drawn and the branch that ran is visible in the outputs:
branch k gives the inputs rotated left by k (branch 0 is the identity).
A case's inputs share one shape and dtype (its shape rules say so), so
every branch gives outputs of the same shapes and dtypes.
"""

from __future__ import annotations

from typing import Any

from ge.es import GraphBuilder, TensorHolder
from ge.graph import Graph


def rotated(name: str, inputs: list[TensorHolder], k: int) -> Graph:
    """A graph of Data nodes like ``inputs`` whose outputs are those Data
    nodes rotated left by ``k``."""
    builder = GraphBuilder(name)
    data = [
        builder.create_input(i, data_type=h.data_type, shape=h.shape or [])
        for i, h in enumerate(inputs)
    ]
    k %= max(len(data), 1)
    return builder.build_and_reset(data[k:] + data[:k])


def if_custom(cond: TensorHolder, input: list[TensorHolder]) -> dict[str, Any]:
    """then_branch: the inputs; else_branch: the inputs rotated by one."""
    return {
        "output_num": len(input),
        "then_branch": rotated("then_branch", input, 0),
        "else_branch": rotated("else_branch", input, 1),
    }


BRANCHES = 3


def case_custom(
    branch_index: TensorHolder, input: list[TensorHolder]
) -> dict[str, Any]:
    """Three branches: the inputs rotated by 0, 1 and 2."""
    return {
        "output_num": len(input),
        "branches": [rotated(f"branch_{k}", input, k) for k in range(BRANCHES)],
    }
