"""GEMM: alpha * (a @ b) + beta * c (numpy)."""

from __future__ import annotations

import numpy as np
from ge_impl.math.gemm import GEMMBase

from ge.custom_op import register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._host import read, refuse_unrun, write
from ._matmuls import accumulator, batch_dims


def _dims(
    a: list[int],
    b: list[int],
    c: list[int],
    alpha: list[int],
    beta: list[int],
    ta: bool,
    tb: bool,
) -> list[int]:
    if len(a) != 2 or len(b) != 2:
        raise ValueError(f"GEMM: a {a} and b {b} must be 2-D")
    dims = batch_dims("GEMM", a, b, ta, tb)
    try:
        np.broadcast_shapes(tuple(c), tuple(dims))
    except ValueError:
        raise ValueError(f"GEMM: c {c} does not broadcast to {dims}") from None
    for name, s in (("alpha", alpha), ("beta", beta)):
        if int(np.prod(s)) != 1:
            raise ValueError(f"GEMM: {name} must have one element, got shape {s}")
    return dims


@register_op_impl(op_type=GEMMBase.OP_TYPE)
class GEMM(GEMMBase):
    """y = alpha * op(a) @ op(b) + beta * c."""

    @staticmethod
    def infer_meta(
        a: TensorDesc,
        b: TensorDesc,
        c: TensorDesc,
        alpha: TensorDesc,
        beta: TensorDesc,
        *,
        transpose_a: bool,
        transpose_b: bool,
    ) -> TensorDesc:
        shapes = [list(d.shape.origin_shape.dims) for d in (a, b, c, alpha, beta)]
        return TensorDesc(_dims(*shapes, transpose_a, transpose_b), a.data_type)

    def compile(
        self,
        a: Tensor,
        b: Tensor,
        c: Tensor,
        alpha: Tensor,
        beta: Tensor,
        y: Tensor,
        *,
        transpose_a: bool,
        transpose_b: bool,
    ) -> None:
        inputs = {"a": a, "b": b, "c": c, "alpha": alpha, "beta": beta}
        refuse_unrun(self.OP_TYPE, inputs, {"y": y})

    def execute(
        self,
        a: Tensor,
        b: Tensor,
        c: Tensor,
        alpha: Tensor,
        beta: Tensor,
        *,
        transpose_a: bool,
        transpose_b: bool,
    ) -> None:
        av, bv, cv, al, be = read(self.OP_TYPE, a=a, b=b, c=c, alpha=alpha, beta=beta)
        assert av is not None and bv is not None and cv is not None
        assert al is not None and be is not None
        acc = accumulator(av.dtype)
        left = av.T if transpose_a else av
        right = bv.T if transpose_b else bv
        product = left.astype(acc) @ right.astype(acc)
        y = al.reshape(()).astype(acc) * product + be.reshape(()).astype(
            acc
        ) * cv.astype(acc)
        write(0, a, y.astype(av.dtype))
