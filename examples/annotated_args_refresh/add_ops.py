"""AnnotatedAddCustom and NoRefreshAddCustom: the implementations of GE's
address-refresh sample, from specs/annotated_add_custom.yaml and
specs/no_refresh_add_custom.yaml (the author module of both; gen-ops
scaffolded it once).

Both launch the same C kernel (add_kernel.c). AnnotatedAddCustom compiles it
once per shape and declares its launch: the generated declare_launch_args
(from the spec's launch_args) asks launch_config for the binary and
block_dim, and from then on runs never call back into Python.
NoRefreshAddCustom launches it from execute on every run. AnnotatedAddCustom
has that execute too (the runtime runs the declared launch; gen-ops test
runs both and compares their bits, docs/opcheck.md).
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

from ge_impl.custom.annotated_add_custom import AnnotatedAddCustomBase
from ge_impl.custom.no_refresh_add_custom import NoRefreshAddCustomBase

from ge.custom_op import (
    LaunchConfig,
    get_compile_platform_info,
    get_execute_ctx,
    register_op_impl,
)
from ge.device import rt
from ge.device.kernels import Kernel, build_kernel, load_kernel
from ge.runtime import Tensor

BLOCK = 1024  # floats per block, as in add_kernel.c
KERNEL = "add_custom"
SOURCE = Path(__file__).resolve().parent / "add_kernel.c"


def _blocks(x: Tensor, y: Tensor, out: Tensor, op_type: str) -> int:
    dims = x.storage_shape.dims
    if dims != y.storage_shape.dims or dims != out.storage_shape.dims:
        raise ValueError(f"{op_type} requires matching tensor shapes")
    elements = math.prod(dims)
    if elements == 0 or elements % BLOCK:
        raise ValueError(
            f"{op_type}: the sample kernel needs a positive multiple of {BLOCK} elements"
        )
    return elements // BLOCK


def kernel_binary() -> bytes:
    return build_kernel(SOURCE, name="add_kernel")


@register_op_impl(op_type=AnnotatedAddCustomBase.OP_TYPE)
class AnnotatedAddCustom(AnnotatedAddCustomBase):
    """Compile once per shape; declare the launch; runs refresh addresses."""

    def __init__(self) -> None:
        self._artifacts: dict[tuple[int, ...], LaunchConfig] = {}
        self._lock = threading.Lock()
        self.compile_calls = 0

    def compile(self, x1: Tensor, x2: Tensor, output0: Tensor) -> None:
        blocks = _blocks(x1, x2, output0, self.OP_TYPE)
        key = tuple(x1.storage_shape.dims)
        with self._lock:
            if key not in self._artifacts:
                self.compile_calls += 1
                get_compile_platform_info().get_soc_version()  # the device it runs on
                self._artifacts[key] = LaunchConfig(kernel_binary(), blocks)

    def launch_config(self, x1: Tensor, x2: Tensor, output0: Tensor) -> LaunchConfig:
        try:
            return self._artifacts[tuple(x1.storage_shape.dims)]
        except KeyError:
            raise RuntimeError("AnnotatedAddCustom compile cache miss") from None

    def execute(self, x1: Tensor, x2: Tensor) -> None:
        """The same kernel launched from Python (when a run takes this path)."""
        kernel = load_kernel(SOURCE, KERNEL, name="add_kernel")  # built once
        _execute(kernel, self.OP_TYPE, x1, x2)


@register_op_impl(op_type=NoRefreshAddCustomBase.OP_TYPE)
class NoRefreshAddCustom(NoRefreshAddCustomBase):
    """The same kernel, launched from execute on every run."""

    def __init__(self) -> None:
        self._kernel = load_kernel(SOURCE, KERNEL, name="add_kernel")

    def execute(self, x1: Tensor, x2: Tensor) -> None:
        _execute(self._kernel, self.OP_TYPE, x1, x2)


def _execute(kernel: Kernel, op_type: str, x1: Tensor, x2: Tensor) -> None:
    """Allocate the output and launch the kernel (an execute callback's body)."""
    # The checks of _blocks, in the order that costs least per run: the
    # output has x1's shape by construction.
    ctx = get_execute_ctx()
    shape = x1.shape
    out = ctx.malloc_output_tensor(0, shape, x1.format, x1.data_type)
    dims = shape.storage_shape
    if x2.storage_shape != dims:
        raise ValueError(f"{op_type} requires matching tensor shapes")
    blocks, rest = divmod(dims.get_shape_size(), BLOCK)
    if rest or not blocks:
        raise ValueError(
            f"{op_type}: the sample kernel needs a positive multiple of "
            f"{BLOCK} elements"
        )
    rt.launch(kernel, blocks, ctx.get_stream(), [x1.addr, x2.addr, out.addr])
