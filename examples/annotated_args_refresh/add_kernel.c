/*
 * The add kernel of the address-refresh sample: output0 = x1 + x2 (float32).
 *
 * Arguments: x1, x2, output0 (the spec's launch_args). Like GE's sample
 * kernel, each block adds BLOCK consecutive floats, so the element count is
 * block_dim * BLOCK; the declaration says so, and the runtime checks that
 * every buffer holds block_dim * BLOCK floats before the kernel runs.
 */
#include "ge_kernel.h"

#define BLOCK 1024

GE_KERNEL(add_custom,
          GE_IN(float, GE_PER_BLOCK(BLOCK)),
          GE_IN(float, GE_PER_BLOCK(BLOCK)),
          GE_OUT(float, GE_PER_BLOCK(BLOCK))) {
  const float *x = GE_PTR(const float, 0) + (uint64_t)block_idx * BLOCK;
  const float *y = GE_PTR(const float, 1) + (uint64_t)block_idx * BLOCK;
  float *z = GE_PTR(float, 2) + (uint64_t)block_idx * BLOCK;
  (void)block_dim;
  for (int i = 0; i < BLOCK; ++i) z[i] = x[i] + y[i];
}
