"""MatMul: the implementation (annotated args; the kernel in _matmul.py)."""

from __future__ import annotations

from ge_impl.math.mat_mul import MatMulBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.runtime import Tensor, TensorDesc

from ._elementwise import Kernels, check_dtype, dims
from ._matmul import matmul_dims, matmul_source
from ._runs import require

_KERNELS = Kernels(MatMulBase.OP_TYPE, "math_mat_mul", "mat_mul")


def _launch(
    x1: Tensor, x2: Tensor, bias: Tensor | None, t1: bool, t2: bool
) -> LaunchConfig:
    """The launch of y = x1 @ x2 (+ bias) for these tensors (built if new)."""
    require(_KERNELS.op_type, x1=x1, x2=x2, bias=bias)
    dtype = check_dtype(_KERNELS.op_type, x1)
    key = (dtype, dims(x1), dims(x2), bias is None, t1, t2)
    m, k, n = matmul_dims(dims(x1), dims(x2), t1, t2)
    if bias is not None and dims(bias) != (n,):
        raise ValueError(f"MatMul: bias must have shape [{n}], got {list(dims(bias))}")

    def make() -> tuple[str, int]:
        return matmul_source(_KERNELS.kernel, dtype, m, k, n, t1, t2), m * 64

    return _KERNELS.get(key, make)


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
        _launch(x1, x2, bias, transpose_x1, transpose_x2)

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
        return _launch(x1, x2, bias, transpose_x1, transpose_x2)
