/*
 * PadCustom: y is x with before[d] and after[d] elements of a constant
 * around each dim d; everything outside x is the pad value.
 *
 * The kernel walks y by rows of its last dim. A row whose leading
 * coordinates all fall inside x is [pad * before, one x row, pad * after];
 * any other row is all pad. Blocks split the rows evenly.
 *
 * T is an unsigned integer type of the element's width (-DT=uint32_t or
 * uint16_t); the pad value arrives as the bits of one element of x's dtype.
 *
 * Arguments: x, y, x_count, y_count, the pad bits, rank (1..MAX_RANK; a
 * scalar is passed as [1]), then MAX_RANK slots each of x's dims, the
 * `before` pads and y's dims (slots past rank are ignored).
 */
#include "ge_kernel.h"

#ifndef T
#error "compile with -DT=<unsigned integer type of the element width>"
#endif
#define MAX_RANK 8
#define SCALARS_8                                                        \
  GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), GE_SCALAR(),       \
      GE_SCALAR(), GE_SCALAR(), GE_SCALAR()

GE_KERNEL(pad_custom,
          GE_IN(T, GE_COUNT_OF(2)),  /* 0: x, x_count elements */
          GE_OUT(T, GE_COUNT_OF(3)), /* 1: y, y_count elements */
          GE_SCALAR(),               /* 2: x_count */
          GE_SCALAR(),               /* 3: y_count */
          GE_SCALAR(),               /* 4: the pad value's bits */
          GE_SCALAR(),               /* 5: rank */
          SCALARS_8,                 /* 6..13: x dims */
          SCALARS_8,                 /* 14..21: before */
          SCALARS_8) {               /* 22..29: y dims */
  const T *x = GE_PTR(const T, 0);
  T *y = GE_PTR(T, 1);
  const T pad = (T)args[4];
  const int rank = (int)args[5];
  const uint64_t *x_dims = args + 6, *before = args + 14, *y_dims = args + 22;
  const uint64_t x_cols = x_dims[rank - 1], y_cols = y_dims[rank - 1];
  const uint64_t lead = before[rank - 1];
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[3] / y_cols, &begin, &end);
  if (begin >= end) return;
  uint64_t coord[MAX_RANK]; /* y coordinates of the row, leading dims */
  uint64_t rest = begin;
  for (int d = rank - 2; d >= 0; --d) {
    coord[d] = rest % y_dims[d];
    rest /= y_dims[d];
  }
  for (uint64_t row = begin; row < end; ++row) {
    T *dst = y + row * y_cols;
    int inside = 1;
    uint64_t x_row = 0; /* the row of x it copies, when inside */
    for (int d = 0; d + 1 < rank && inside; ++d) {
      inside = coord[d] >= before[d] && coord[d] - before[d] < x_dims[d];
      x_row = x_row * x_dims[d] + (coord[d] - before[d]);
    }
    uint64_t col = 0;
    if (inside) {
      const T *src = x + x_row * x_cols;
      for (; col < lead; ++col) dst[col] = pad;
      for (uint64_t i = 0; i < x_cols; ++i) dst[col++] = src[i];
    }
    for (; col < y_cols; ++col) dst[col] = pad;
    for (int d = rank - 2; d >= 0; --d) { /* the next row's coordinates */
      if (++coord[d] < y_dims[d]) break;
      coord[d] = 0;
    }
  }
}
