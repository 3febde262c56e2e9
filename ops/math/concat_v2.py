"""ConcatV2: x's tensors joined along the constant concat_dim, the last
input (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.concat_v2 import ConcatV2Base

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._concat import joined
from ._host import axis_of, const_input, read, refuse_unrun, write
from ._runs import require


@register_op_impl(op_type=ConcatV2Base.OP_TYPE)
class ConcatV2(ConcatV2Base):
    """y = concatenate(x, concat_dim)."""

    @staticmethod
    def infer_meta(
        x: list[TensorDesc], concat_dim: TensorDesc, *, N: int
    ) -> TensorDesc:
        return joined("ConcatV2", x, const_input("ConcatV2", len(x), "concat_dim"), N)

    def compile(
        self, x: list[Tensor], concat_dim: Tensor, y: Tensor, *, N: int
    ) -> None:
        refuse_unrun(self.OP_TYPE, {"x": x, "concat_dim": concat_dim}, {"y": y})

    def execute(self, x: list[Tensor], concat_dim: Tensor, *, N: int) -> None:
        require(self.OP_TYPE, **{f"x[{i}]": t for i, t in enumerate(x)})
        (axis_value,) = read(self.OP_TYPE, concat_dim=concat_dim)
        values = [t.numpy() for t in x]
        axis = axis_of(self.OP_TYPE, "concat_dim", axis_value, values[0].ndim)
        write(0, x[0], np.concatenate(values, axis=axis))
