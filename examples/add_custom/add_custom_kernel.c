/*
 * z = x + y, element-wise, for T = float or _Float16 (chosen with -DT=...).
 *
 * Arguments (the kernel ABI of ge_kernel.h): x, y, z and n, the element
 * count. Each block adds BLOCK consecutive elements; the last block stops
 * at n, so n need not be a multiple of BLOCK.
 */
#include "ge_kernel.h"

#ifndef T
#error "compile with -DT=float or -DT=_Float16"
#endif
#define BLOCK 1024

GE_KERNEL(add_custom,
          GE_IN(T, GE_COUNT_OF(3)),
          GE_IN(T, GE_COUNT_OF(3)),
          GE_OUT(T, GE_COUNT_OF(3)),
          GE_SCALAR()) {
  const T *x = GE_PTR(const T, 0);
  const T *y = GE_PTR(const T, 1);
  T *z = GE_PTR(T, 2);
  uint64_t n = args[3];
  uint64_t begin = (uint64_t)block_idx * BLOCK;
  uint64_t end = begin + BLOCK < n ? begin + BLOCK : n;
  (void)block_dim;
  for (uint64_t i = begin; i < end; ++i) z[i] = x[i] + y[i];
}
