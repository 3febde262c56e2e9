"""AddCustom with a host kernel (GE's host_cpu_add_custom/constant_folding
sample, written here): the prototype from ``register_op``, and an ``execute``
registered with ``register_kernel(backend=OpBackend.HOST)``, which constant
folding calls when the graph compiles.
"""

from __future__ import annotations

import numpy as np

from ge.custom_op import (
    OpBackend,
    get_execute_ctx,
    register_kernel,
    register_op,
    register_op_impl,
)
from ge.runtime import Tensor, TensorDesc

CALLS = {"host": 0}  # how often the host kernel ran in this process


@register_op(op_type="AddCustom")
def add_custom_infer_meta(x: TensorDesc, y: TensorDesc) -> TensorDesc:
    if x.shape.origin_shape.dims != y.shape.origin_shape.dims:
        raise ValueError("AddCustom: x and y must have the same shape")
    if x.data_type != y.data_type:
        raise ValueError("AddCustom: x and y must have the same dtype")
    return TensorDesc(x.shape, x.data_type)


@register_op_impl(op_type="AddCustom")
class AddCustomHost:
    @register_kernel(backend=OpBackend.HOST)
    def execute(self, x: Tensor, y: Tensor) -> None:
        CALLS["host"] += 1
        ctx = get_execute_ctx()
        z = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        z.copy_from(np.add(x.numpy(), y.numpy()))
