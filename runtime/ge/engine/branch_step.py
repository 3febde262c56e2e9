"""A branch step: a subgraph op run by a declared rule, not by Python.

A model file stores a node whose op declares ``control_flow`` (Note
[Declared control flow] in ``ge.custom_op.control_flow``) as a branch step:
where its selector, inputs and outputs live in the run's buffers, and one
compiled plan per branch. Running it reads the selector, applies the rule
and runs the chosen plan on the inputs' addresses, writing the node's
outputs in place (``CompiledGraph.run_at``, as a subgraph run online does).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ge.custom_op.control_flow import ControlFlow, choose
from ge.graph.numpy_dtypes import to_numpy_dtype
from ge.graph.types import DataType

if TYPE_CHECKING:
    from ge.engine.compiled import CompiledGraph, RunState

Place = tuple[int, int]  # (buffer index, byte offset) in the run's layout


@dataclass(frozen=True)
class BranchStep:
    """One node run by ``rule`` over ``plans``."""

    name: str  # the node's, for messages
    rule: ControlFlow
    selector: Place
    selector_dtype: DataType
    selector_dims: tuple[int, ...]
    inputs: tuple[Place, ...]
    outputs: tuple[Place, ...]
    plans: tuple[CompiledGraph, ...]

    def frame(self, state: RunState) -> BranchFrame:
        return BranchFrame(self, state)


class BranchFrame:
    """A branch step bound to one run state (its buffer addresses)."""

    __slots__ = ("_step", "_addrs", "_dtype", "_reads")

    def __init__(self, step: BranchStep, state: RunState) -> None:
        self._step = step
        self._addrs = state.addrs
        self._dtype = np.dtype(to_numpy_dtype(step.selector_dtype))
        self._reads = step.rule.reads_selector(step.selector_dims)

    def _address(self, place: Place) -> int:
        buffer, offset = place
        return int(self._addrs[buffer]) + offset

    def chosen(self) -> int:
        """The branch the selector picks in this run."""
        step = self._step
        first: Any = None
        if self._reads:
            raw = ctypes.string_at(self._address(step.selector), self._dtype.itemsize)
            first = np.frombuffer(raw, self._dtype)[0]
        return choose(step.rule, step.selector_dims, first, len(step.plans))

    def run(self, stream: int) -> None:
        step = self._step
        plan = step.plans[self.chosen()]
        plan.run_at(
            [self._address(p) for p in step.inputs],
            [self._address(p) for p in step.outputs],
            stream,
        )
