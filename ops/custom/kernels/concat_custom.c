/*
 * ConcatCustom: copies one input into its columns of the output.
 *
 * Joining along axis a views every tensor as [outer, row], where outer is
 * the product of the dims before a and row the product of the dims from a
 * on. Row r of input x lands at y[r * y_row + offset ...], x_row elements
 * wide; the op launches this kernel once per input, with offset the sum of
 * the row lengths of the inputs before it.
 *
 * T is an unsigned integer type of the element's width (-DT=uint32_t or
 * uint16_t): the copy moves bits, whatever the dtype.
 *
 * Arguments: x, y, x_row, y_row, offset, x_count (= outer * x_row) and
 * y_count (= outer * y_row). Blocks split x's elements evenly, so any
 * count works, multiple of the block size or not.
 */
#include "ge_kernel.h"

#ifndef T
#error "compile with -DT=<unsigned integer type of the element width>"
#endif

GE_KERNEL(concat_custom,
          GE_IN(T, GE_COUNT_OF(5)),  /* 0: x, x_count elements */
          GE_OUT(T, GE_COUNT_OF(6)), /* 1: y, y_count elements */
          GE_SCALAR(),               /* 2: x_row */
          GE_SCALAR(),               /* 3: y_row */
          GE_SCALAR(),               /* 4: offset */
          GE_SCALAR(),               /* 5: x_count */
          GE_SCALAR()) {             /* 6: y_count */
  const T *x = GE_PTR(const T, 0);
  T *y = GE_PTR(T, 1);
  uint64_t x_row = args[2], y_row = args[3], offset = args[4];
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[5], &begin, &end);
  if (begin >= end) return;
  uint64_t col = begin % x_row;
  T *dst = y + (begin / x_row) * y_row + offset;
  for (uint64_t i = begin; i < end; ++i) {
    dst[col] = x[i];
    if (++col == x_row) {
      col = 0;
      dst += y_row;
    }
  }
}
