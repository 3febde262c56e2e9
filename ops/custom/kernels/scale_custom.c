/*
 * y = x * alpha (+ bias), float32, the ScaleCustom kernel.
 *
 * Arguments, in the spec's launch_args order: x, bias (0 when absent), y, a
 * 256-byte workspace and alpha (a double's bits). Each block handles CHUNK
 * floats, so the element count is block_dim * CHUNK. A block stages its
 * chunk in its own local buffer (an AI core's local memory): the one
 * workspace is shared by every block of the launch, and blocks run in
 * parallel (docs/runtime.md, "The worker pool"), so staging through it would
 * race. The workspace argument stays, as the spec declares it.
 */
#include "ge_kernel.h"

#define CHUNK 64

GE_KERNEL(scale_custom,
          GE_IN(float, GE_PER_BLOCK(CHUNK)),
          GE_OPTIONAL_IN(float, GE_PER_BLOCK(CHUNK)),
          GE_OUT(float, GE_PER_BLOCK(CHUNK)),
          GE_WORKSPACE(CHUNK * sizeof(float)),
          GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0) + (uint64_t)block_idx * CHUNK;
  const float *bias = GE_PTR(const float, 1);
  float *y = GE_PTR(float, 2) + (uint64_t)block_idx * CHUNK;
  float stage[CHUNK];
  float alpha = (float)ge_arg_double(args, 4);
  (void)block_dim;
  for (int i = 0; i < CHUNK; ++i) stage[i] = x[i] * alpha;
  if (bias != 0) {
    bias += (uint64_t)block_idx * CHUNK;
    for (int i = 0; i < CHUNK; ++i) stage[i] += bias[i];
  }
  for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];
}
