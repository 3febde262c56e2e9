"""CaseCustom: runs the branch branch_index selects on the inputs.

Every branch is compiled for the inputs when the graph compiles (their
outputs must agree); execute reads branch_index (GE's rule: out of range,
negative included, picks the last branch) and runs that branch's plan
straight into the node's outputs (ops/control/_branches.py).
"""

from __future__ import annotations

from ge_impl.control.case_custom import CaseCustomBase

from ge.custom_op import (
    ControlFlow,
    get_execute_ctx,
    get_infer_meta_ctx,
    register_op_impl,
)
from ge.runtime import Tensor, TensorDesc

from ._branches import agreed_outputs, branch_index, run_branch


@register_op_impl(op_type=CaseCustomBase.OP_TYPE)
class CaseCustom(CaseCustomBase):
    """output = branches[branch_index](input), the last branch when out of range."""

    # Offline, a model file runs GE's rule itself (Note [Declared control flow]).
    control_flow = ControlFlow.CASE

    @staticmethod
    def infer_meta(
        branch_index: TensorDesc, input: list[TensorDesc]
    ) -> list[TensorDesc]:
        ctx = get_infer_meta_ctx()
        count = ctx.get_dynamic_subgraph_num("branches")
        if count == 0:
            raise ValueError("CaseCustom needs at least one branch")
        branches = [
            (f"branches[{i}]", ctx.get_dynamic_subgraph("branches", i))
            for i in range(count)
        ]
        return agreed_outputs("CaseCustom", branches, input)

    def execute(self, branch_index: Tensor, input: list[Tensor]) -> None:
        ctx = get_execute_ctx()
        count = ctx.get_dynamic_subgraph_num("branches")
        chosen = branch_index_of(branch_index, count)
        run_branch(ctx.get_dynamic_subgraph("branches", chosen), input)


branch_index_of = branch_index
