"""MatMul: the implementation (annotated args; the kernel in _matmul.py)."""

from __future__ import annotations

from ge_impl.math.mat_mul import MatMulBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._elementwise import Kernels
from ._matmul import matmul_dims

_KERNELS = Kernels(MatMulBase.OP_TYPE, "math_mat_mul", "mat_mul")


@register_op_impl(op_type=MatMulBase.OP_TYPE)
class MatMul(MatMulBase):
    """Builds one kernel per dtype, shapes and transposes."""

    @staticmethod
    def infer_meta(
        x1: TensorDesc,
        x2: TensorDesc,
        bias: TensorDesc | None,
        *,
        transpose_x1: bool,
        transpose_x2: bool,
    ) -> TensorDesc:
        s1 = tuple(x1.shape.origin_shape.dims)
        s2 = tuple(x2.shape.origin_shape.dims)
        m, _, n = matmul_dims(s1, s2, transpose_x1, transpose_x2)
        if bias is not None and tuple(bias.shape.origin_shape.dims) != (n,):
            raise ValueError(f"MatMul: bias must have shape [{n}]")
        return TensorDesc([m, n], x1.data_type)

    def compile(
        self,
        x1: Tensor,
        x2: Tensor,
        bias: Tensor | None,
        y: Tensor,
        *,
        transpose_x1: bool,
        transpose_x2: bool,
    ) -> None:
        _KERNELS.matmul(x1, x2, bias, transpose_x1, transpose_x2)

    def launch_config(
        self,
        x1: Tensor,
        x2: Tensor,
        bias: Tensor | None,
        y: Tensor,
        *,
        transpose_x1: bool,
        transpose_x2: bool,
    ) -> LaunchConfig:
        return _KERNELS.matmul(x1, x2, bias, transpose_x1, transpose_x2)
