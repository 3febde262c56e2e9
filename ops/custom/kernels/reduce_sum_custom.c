/*
 * ReduceSumCustom: sums of x over a set of its dims, in two launches.
 *
 * x has rank dims (adjacent dims of the same kind merged by the op's
 * Python side); bit d of `mask` says dim d is reduced. Output element o
 * sums R elements of x (R: the product of the reduced dims), split into
 * `chunks` chunks of `chunk` elements:
 *
 *   reduce_sum_partial: ws[o * chunks + k] = the sum of chunk k of o, in
 *                       double; blocks split the (o, k) pairs evenly;
 *   reduce_sum_final:   y[o] = the sum of o's chunks, rounded once to T;
 *                       blocks split the outputs evenly.
 *
 * T is the element type (-DT=float or -DT=_Float16); sums are kept in
 * double, so the result is rounded only once.
 */
#include "ge_kernel.h"

#ifndef T
#error "compile with -DT=float or -DT=_Float16"
#endif
#define MAX_RANK 8
#define REDUCED(d) ((mask >> (d)) & 1u)

GE_KERNEL(reduce_sum_partial,
          GE_IN(T, GE_COUNT_OF(2)),       /* 0: x, x_count elements */
          GE_OUT(double, GE_COUNT_OF(3)), /* 1: ws, one sum per (o, k) */
          GE_SCALAR(),                    /* 2: x_count */
          GE_SCALAR(),                    /* 3: ws_count = outputs * chunks */
          GE_SCALAR(),                    /* 4: chunks per output */
          GE_SCALAR(),                    /* 5: chunk (elements) */
          GE_SCALAR(),                    /* 6: R, elements per output */
          GE_SCALAR(),                    /* 7: rank (1..MAX_RANK) */
          GE_SCALAR(),                    /* 8: mask of reduced dims */
          GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), /* 9..16: dims */
          GE_SCALAR(), GE_SCALAR(), GE_SCALAR(), GE_SCALAR()) {
  const T *x = GE_PTR(const T, 0);
  double *ws = GE_PTR(double, 1);
  const uint64_t chunks = args[4], chunk = args[5], reduced = args[6];
  const int rank = (int)args[7];
  const uint64_t mask = args[8];
  const uint64_t *dims = args + 9;
  uint64_t stride[MAX_RANK], coord[MAX_RANK], size = 1;
  for (int d = rank - 1; d >= 0; --d) {
    stride[d] = size;
    size *= dims[d];
  }
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[3], &begin, &end);
  for (uint64_t w = begin; w < end; ++w) {
    uint64_t first = (w % chunks) * chunk;
    uint64_t last = first + chunk < reduced ? first + chunk : reduced;
    double sum = 0.0;
    if (first < last) {
      /* offset of element `first` of output w / chunks */
      uint64_t offset = 0, kept = w / chunks, rest = first;
      for (int d = rank - 1; d >= 0; --d) {
        if (REDUCED(d)) {
          coord[d] = rest % dims[d];
          rest /= dims[d];
          offset += coord[d] * stride[d];
        } else {
          offset += (kept % dims[d]) * stride[d];
          kept /= dims[d];
        }
      }
      for (uint64_t r = first; r < last; ++r) {
        sum += (double)x[offset];
        for (int d = rank - 1; d >= 0; --d) { /* the next reduced element */
          if (!REDUCED(d)) continue;
          offset += stride[d];
          if (++coord[d] < dims[d]) break;
          offset -= coord[d] * stride[d];
          coord[d] = 0;
        }
      }
    }
    ws[w] = sum;
  }
}

GE_KERNEL(reduce_sum_final,
          GE_IN(double, GE_COUNT_OF(2)), /* 0: ws, ws_count sums */
          GE_OUT(T, GE_COUNT_OF(3)),     /* 1: y, outputs elements */
          GE_SCALAR(),                   /* 2: ws_count = outputs * chunks */
          GE_SCALAR(),                   /* 3: outputs */
          GE_SCALAR()) {                 /* 4: chunks per output */
  const double *ws = GE_PTR(const double, 0);
  T *y = GE_PTR(T, 1);
  const uint64_t chunks = args[4];
  uint64_t begin, end;
  ge_block_range(block_idx, block_dim, args[3], &begin, &end);
  for (uint64_t o = begin; o < end; ++o) {
    double sum = 0.0;
    for (uint64_t k = 0; k < chunks; ++k) sum += ws[o * chunks + k];
    y[o] = (T)sum;
  }
}
