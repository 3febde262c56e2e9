"""AddCustomTileLang: GE's TileLang eager sample (scenario A) on the CPU
device, from specs/add_custom_tile_lang.yaml (gen-ops scaffolded this module
once).

The kernel is a precompiled foreign library (``add_kernel.so``, built by
the TileLang stand-in before the graph is built) exporting
``call(x, y, z, stream)``. ``compile`` loads its bytes once (the path comes
from ``TILELANG_ADD_KERNEL``, set by run.py, as GE's sample locates it
through ``ASCEND_CUSTOM_OPP_PATH``) and checks the element count; the
generated ``declare_launch_args`` declares the call, and every run
launches it natively with the run's addresses, no Python of this module.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from ge_impl.tilelang.add_custom_tile_lang import AddCustomTileLangBase

from ge.custom_op import register_op_impl
from ge.runtime import Tensor

NUM_ELEMENTS = 4096  # the kernel is built for exactly this many elements


def _elements(x: Tensor, y: Tensor, op_type: str) -> int:
    sizes = {math.prod(t.storage_shape.dims) for t in (x, y)}
    if sizes != {NUM_ELEMENTS}:
        raise ValueError(
            f"{op_type}: the precompiled kernel takes {NUM_ELEMENTS} elements per "
            f"input, got {sorted(sizes)}"
        )
    return NUM_ELEMENTS


@register_op_impl(op_type=AddCustomTileLangBase.OP_TYPE)
class AddCustomTileLang(AddCustomTileLangBase):
    """Load the precompiled library once; every run calls it natively."""

    def compile(self, x: Tensor, y: Tensor, z: Tensor) -> None:
        key = str(_elements(x, y, self.OP_TYPE))
        if not self.has_library(key):
            path = os.environ.get("TILELANG_ADD_KERNEL")
            if not path:
                raise RuntimeError(
                    "TILELANG_ADD_KERNEL is unset: set it to the path of add_kernel.so "
                    "(examples/tilelang_eager/run.py builds it)"
                )
            self.add_library(key, Path(path).read_bytes())

    def library_key(self, x: Tensor, y: Tensor, z: Tensor) -> str:
        return str(_elements(x, y, self.OP_TYPE))
