/* z = x + y over float32, BLOCK elements per block (tests/packaging). */
#include "ge_kernel.h"

#define BLOCK 64

GE_KERNEL(ship_add,
          GE_IN(float, GE_PER_BLOCK(BLOCK)),
          GE_IN(float, GE_PER_BLOCK(BLOCK)),
          GE_OUT(float, GE_PER_BLOCK(BLOCK))) {
  const float *x = GE_PTR(const float, 0) + (uint64_t)block_idx * BLOCK;
  const float *y = GE_PTR(const float, 1) + (uint64_t)block_idx * BLOCK;
  float *z = GE_PTR(float, 2) + (uint64_t)block_idx * BLOCK;
  (void)block_dim;
  for (int i = 0; i < BLOCK; ++i) z[i] = x[i] + y[i];
}
