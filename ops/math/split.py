"""Split: num_split equal parts of x along the constant split_dim (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.split import SplitBase

from ge.custom_op import get_infer_meta_ctx, register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._host import axis_of, const_input, read, refuse_unrun, write


def part_dims(dims: list[int], axis: int, num_split: int) -> list[int]:
    """Each part's dims; ValueError when num_split does not divide the axis."""
    if num_split < 1 or dims[axis] % num_split:
        raise ValueError(
            f"Split: num_split {num_split} does not divide dim {axis} of x {dims} "
            f"(size {dims[axis]}) into equal parts"
        )
    part = list(dims)
    part[axis] //= num_split
    return part


@register_op_impl(op_type=SplitBase.OP_TYPE)
class Split(SplitBase):
    """y[i] = the i-th equal part of x along split_dim."""

    @staticmethod
    def infer_meta(
        split_dim: TensorDesc, x: TensorDesc, *, num_split: int
    ) -> list[TensorDesc]:
        dims = list(x.shape.origin_shape.dims)
        axis = axis_of(
            "Split", "split_dim", const_input("Split", 0, "split_dim"), len(dims)
        )
        count = get_infer_meta_ctx().get_dynamic_output_num(0)
        if count != num_split:
            raise ValueError(
                f"Split: the node has {count} output(s) (y_num) but num_split is "
                f"{num_split}; pass the same number for both"
            )
        part = part_dims(dims, axis, num_split)
        return [TensorDesc(part, x.data_type) for _ in range(num_split)]

    def compile(
        self, split_dim: Tensor, x: Tensor, y: list[Tensor], *, num_split: int
    ) -> None:
        refuse_unrun(self.OP_TYPE, {"split_dim": split_dim, "x": x}, {"y": y})

    def execute(self, split_dim: Tensor, x: Tensor, *, num_split: int) -> None:
        axis_value, value = read(self.OP_TYPE, split_dim=split_dim, x=x)
        assert value is not None
        axis = axis_of(self.OP_TYPE, "split_dim", axis_value, value.ndim)
        for i, part in enumerate(np.split(value, num_split, axis=axis)):
            write(i, x, part)
