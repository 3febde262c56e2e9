"""What IfCustom and CaseCustom share: branch outputs agreed at compile time,
GE's reading of a condition and of a branch index, and running one branch
into the node's outputs (Note [Subgraph ops] in ``ge.custom_op.subgraphs``).

GE's rules (docs/ge-compat.md, "Control ops"): a scalar condition is true
when non-zero, a condition of any other shape when it has elements (its
values are not read); a branch index below 0 or past the last branch picks
the last branch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ge.custom_op import ControlFlow, Subgraph, get_execute_ctx, get_infer_meta_ctx
from ge.custom_op.control_flow import choose
from ge.graph import Format
from ge.runtime import Tensor, TensorDesc


def _describe(descs: Sequence[TensorDesc]) -> str:
    return ", ".join(
        f"{d.data_type.spec_name}{list(d.shape.origin_shape.dims)}" for d in descs
    )


def agreed_outputs(
    op: str, branches: Sequence[tuple[str, Subgraph]], inputs: list[TensorDesc]
) -> list[TensorDesc]:
    """Every branch compiled for ``inputs``; their outputs, which must agree
    in count, shapes and dtypes (the node's outputs are planned once) and in
    count with the node's ``output_num``."""
    first_name, first = branches[0]
    want = first.infer(inputs)
    for name, branch in branches[1:]:
        got = branch.infer(inputs)
        same = len(got) == len(want) and all(
            g.data_type is w.data_type
            and g.shape.origin_shape.dims == w.shape.origin_shape.dims
            for g, w in zip(got, want)
        )
        if not same:
            raise ValueError(
                f"{op}: branch {name} gives ({_describe(got)}) but {first_name} "
                f"gives ({_describe(want)}); every branch must give outputs of "
                "the same shapes and dtypes"
            )
    count = get_infer_meta_ctx().get_dynamic_output_num(0)
    if len(want) != count:
        raise ValueError(
            f"{op}: its branches give {len(want)} output(s) but the node has "
            f"output_num {count}; build it with output_num={len(want)}"
        )
    return want


def condition(cond: Tensor) -> bool:
    """GE's truth of an If condition (the rule model files apply too, Note
    [Declared control flow] in ``ge.custom_op.control_flow``)."""
    dims = list(cond.storage_shape.dims)
    first = None if dims else cond.numpy().reshape(-1)[0]
    return choose(ControlFlow.IF, dims, first, 2) == 0


def branch_index(index: Tensor, count: int) -> int:
    """GE's Case branch: the index, or the last branch when out of range."""
    value = np.asarray(index.numpy()).reshape(-1)[0]
    return choose(ControlFlow.CASE, list(index.storage_shape.dims), value, count)


def run_branch(branch: Subgraph, inputs: list[Tensor]) -> None:
    """Run ``branch`` on ``inputs`` into the node's outputs, allocated as
    the branch's outputs are described."""
    ctx = get_execute_ctx()
    descs = branch.infer(
        [TensorDesc(list(t.storage_shape.dims), t.data_type) for t in inputs]
    )
    outputs = [
        ctx.malloc_output_tensor(
            i, d.shape.origin_shape.dims, Format.FORMAT_ND, d.data_type
        )
        for i, d in enumerate(descs)
    ]
    branch.run(inputs, outputs)
