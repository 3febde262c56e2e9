"""Transpose: x's dims permuted by the constant perm (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.transpose import TransposeBase

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._host import const_input, read, refuse_unrun, write


def permutation(value: object, rank: int) -> list[int]:
    """perm as a list; ValueError unless it permutes 0..rank-1."""
    perm = [int(v) for v in np.asarray(value).reshape(-1)]
    if sorted(p % rank if rank else p for p in perm) != list(range(rank)) or any(
        not -rank <= p < rank for p in perm
    ):
        raise ValueError(
            f"Transpose: perm {perm} is not a permutation of the {rank} dims of x"
        )
    return [p % rank for p in perm]


@register_op_impl(op_type=TransposeBase.OP_TYPE)
class Transpose(TransposeBase):
    """y = transpose(x, perm)."""

    @staticmethod
    def infer_meta(x: TensorDesc, perm: TensorDesc) -> TensorDesc:
        dims = list(x.shape.origin_shape.dims)
        order = permutation(const_input("Transpose", 1, "perm"), len(dims))
        return TensorDesc([dims[p] for p in order], x.data_type)

    def compile(self, x: Tensor, perm: Tensor, y: Tensor) -> None:
        refuse_unrun(self.OP_TYPE, {"x": x, "perm": perm}, {"y": y})

    def execute(self, x: Tensor, perm: Tensor) -> None:
        value, perm_value = read(self.OP_TYPE, x=x, perm=perm)
        assert value is not None
        write(0, x, np.transpose(value, permutation(perm_value, value.ndim)))
