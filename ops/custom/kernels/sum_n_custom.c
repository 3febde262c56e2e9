/*
 * y = x[0] + x[1] + ... + x[N-1], float32, the SumNCustom kernel.
 *
 * Arguments, in the spec's launch_args order: N, y, then the N instances of
 * the dynamic input x (consecutive slots). Each block sums CHUNK floats, so
 * the element count is block_dim * CHUNK.
 */
#include "ge_kernel.h"

#define CHUNK 256

GE_KERNEL(sum_n_custom,
          GE_SCALAR(),
          GE_OUT(float, GE_PER_BLOCK(CHUNK)),
          GE_IN_LIST(float, GE_EXTENT_PER_BLOCK, CHUNK, 0)) {
  uint64_t n = args[0];
  float *y = GE_PTR(float, 1) + (uint64_t)block_idx * CHUNK;
  (void)block_dim;
  for (int i = 0; i < CHUNK; ++i) y[i] = 0.0f;
  for (uint64_t k = 0; k < n; ++k) {
    const float *x = GE_PTR(const float, 2 + k) + (uint64_t)block_idx * CHUNK;
    for (int i = 0; i < CHUNK; ++i) y[i] += x[i];
  }
}
