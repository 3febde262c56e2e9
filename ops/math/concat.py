"""Concat: x's tensors joined along the constant concat_dim, the first
input (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.concat import ConcatBase

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._concat import joined
from ._host import axis_of, const_input, read, refuse_unrun, write
from ._runs import require


@register_op_impl(op_type=ConcatBase.OP_TYPE)
class Concat(ConcatBase):
    """y = concatenate(x, concat_dim)."""

    @staticmethod
    def infer_meta(
        concat_dim: TensorDesc, x: list[TensorDesc], *, N: int
    ) -> TensorDesc:
        return joined("Concat", x, const_input("Concat", 0, "concat_dim"), N)

    def compile(
        self, concat_dim: Tensor, x: list[Tensor], y: Tensor, *, N: int
    ) -> None:
        refuse_unrun(self.OP_TYPE, {"concat_dim": concat_dim, "x": x}, {"y": y})

    def execute(self, concat_dim: Tensor, x: list[Tensor], *, N: int) -> None:
        require(self.OP_TYPE, **{f"x[{i}]": t for i, t in enumerate(x)})
        (axis_value,) = read(self.OP_TYPE, concat_dim=concat_dim)
        values = [t.numpy() for t in x]
        axis = axis_of(self.OP_TYPE, "concat_dim", axis_value, values[0].ndim)
        write(0, x[0], np.concatenate(values, axis=axis))
