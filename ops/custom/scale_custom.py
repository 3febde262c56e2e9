"""ScaleCustom: the implementation (annotated args).

compile checks the shape and builds the kernel once per shape; the generated
declare_launch_args (from the spec's launch_args: x, bias, y, a 256-byte
workspace, alpha) asks launch_config for the binary and block count.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

from ge_impl.custom.scale_custom import ScaleCustomBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.device.kernels import build_kernel
from ge.runtime import Tensor

CHUNK = 64  # floats per block, as in kernels/scale_custom.c
SOURCE = Path(__file__).resolve().parent / "kernels" / "scale_custom.c"


@register_op_impl(op_type=ScaleCustomBase.OP_TYPE)
class ScaleCustom(ScaleCustomBase):
    """y = x * alpha + bias by address refresh."""

    def __init__(self) -> None:
        self._configs: dict[tuple[int, ...], LaunchConfig] = {}
        self._lock = threading.Lock()
        self.compile_calls = 0

    def compile(
        self, x: Tensor, bias: Tensor | None, y: Tensor, *, alpha: float
    ) -> None:
        dims = tuple(x.storage_shape.dims)
        if bias is not None and tuple(bias.storage_shape.dims) != dims:
            raise ValueError("ScaleCustom: bias must have the shape of x")
        elements = math.prod(dims)
        if elements == 0 or elements % CHUNK:
            raise ValueError(
                f"ScaleCustom: the kernel needs a positive multiple of {CHUNK} elements"
            )
        with self._lock:
            if dims not in self._configs:
                self.compile_calls += 1
                binary = build_kernel(SOURCE, name="scale_custom")
                self._configs[dims] = LaunchConfig(binary, elements // CHUNK)

    def launch_config(
        self, x: Tensor, bias: Tensor | None, y: Tensor, *, alpha: float
    ) -> LaunchConfig:
        return self._configs[tuple(x.storage_shape.dims)]
