"""AddCustomOffline: GE's TileLang offline sample (scenario C) on the CPU
device, from specs/add_custom_offline.yaml (gen-ops scaffolded this module
once).

At ge-atc time ``compile`` runs the kernel compiler (a subprocess) once per
element count and keeps the library; ge-atc then calls ``serialize`` (GE's
PortableOp) and stores the bytes in the model file. The generated base's
``serialize`` / ``deserialize`` write and read the sample's format byte for
byte (little-endian magic 0x4F504B4E, version 1, count, then key / library
entries); this module only adds the sample's messages. Loading the model
restores the libraries with the runtime's own reader: neither this module
nor a compiler is needed where the model runs.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from ge_impl.tilelang.add_custom_offline import AddCustomOfflineBase

from ge.custom_op import compile_external, register_op_impl
from ge.runtime import Tensor

KERNEL_SCRIPT = (
    Path(__file__).resolve().parent.parent / "tilelang_kernel" / "add_custom_kernel.py"
)
COMPILE_TIMEOUT = 120.0  # seconds


def element_key(x: Tensor, y: Tensor, op_type: str) -> str:
    sizes = {math.prod(t.storage_shape.dims) for t in (x, y)}
    if len(sizes) != 1:
        raise ValueError(f"{op_type}: x and y differ in element count {sorted(sizes)}")
    return str(sizes.pop())


@register_op_impl(op_type=AddCustomOfflineBase.OP_TYPE)
class AddCustomOffline(AddCustomOfflineBase):
    """Compile with the external compiler; serialize the libraries."""

    def compile(self, x: Tensor, y: Tensor, z: Tensor) -> None:
        key = element_key(x, y, self.OP_TYPE)
        if self.has_library(key):
            return
        print(
            f'Compiling TileLang kernel: python3 "{KERNEL_SCRIPT}" {key} "{{output}}"'
        )
        library = compile_external(
            [sys.executable, str(KERNEL_SCRIPT), key, "{output}"],
            key=(self.OP_TYPE, key),
            timeout=COMPILE_TIMEOUT,
        )
        self.add_library(key, library)
        print(f"TileLang kernel compiled and loaded, key={key}, so_size={len(library)}")

    def library_key(self, x: Tensor, y: Tensor, z: Tensor) -> str:
        return element_key(x, y, self.OP_TYPE)

    def serialize(self) -> bytes:
        data = super().serialize()
        count = len(self.library_keys())
        print(f"Serialized {count} kernel(s), total buffer size={len(data)}")
        return data
