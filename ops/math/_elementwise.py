"""The kernels of the math library: one C kernel per op, dtype and broadcast
plan, generated as text and built with gcc (ge.device.kernels.build_kernel).

Note [Shape-specialised kernels]: the specs' launch_args are GE's own
(inputs and the output, nothing else), so a kernel cannot receive shapes or
strides at run time. ``compile`` runs
once per key of shapes, dtypes and attrs, so it builds a kernel with the
plan written in as constants instead:

- the broadcast (numpy's rules) is reduced to a plan: dims of size 1 in the
  output dropped, adjacent dims merged while both inputs stay contiguous
  across them; each input has stride 0 (broadcast) or its own stride per
  dim. ``[4, 1, 5] + [3, 5]`` becomes rows of 5 with strides (0 or 5).
- the kernel walks the output by rows of the innermost dim; the row's
  input offsets come from the outer dims, and the inner loop has constant
  trip count and unit or zero strides, which gcc vectorises.
- the extents are exact (``GE_ELEMS``), so the runtime checks every launch
  against the buffers.

Builds are cached by the kernel cache (source hash), so a plan is built
once per machine, and here once per process.

Integer arithmetic wraps (computed in the unsigned type of the width, as
numpy's results are); integer division truncates toward zero, x / 0 is 0
and MIN / -1 is MIN. float16 is computed in float and rounded once, which
is what numpy does; bfloat16 likewise (Note [bfloat16 in the kernels] in
_exprs.py). A promoting op (Pow) converts each input to the output's dtype
first, as GE's promotion casts them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from ge.custom_op import LaunchConfig
from ge.device.kernels import build_kernel
from ge.graph import DataType
from ge.runtime import Tensor

from ._exprs import (
    C_TYPES,
    HELPERS,
    INT_POW,
    binary_expr,
    convert,
    load,
    store,
    unary_expr,
)
from ._runs import require

__all__ = ["C_TYPES", "Kernels", "broadcast_plan", "binary_source", "unary_source"]

ROWS_PER_BLOCK = 4096


def broadcast_plan(
    a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...]
) -> list[tuple[int, int, int]]:
    """(dim, stride of a, stride of b) per dim of ``out``, outermost first,
    with size-1 dims dropped and contiguous neighbours merged; at least one
    dim (a 0-d or all-ones output is one dim of 1, an empty one a dim of 0)."""
    rank = len(out)
    if 0 in out:
        return [(0, 0, 0)]

    def strides(shape: tuple[int, ...]) -> list[int]:
        padded = (1,) * (rank - len(shape)) + tuple(shape)
        result, step = [0] * rank, 1
        for i in range(rank - 1, -1, -1):
            result[i] = 0 if padded[i] == 1 else step
            step *= padded[i]
        return result

    sa, sb = strides(a), strides(b)
    dims = [(out[i], sa[i], sb[i]) for i in range(rank) if out[i] != 1]
    merged: list[tuple[int, int, int]] = []
    for d, x, y in dims:
        if merged:
            pd, px, py = merged[-1]
            if px == x * d and py == y * d:
                merged[-1] = (pd * d, x, y)
                continue
        merged.append((d, x, y))
    return merged or [(1, 0, 0)]


_HEADER = """#include "ge_kernel.h"
#include <math.h>
#include <stdint.h>
typedef {t} T;
typedef {c} C;
typedef {u} U;
"""


def _header(dtype: DataType, op: str) -> str:
    """Typedefs of the output's types, and the helpers the kernel uses."""
    t, c, u, kind = C_TYPES[dtype]
    text = _HEADER.format(t=t, c=c, u=u or "uint64_t") + HELPERS
    return text + (INT_POW if op == "pow" and kind != "f" else "")


