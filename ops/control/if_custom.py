"""IfCustom: runs then_branch or else_branch on the inputs.

Both branches are compiled for the inputs when the graph compiles (their
outputs must agree); execute reads cond (GE's truth: a scalar non-zero, any
other shape non-empty) and runs the chosen branch's plan straight into the
node's outputs (ops/control/_branches.py).
"""

from __future__ import annotations

from ge_impl.control.if_custom import IfCustomBase

from ge.custom_op import (
    ControlFlow,
    get_execute_ctx,
    get_infer_meta_ctx,
    register_op_impl,
)
from ge.runtime import Tensor, TensorDesc

from ._branches import agreed_outputs, condition, run_branch

BRANCHES = ("then_branch", "else_branch")


@register_op_impl(op_type=IfCustomBase.OP_TYPE)
class IfCustom(IfCustomBase):
    """output = then_branch(input) if cond else else_branch(input)."""

    # Offline, a model file runs GE's rule itself (Note [Declared control flow]).
    control_flow = ControlFlow.IF

    @staticmethod
    def infer_meta(cond: TensorDesc, input: list[TensorDesc]) -> list[TensorDesc]:
        ctx = get_infer_meta_ctx()
        branches = [(name, ctx.get_subgraph(name)) for name in BRANCHES]
        return agreed_outputs("IfCustom", branches, input)

    def execute(self, cond: Tensor, input: list[Tensor]) -> None:
        name = BRANCHES[0] if condition(cond) else BRANCHES[1]
        run_branch(get_execute_ctx().get_subgraph(name), input)
