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

Where nothing installed the library (``TILELANG_ADD_KERNEL`` unset: ``gen-ops
test``, which checks the op against its spec's reference), ``compile``
builds it with the TileLang stand-in, as run.py's first step does, into a
directory of its own for the process (GE's sample has no such fallback).
"""

from __future__ import annotations

import functools
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ge_impl.tilelang.add_custom_tile_lang import AddCustomTileLangBase

from ge.custom_op import register_op_impl
from ge.runtime import Tensor

NUM_ELEMENTS = 4096  # the kernel is built for exactly this many elements
KERNEL_COMPILER = (
    Path(__file__).resolve().parents[1] / "tilelang_kernel" / "add_custom_kernel.py"
)


def _elements(x: Tensor, y: Tensor, op_type: str) -> int:
    sizes = {math.prod(t.storage_shape.dims) for t in (x, y)}
    if sizes != {NUM_ELEMENTS}:
        raise ValueError(
            f"{op_type}: the precompiled kernel takes {NUM_ELEMENTS} elements per "
            f"input, got {sorted(sizes)}"
        )
    return NUM_ELEMENTS


@functools.lru_cache(maxsize=1)
def _build_library() -> str:
    """add_kernel.so built by the TileLang stand-in (run.py's step 1), once
    per process."""
    out = Path(tempfile.mkdtemp(prefix="tilelang_add-")) / "add_kernel.so"
    built = subprocess.run(
        [sys.executable, str(KERNEL_COMPILER), str(NUM_ELEMENTS), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        raise RuntimeError(
            "TILELANG_ADD_KERNEL is unset and the TileLang stand-in "
            f"({KERNEL_COMPILER}) did not build add_kernel.so: {built.stderr.strip()}"
        )
    return str(out)


@register_op_impl(op_type=AddCustomTileLangBase.OP_TYPE)
class AddCustomTileLang(AddCustomTileLangBase):
    """Load the precompiled library once; every run calls it natively."""

    def compile(self, x: Tensor, y: Tensor, z: Tensor) -> None:
        key = str(_elements(x, y, self.OP_TYPE))
        if not self.has_library(key):
            path = os.environ.get("TILELANG_ADD_KERNEL") or _build_library()
            self.add_library(key, Path(path).read_bytes())

    def library_key(self, x: Tensor, y: Tensor, z: Tensor) -> str:
        return str(_elements(x, y, self.OP_TYPE))
