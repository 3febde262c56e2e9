"""The MatMul kernel: one per dtype, shapes, transposes and bias, with the
sizes written in as constants (Note [Shape-specialised kernels] in
_elementwise.py). Each block computes whole rows of y; the inner loop runs
along a row of x2 (or y), unit stride when x2 is not transposed, so gcc
vectorises it."""

from __future__ import annotations

from ge.graph import DataType

from ._elementwise import C_TYPES

# DataType -> accumulator C type (wrapping for int32, as numpy's matmul)
_ACC = {
    DataType.DT_FLOAT: "float",
    DataType.DT_FLOAT16: "float",
    DataType.DT_INT32: "uint32_t",
}


def matmul_dims(
    s1: tuple[int, ...], s2: tuple[int, ...], t1: bool, t2: bool
) -> tuple[int, int, int]:
    """(M, K, N) of x1 @ x2, or ValueError."""
    if len(s1) != 2 or len(s2) != 2:
        raise ValueError(
            f"MatMul: x1 and x2 must be 2-D, got {list(s1)} and {list(s2)}"
        )
    m, k = (s1[1], s1[0]) if t1 else s1
    k2, n = (s2[1], s2[0]) if t2 else s2
    if k != k2:
        raise ValueError(
            f"MatMul: inner dims differ: x1 {list(s1)}"
            f"{' (transposed)' if t1 else ''} and x2 {list(s2)}"
            f"{' (transposed)' if t2 else ''}"
        )
    return m, k, n


def matmul_source(
    kernel: str, dtype: DataType, m: int, k: int, n: int, t1: bool, t2: bool
) -> str:
    t, _, _, _ = C_TYPES[dtype]
    acc = _ACC[dtype]
    a = "a[p * M + i]" if t1 else "a[i * K + p]"
    b = "b[j * K + p]" if t2 else "b[p * N + j]"
    return f"""#include "ge_kernel.h"
#include <stdint.h>
typedef {t} T;
typedef {acc} A;
#define M {m}u
#define K {k}u
#define N {n}u

GE_KERNEL({kernel}, GE_IN(T, GE_ELEMS(M * K)), GE_IN(T, GE_ELEMS(K * N)),
          GE_OPTIONAL_IN(T, GE_ELEMS(N)), GE_OUT(T, GE_ELEMS(M * N))) {{
  const T *a = GE_PTR(const T, 0);
  const T *b = GE_PTR(const T, 1);
  const T *bias = GE_PTR(const T, 2);
  T *y = GE_PTR(T, 3);
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, M, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) {{
    A row[N > 0 ? N : 1];
    for (uint64_t j = 0; j < N; ++j) row[j] = bias ? (A)bias[j] : (A)0;
    for (uint64_t p = 0; p < K; ++p) {{
      A x = (A){a};
      for (uint64_t j = 0; j < N; ++j) row[j] += x * (A){b};
    }}
    for (uint64_t j = 0; j < N; ++j) y[i * N + j] = (T)row[j];
  }}
}}
"""
