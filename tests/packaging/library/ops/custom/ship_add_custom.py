"""ShipAddCustom: the author module of tests/packaging's op library."""

from __future__ import annotations

import math
from pathlib import Path

from ge_impl.custom.ship_add_custom import ShipAddCustomBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.device.kernels import build_kernel
from ge.runtime import Tensor

BLOCK = 64  # floats per block, as in kernels/ship_add.c
SOURCE = Path(__file__).resolve().parent / "kernels" / "ship_add.c"


@register_op_impl(op_type=ShipAddCustomBase.OP_TYPE)
class ShipAddCustom(ShipAddCustomBase):
    def __init__(self) -> None:
        self._configs: dict[tuple[int, ...], LaunchConfig] = {}

    def compile(self, x: Tensor, y: Tensor, z: Tensor) -> None:
        dims = tuple(x.storage_shape.dims)
        elements = math.prod(dims)
        if elements % BLOCK or tuple(y.storage_shape.dims) != dims:
            raise ValueError(f"ShipAddCustom: equal shapes of a multiple of {BLOCK}")
        binary = build_kernel(SOURCE, name="ship_add")
        self._configs[dims] = LaunchConfig(binary, elements // BLOCK)

    def launch_config(self, x: Tensor, y: Tensor, z: Tensor) -> LaunchConfig:
        return self._configs[tuple(x.storage_shape.dims)]
