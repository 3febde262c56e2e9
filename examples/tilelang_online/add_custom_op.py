"""AddCustomOnline: GE's TileLang online sample (scenario B) on the CPU
device, from specs/add_custom_online.yaml (gen-ops scaffolded this module
once).

``compile`` (GE's CompilableOp) runs the kernel compiler, a subprocess,
once per element count: ``compile_external`` gives it a private temporary
output path, captures its output into any error, bounds it with a timeout,
removes the temporary files and caches the library per key for the
process. The generated ``declare_launch_args`` declares the call of the
library's ``call(x, y, z, stream)``; runs launch it natively.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from ge_impl.tilelang.add_custom_online import AddCustomOnlineBase

from ge.custom_op import compile_external, register_op_impl
from ge.runtime import Tensor

KERNEL_COMPILER = Path(__file__).resolve().parent.parent / "tilelang_kernel"
KERNEL_SCRIPT = KERNEL_COMPILER / "add_custom_kernel.py"
COMPILE_TIMEOUT = 120.0  # seconds


def element_key(x: Tensor, y: Tensor, op_type: str) -> str:
    """The binary key: the element count, as the sample's Compile builds it."""
    sizes = {math.prod(t.storage_shape.dims) for t in (x, y)}
    if len(sizes) != 1:
        raise ValueError(f"{op_type}: x and y differ in element count {sorted(sizes)}")
    return str(sizes.pop())


@register_op_impl(op_type=AddCustomOnlineBase.OP_TYPE)
class AddCustomOnline(AddCustomOnlineBase):
    """Compile once per element count with the external compiler."""

    def compile(self, x: Tensor, y: Tensor, z: Tensor) -> None:
        key = element_key(x, y, self.OP_TYPE)
        if self.has_library(key):
            return
        command = [sys.executable, str(KERNEL_SCRIPT), key, "{output}"]
        print(
            f'Compiling TileLang kernel: python3 "{KERNEL_SCRIPT}" {key} "{{output}}"'
        )
        library = compile_external(
            command,
            key=(self.OP_TYPE, key),
            timeout=COMPILE_TIMEOUT,
            output_name=f"tilelang_add_custom_online_{key}.so",
        )
        self.add_library(key, library)
        print(
            f"TileLang kernel compiled and loaded, key={key}, so={len(library)} bytes"
        )

    def library_key(self, x: Tensor, y: Tensor, z: Tensor) -> str:
        return element_key(x, y, self.OP_TYPE)
