/*
 * ge_kernel.h: the kernel ABI of the ge CPU device (docs/runtime.md).
 *
 * A kernel is a C function in a shared object built by ge.device.build_kernel:
 *
 *     void name(uint32_t block_idx, uint32_t block_dim, const uint64_t *args);
 *
 * A launch calls it once per block, block_idx = 0 .. block_dim - 1. `args` is
 * the packed argument buffer: one 64-bit slot per launch argument, in
 * launch_args order; a pointer slot holds an address, a scalar slot holds an
 * integer (two's complement), a double's bits, a bool (0/1) or a DataType.
 *
 * GE_KERNEL declares the kernel together with its arguments, so the runtime
 * can refuse a launch whose argument count is wrong or whose buffers are too
 * small for what the kernel says it touches, before the kernel runs:
 *
 *     GE_KERNEL(add_f32,
 *               GE_IN(float, GE_COUNT_OF(3)),   // reads args[3] floats
 *               GE_IN(float, GE_COUNT_OF(3)),
 *               GE_OUT(float, GE_COUNT_OF(3)),  // writes args[3] floats
 *               GE_SCALAR()) {                  // args[3]: the count
 *         ...
 *     }
 */
#ifndef GE_KERNEL_H_
#define GE_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#define GE_EXPORT __attribute__((visibility("default")))

/* What an argument slot is (the low byte), and flags. */
enum {
  GE_ARG_IN = 1,        /* a pointer the kernel reads */
  GE_ARG_OUT = 2,       /* a pointer the kernel writes */
  GE_ARG_INOUT = 3,     /* a pointer the kernel reads and writes */
  GE_ARG_WORKSPACE = 4, /* scratch memory */
  GE_ARG_SCALAR = 5,    /* a value */
  GE_ARG_NULLABLE = 0x100, /* may be 0: an absent optional input */
  GE_ARG_LIST = 0x200      /* last argument only: repeated 0..n times */
};

/* How many elements a pointer argument spans. */
enum {
  GE_EXTENT_UNCHECKED = 0, /* unknown: the runtime cannot check this pointer */
  GE_EXTENT_ELEMS = 1,     /* a constant number of elements */
  GE_EXTENT_ARG = 2,       /* the value of scalar argument `value` */
  GE_EXTENT_PER_BLOCK = 3  /* block_dim * value elements */
};

typedef struct ge_arg_decl {
  uint32_t kind;
  uint32_t elem_bytes;
  uint32_t extent;
  uint32_t count_arg; /* GE_ARG_LIST: the scalar argument holding the count */
  uint64_t value;
} ge_arg_decl;

#define GE_COUNT_OF(arg) GE_EXTENT_ARG, 0u, (uint64_t)(arg)
#define GE_ELEMS(n) GE_EXTENT_ELEMS, 0u, (uint64_t)(n)
#define GE_PER_BLOCK(n) GE_EXTENT_PER_BLOCK, 0u, (uint64_t)(n)
#define GE_UNCHECKED GE_EXTENT_UNCHECKED, 0u, 0u

#define GE_IN(T, extent) {GE_ARG_IN, (uint32_t)sizeof(T), extent}
#define GE_OUT(T, extent) {GE_ARG_OUT, (uint32_t)sizeof(T), extent}
#define GE_INOUT(T, extent) {GE_ARG_INOUT, (uint32_t)sizeof(T), extent}
#define GE_WORKSPACE(bytes) {GE_ARG_WORKSPACE, 1u, GE_ELEMS(bytes)}
#define GE_SCALAR() {GE_ARG_SCALAR, 8u, GE_UNCHECKED}
/* An input that may be absent (its slot then holds 0). */
#define GE_OPTIONAL_IN(T, extent) {GE_ARG_IN | GE_ARG_NULLABLE, (uint32_t)sizeof(T), extent}
/* The instances of a dynamic input, as the last arguments; their number must
 * equal scalar argument `count_arg`. */
#define GE_IN_LIST(T, extent_kind, extent_value, count_arg)                   \
  {GE_ARG_IN | GE_ARG_LIST, (uint32_t)sizeof(T), extent_kind,                 \
   (uint32_t)(count_arg), (uint64_t)(extent_value)}

#define GE_KERNEL(name, ...)                                                  \
  GE_EXPORT const ge_arg_decl name##_ge_args[] = {__VA_ARGS__};               \
  GE_EXPORT const uint32_t name##_ge_nargs =                                  \
      (uint32_t)(sizeof(name##_ge_args) / sizeof(ge_arg_decl));               \
  GE_EXPORT void name(uint32_t block_idx, uint32_t block_dim,                 \
                      const uint64_t *args)

/* The instruction-set level the compiler may use with this build's flags
 * (Note [ISA levels] in ge/device/isa.py): 1 x86-64, 2 x86-64-v2,
 * 3 x86-64-v3, 4 x86-64-v4. Any feature of a level counts as the level. A
 * binary whose level this CPU lacks is refused at load. */
#if defined(__AVX512F__) || defined(__AVX512BW__) || defined(__AVX512CD__) || \
    defined(__AVX512DQ__) || defined(__AVX512VL__)
#define GE_ISA_LEVEL 4u
#elif defined(__AVX__) || defined(__AVX2__) || defined(__BMI__) ||          \
    defined(__BMI2__) || defined(__F16C__) || defined(__FMA__) ||            \
    defined(__LZCNT__) || defined(__MOVBE__)
#define GE_ISA_LEVEL 3u
#elif defined(__SSE3__) || defined(__SSSE3__) || defined(__SSE4_1__) ||     \
    defined(__SSE4_2__) || defined(__POPCNT__)
#define GE_ISA_LEVEL 2u
#else
#define GE_ISA_LEVEL 1u
#endif
#if defined(__x86_64__)
GE_EXPORT const uint32_t ge_isa_level = GE_ISA_LEVEL;
#endif

/* Restrict-qualified views of pointer slots: the kernel promises the
 * buffers do not overlap, so the compiler vectorises loops over them
 * without run-time overlap checks. */
#define GE_IN_PTR(T, i) ((const T *restrict)(uintptr_t)(args[(i)]))
#define GE_OUT_PTR(T, i) ((T *restrict)(uintptr_t)(args[(i)]))

/* Argument slot `i` as a pointer to T. */
#define GE_PTR(T, i) ((T *)(uintptr_t)(args[(i)]))
/* Scalar slot `i` as a double (the bits a float attr is passed as). */
static inline double ge_arg_double(const uint64_t *args, int i) {
  union { uint64_t u; double d; } v;
  v.u = args[i];
  return v.d;
}
/* The [begin, end) range of `n` items that block `block_idx` handles. */
static inline void ge_block_range(uint32_t block_idx, uint32_t block_dim,
                                  uint64_t n, uint64_t *begin, uint64_t *end) {
  uint64_t per = (n + block_dim - 1) / block_dim;
  *begin = per * block_idx < n ? per * block_idx : n;
  *end = *begin + per < n ? *begin + per : n;
}

#endif /* GE_KERNEL_H_ */