def binary_source(
    kernel: str,
    op: str,
    dtypes: tuple[DataType, DataType, DataType],
    plan: list[tuple[int, int, int]],
    sizes: tuple[int, int, int],
) -> str:
    """y = op(x1, x2) with x1, x2 and y of ``dtypes``; the inputs are
    converted to y's dtype (the same one, but for a promoting op)."""
    d1, d2, dtype = dtypes
    inner, ia, ib = plan[-1]
    outer = plan[:-1]
    rows = math.prod(d for d, _, _ in outer)
    walk = "".join(
        f"    {{ uint64_t i = rem % {d}u; rem /= {d}u; oa += i * {x}u; ob += i * {y}u; }}\n"
        for d, x, y in reversed(outer)
    )
    n1, n2, n = sizes
    t1, t2 = C_TYPES[d1][0], C_TYPES[d2][0]
    a = convert(d1, dtype, f"pa[j * {ia}u]")
    b = convert(d2, dtype, f"pb[j * {ib}u]")
    return _header(dtype, op) + f"""typedef {t1} T1;
typedef {t2} T2;

static inline C ge_op(C a, C b) {{ return (C)({binary_expr(op, dtype)}); }}

GE_KERNEL({kernel}, GE_IN(T1, GE_ELEMS({n1})), GE_IN(T2, GE_ELEMS({n2})),
          GE_OUT(T, GE_ELEMS({n}))) {{
  const T1 *a = GE_PTR(const T1, 0);
  const T2 *b = GE_PTR(const T2, 1);
  T *y = GE_PTR(T, 2);
  uint64_t begin, end;
  if ({n}u == 0) return;
  ge_block_range(block_idx, block_dim, {rows}u, &begin, &end);
  for (uint64_t r = begin; r < end; ++r) {{
    uint64_t rem = r, oa = 0, ob = 0;
{walk}    (void)rem;
    const T1 *pa = a + oa;
    const T2 *pb = b + ob;
    T *py = y + r * {inner}u;
    for (uint64_t j = 0; j < {inner}u; ++j)
      py[j] = {store(dtype, f"ge_op({a}, {b})")};
  }}
}}
"""


def unary_source(
    kernel: str, op: str, dtype: DataType, n: int, attrs: dict[str, float]
) -> str:
    result = store(dtype, f"ge_op({load(dtype, 'a[i]')})")
    return _header(dtype, op) + f"""
static inline C ge_op(C a) {{ return (C)({unary_expr(op, dtype, attrs)}); }}

GE_KERNEL({kernel}, GE_IN(T, GE_ELEMS({n})), GE_OUT(T, GE_ELEMS({n}))) {{
  const T *a = GE_PTR(const T, 0);
  T *y = GE_PTR(T, 1);
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, {n}u, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) y[i] = {result};
}}
"""


def dims(t: Tensor) -> tuple[int, ...]:
    return tuple(t.storage_shape.dims)


def check_dtype(op_type: str, t: Tensor) -> DataType:
    dtype = DataType(t.data_type)
    if dtype not in C_TYPES:
        raise TypeError(f"{op_type}: no CPU kernel for {dtype.name}")
    return dtype


class Kernels:
    """Built kernels of one op, keyed by dtype, shapes and attrs."""

    def __init__(
        self, op_type: str, kernel: str, op: str, per_block: int = ROWS_PER_BLOCK
    ) -> None:
        self.op_type = op_type
        self.kernel = kernel
        self.op = op
        self.per_block = per_block
        self._configs: dict[tuple[object, ...], LaunchConfig] = {}
        self._lock = threading.Lock()

    def get(
        self, key: tuple[object, ...], make: Callable[[], tuple[str, int]]
    ) -> LaunchConfig:
        """The launch cached under ``key``; else ``make()`` gives the kernel
        source and its units of work (rows or elements, ``per_block`` of
        them per block, at most 8 blocks), built and cached."""
        with self._lock:
            config = self._configs.get(key)
            if config is None:
                source, work = make()
                binary = build_kernel(source, name=self.kernel)
                blocks = max(1, min(8, -(-work // self.per_block)))
                config = self._configs[key] = LaunchConfig(binary, blocks)
            return config

    def binary(self, x1: Tensor, x2: Tensor, y: Tensor) -> LaunchConfig:
        """The launch of y = op(x1, x2) for these tensors (built if new)."""
        require(self.op_type, x1=x1, x2=x2)
        dtypes = (
            check_dtype(self.op_type, x1),
            check_dtype(self.op_type, x2),
            check_dtype(self.op_type, y),
        )
        a, b, out = dims(x1), dims(x2), dims(y)
        key = (dtypes, a, b, out)

        def make() -> tuple[str, int]:
            plan = broadcast_plan(a, b, out)
            sizes = (math.prod(a), math.prod(b), math.prod(out))
            rows = math.prod(d for d, _, _ in plan[:-1])
            return binary_source(self.kernel, self.op, dtypes, plan, sizes), rows

        return self.get(key, make)

    def unary(self, x: Tensor, y: Tensor, **attrs: float) -> LaunchConfig:
        """The launch of y = op(x) for this tensor and attrs (built if new)."""
        require(self.op_type, x=x)
        dtype = check_dtype(self.op_type, x)
        n = math.prod(dims(x))
        key = (dtype, n, tuple(sorted(attrs.items())))

        def make() -> tuple[str, int]:
            return unary_source(self.kernel, self.op, dtype, n, attrs), n

        return self.get(key, make)
