/*
 * CastCustom: y[i] = x[i] converted from SRC to DST (-DSRC=... -DDST=...,
 * C types: float, _Float16, int32_t, int64_t).
 *
 * Float to int (built with -DFLOAT_TO_INT=1 and DST_MIN/DST_MAX) goes
 * through double: `truncate` nonzero rounds toward zero, zero rounds to
 * nearest with ties to even; NaN becomes 0 and values beyond DST's range
 * saturate to DST_MIN/DST_MAX. Every other pair is C's conversion: floats
 * round to nearest even, int to narrower int wraps (two's complement), as
 * numpy's astype does.
 *
 * Arguments: x, y, n (the element count) and truncate. Blocks split the n
 * elements evenly.
 */
#include "ge_kernel.h"

#if !defined(SRC) || !defined(DST)
#error "compile with -DSRC=<C type of x> -DDST=<C type of y>"
#endif

#if FLOAT_TO_INT
#define TWO_POW_52 4503599627370496.0 /* doubles this large are whole */

static inline double toward_zero(double v) {
  return v < TWO_POW_52 && v > -TWO_POW_52 ? (double)(int64_t)v : v;
}

static inline double half_to_even(double v) {
  const double whole = toward_zero(v), frac = v - whole; /* both exact */
  const int odd = (frac == 0.5 || frac == -0.5) && ((int64_t)whole & 1);
  if (frac > 0.5 || (frac == 0.5 && odd)) return whole + 1.0;
  if (frac < -0.5 || (frac == -0.5 && odd)) return whole - 1.0;
  return whole;
}

static inline DST convert(SRC value, uint64_t truncate) {
  double v = (double)value;
  if (v != v) return 0;
  v = truncate ? toward_zero(v) : half_to_even(v);
  if (v >= -(double)DST_MIN) return DST_MAX; /* -DST_MIN is 2^31 or 2^63 */
  if (v <= (double)DST_MIN) return DST_MIN;
  return (DST)v;
}
#else
static inline DST convert(SRC value, uint64_t truncate) {
  (void)truncate;
  return (DST)value;
}
#endif

GE_KERNEL(cast_custom,
          GE_IN(SRC, GE_COUNT_OF(2)),  /* 0: x, n elements */
          GE_OUT(DST, GE_COUNT_OF(2)), /* 1: y, n elements */
          GE_SCALAR(),                 /* 2: n */
          GE_SCALAR()) {               /* 3: truncate (0 or 1) */
  const SRC *x = GE_PTR(const SRC, 0);
  DST *y = GE_PTR(DST, 1);
  const uint64_t truncate = args[3];
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[2], &begin, &end);
  for (uint64_t i = begin; i < end; ++i) y[i] = convert(x[i], truncate);
}
