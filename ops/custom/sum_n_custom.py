"""SumNCustom: the implementation (annotated args, a dynamic input).

The generated declare_launch_args passes N, then y, then every instance of x
at consecutive flattened input indices; the kernel declares x as a list whose
length is argument 0, which the runtime checks against N.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

from ge_impl.custom.sum_n_custom import SumNCustomBase

from ge.custom_op import LaunchConfig, register_op_impl
from ge.device.kernels import build_kernel
from ge.runtime import Tensor

CHUNK = 256  # floats per block, as in kernels/sum_n_custom.c
SOURCE = Path(__file__).resolve().parent / "kernels" / "sum_n_custom.c"


@register_op_impl(op_type=SumNCustomBase.OP_TYPE)
class SumNCustom(SumNCustomBase):
    """y = sum of x by address refresh."""

    def __init__(self) -> None:
        self._binary: bytes | None = None
        self._lock = threading.Lock()

    def compile(self, x: list[Tensor], y: Tensor, *, N: int) -> None:
        dims = {tuple(t.storage_shape.dims) for t in x}
        if len(dims) != 1:
            raise ValueError("SumNCustom: every x must have one shape")
        elements = math.prod(dims.pop())
        if elements == 0 or elements % CHUNK:
            raise ValueError(
                f"SumNCustom: the kernel needs a positive multiple of {CHUNK} elements"
            )
        with self._lock:
            if self._binary is None:
                self._binary = build_kernel(SOURCE, name="sum_n_custom")

    def launch_config(self, x: list[Tensor], y: Tensor, *, N: int) -> LaunchConfig:
        assert self._binary is not None
        return LaunchConfig(self._binary, math.prod(y.storage_shape.dims) // CHUNK)
