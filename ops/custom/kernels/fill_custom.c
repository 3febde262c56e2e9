/*
 * FillCustom: y[i] = value for every element.
 *
 * T is an unsigned integer type of the element's width (-DT=uint16_t,
 * uint32_t or uint64_t); the value arrives as the bits of one element of
 * the output's dtype, converted by the op's Python side.
 *
 * Arguments: y, n (the element count) and the value's bits. Blocks split
 * the n elements evenly.
 */
#include "ge_kernel.h"

#ifndef T
#error "compile with -DT=<unsigned integer type of the element width>"
#endif

GE_KERNEL(fill_custom,
          GE_OUT(T, GE_COUNT_OF(1)), /* 0: y, n elements */
          GE_SCALAR(),               /* 1: n */
          GE_SCALAR()) {             /* 2: the value's bits */
  T *y = GE_PTR(T, 0);
  T value = (T)args[2];
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[1], &begin, &end);
  for (uint64_t i = begin; i < end; ++i) y[i] = value;
}
