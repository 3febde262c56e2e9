"""AddCustom: the implementation (the author's module; gen-ops scaffolded it
once from specs/add_custom.yaml and never touches it again).

execute allocates the output and launches a C kernel, built with gcc for the
input's dtype the first time it is needed.
"""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.add_custom import AddCustomBase

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.device import rt
from ge.device.kernels import Kernel, load_kernel
from ge.graph import DataType
from ge.runtime import Tensor

BLOCK = 1024  # elements per block, as in add_custom_kernel.c
SOURCE = Path(__file__).resolve().parent / "add_custom_kernel.c"
C_TYPES = {DataType.DT_FLOAT: "float", DataType.DT_FLOAT16: "_Float16"}


def kernel(data_type: DataType) -> Kernel:
    """The kernel for ``data_type`` (gcc runs once; then it comes from memory)."""
    return load_kernel(
        SOURCE, "add_custom", defines={"T": C_TYPES[data_type]}, name="add_custom"
    )


@register_op_impl(op_type=AddCustomBase.OP_TYPE)
class AddCustom(AddCustomBase):
    """z = x + y through the execute callback."""

    def execute(self, x: Tensor, y: Tensor) -> None:
        if x.storage_shape.dims != y.storage_shape.dims:
            raise ValueError("AddCustom: x and y must have the same shape")
        ctx = get_execute_ctx()
        z = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        n = x.shape_size
        rt.launch(
            kernel(x.data_type),
            max(1, math.ceil(n / BLOCK)),
            ctx.get_stream(),
            [x.addr, y.addr, z.addr, n],
        )
