"""The control-flow rules a subgraph op can declare, so that a model file
can run it without the op's Python.

Note [Declared control flow]: a subgraph op's ``execute`` is Python, and a
model file holds none (docs/model-format.md). GE's built-in If and Case are
not user code: GE's runtime chooses the branch. An implementation class
states that its op follows one of those two rules with a class attribute,

    control_flow = ControlFlow.IF      # or ControlFlow.CASE

and then ``compile_model`` stores the node as a branch step: the rule's name,
where the selector tensor lives, and one nested plan per subgraph, compiled
for the node's inputs. The model's runtime applies the rule (``choose``
below) and runs the chosen plan; the op's module is never imported.

A declaring op's node has GE's If / Case layout: input 0 is the selector, a
single tensor; every other input instance, in order, is passed to the
branch as its Data nodes 0..n-1; the branch's outputs are the node's
outputs; the branches are the node's subgraphs in IR order (a dynamic slot
contributing each of its graphs). ``IF`` has exactly two branches: the
first when the selector is true (a scalar non-zero; a tensor of any other
shape when it has elements, its values unread; a float32 or float64
scalar when its magnitude exceeds its type's epsilon, as GE's
control_kernel.cc converts it), the second otherwise.
``CASE`` has one or more and runs the one its selector's first element
names, the last one when that is out of range (negative included).

Online, the op's own ``execute`` runs, so the declaration is a promise the
op keeps; ops/control's samples call ``choose`` from their execute, and
``opcheck`` compares the offline model with the online run.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from ge.graph.types import DataType

__all__ = ["ControlFlow", "choose", "declared_control_flow"]


class ControlFlow(enum.StrEnum):
    """GE's branch-choosing rules; the value is the model file's word."""

    IF = "if"
    CASE = "case"

    @property
    def selector_dtypes(self) -> frozenset[DataType]:
        """The selector dtypes a model file can read for this rule."""
        return _SELECTORS[self]

    def branch_count_error(self, count: int) -> str | None:
        """Why ``count`` branches do not suit the rule (None when they do)."""
        if self is ControlFlow.IF and count != 2:
            return f"an IF takes exactly 2 branches, the node has {count}"
        if self is ControlFlow.CASE and count < 1:
            return "a CASE takes at least 1 branch, the node has none"
        return None

    def reads_selector(self, dims: Sequence[int]) -> bool:
        """Whether the choice reads the selector's value (an IF with a
        non-scalar selector decides by its shape alone)."""
        return self is ControlFlow.CASE or not dims


_INTEGERS = frozenset(
    {
        DataType.DT_INT8,
        DataType.DT_INT16,
        DataType.DT_INT32,
        DataType.DT_INT64,
        DataType.DT_UINT8,
        DataType.DT_UINT16,
        DataType.DT_UINT32,
        DataType.DT_UINT64,
    }
)
_SELECTORS = {
    ControlFlow.IF: _INTEGERS
    | {DataType.DT_BOOL, DataType.DT_FLOAT, DataType.DT_DOUBLE},
    ControlFlow.CASE: _INTEGERS,
}


def choose(rule: ControlFlow, dims: Sequence[int], first: object, count: int) -> int:
    """The branch ``rule`` runs for a selector of shape ``dims`` whose first
    element is ``first`` (a numpy scalar of the selector's dtype; not read
    for an IF with ``dims``), out of ``count`` branches."""
    if rule is ControlFlow.IF:
        if dims:
            true = all(d != 0 for d in dims)
        elif isinstance(first, np.floating):  # GE: |x| > the type's epsilon
            true = bool(abs(first) > np.finfo(first.dtype).eps)
        else:
            true = bool(first != 0)
        return 0 if true else 1
    value = int(first)  # type: ignore[call-overload]
    return value if 0 <= value < count else count - 1


def declared_control_flow(cls: type, op_type: str) -> ControlFlow | None:
    """The ``control_flow`` class attribute of an implementation class
    (TypeError when it is there but not a ControlFlow)."""
    value = getattr(cls, "control_flow", None)
    if value is None or isinstance(value, ControlFlow):
        return value
    raise TypeError(
        f"register_op_impl op_type '{op_type}': {cls.__qualname__}.control_flow is "
        f"{value!r}; set it to ge.custom_op.ControlFlow.IF or ControlFlow.CASE "
        "(docs/runtime.md, Subgraph ops), or leave it out"
    )
