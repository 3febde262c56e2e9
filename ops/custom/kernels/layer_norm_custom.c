/*
 * LayerNormCustom over rows: x is [rows, cols], cols being the product of
 * the normalised dims. For each row, in double:
 *
 *   mean = sum(x) / cols
 *   rstd = 1 / sqrt(sum((x - mean)^2) / cols + epsilon)   (population variance)
 *   y    = (x - mean) * rstd * gamma + beta
 *
 * gamma and beta are optional: the op passes their element count (cols)
 * when present and 0 when absent (then their pointer is never read, and
 * the runtime checks a span of 0 elements). Blocks split the rows evenly.
 */
#include <math.h>

#include "ge_kernel.h"

GE_KERNEL(layer_norm_custom,
          GE_IN(float, GE_COUNT_OF(6)),  /* 0: x, n elements */
          GE_IN(float, GE_COUNT_OF(7)),  /* 1: gamma, gamma_count */
          GE_IN(float, GE_COUNT_OF(8)),  /* 2: beta, beta_count */
          GE_OUT(float, GE_COUNT_OF(6)), /* 3: y, n elements */
          GE_OUT(float, GE_COUNT_OF(9)), /* 4: mean, rows */
          GE_OUT(float, GE_COUNT_OF(9)), /* 5: rstd, rows */
          GE_SCALAR(),                   /* 6: n = rows * cols */
          GE_SCALAR(),                   /* 7: gamma_count: cols or 0 */
          GE_SCALAR(),                   /* 8: beta_count: cols or 0 */
          GE_SCALAR(),                   /* 9: rows */
          GE_SCALAR(),                   /* 10: cols (> 0) */
          GE_SCALAR()) {                 /* 11: epsilon, a double */
  const float *x = GE_PTR(const float, 0);
  const float *gamma = args[7] ? GE_PTR(const float, 1) : NULL;
  const float *beta = args[8] ? GE_PTR(const float, 2) : NULL;
  float *y = GE_PTR(float, 3), *mean_out = GE_PTR(float, 4);
  float *rstd_out = GE_PTR(float, 5);
  const uint64_t cols = args[10];
  const double epsilon = ge_arg_double(args, 11);
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[9], &begin, &end);
  for (uint64_t row = begin; row < end; ++row) {
    const float *in = x + row * cols;
    float *out = y + row * cols;
    double sum = 0.0, squares = 0.0;
    for (uint64_t c = 0; c < cols; ++c) sum += in[c];
    const double mean = sum / (double)cols;
    for (uint64_t c = 0; c < cols; ++c) {
      const double d = in[c] - mean;
      squares += d * d;
    }
    const double rstd = 1.0 / sqrt(squares / (double)cols + epsilon);
    for (uint64_t c = 0; c < cols; ++c) {
      double v = (in[c] - mean) * rstd;
      if (gamma) v *= gamma[c];
      if (beta) v += beta[c];
      out[c] = (float)v;
    }
    mean_out[row] = (float)mean;
    rstd_out[row] = (float)rstd;
  }
}
