"""How big a tensor may be: the one rule for tensors, compiled graphs and
model files.

Note [Tensor size limits]: a dim is an int64 (GE's), and a tensor holds at
most ``MAX_TENSOR_BYTES`` (2**34, 16 GiB) and as many elements; a compiled
graph's memory (its arena, constants and workspaces) is at most
``MAX_DEVICE_BYTES`` (2**35). These are the model file's ``MAX_BUFFER_BYTES``
and ``MAX_TOTAL_BYTES``, so whatever compiles online also fits a model file.
The limits are checked before anything is allocated: a shape of 10**12
elements is refused with a message, not a ``MemoryError`` (or, with memory
overcommit, a process killed later). Sizes are computed with Python
integers, so no product overflows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ge.graph.types import DataType, element_bits

MAX_DIM = (1 << 63) - 1
MAX_TENSOR_BYTES = 1 << 34
MAX_DEVICE_BYTES = 1 << 35


def tensor_nbytes(shape: Sequence[int], data_type: DataType) -> int:
    """Bytes of a tensor of ``shape`` (concrete dims) and ``data_type``:
    ``ceil(elements * bits / 8)``. ValueError, saying which limit, for a
    type without a fixed size or a tensor over the limits (callers add
    which tensor)."""
    bits = element_bits(data_type)
    if bits <= 0:
        raise ValueError(f"{DataType(data_type).name} has no fixed element size")
    for dim in shape:
        if not 0 <= dim <= MAX_DIM:
            raise ValueError(f"dim {dim} is not in 0..{MAX_DIM} (an int64)")
    elements = math.prod(shape)
    nbytes = (elements * bits + 7) // 8
    if elements > MAX_TENSOR_BYTES or nbytes > MAX_TENSOR_BYTES:
        raise ValueError(
            f"{elements} elements of {DataType(data_type).name} are {nbytes} bytes; "
            f"a tensor holds at most {MAX_TENSOR_BYTES} bytes (16 GiB) and as many "
            "elements"
        )
    return nbytes
