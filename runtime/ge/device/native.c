/*
 * The CPU device's native side: launching kernels and replaying task tables.
 *
 * Compiled when ge-ops is built (hatch_build.py puts it in the wheel as
 * ge/device/_native.so); built by ge.device.native with the system C compiler
 * on first use only when that copy is missing or was built from another
 * source. Loaded by the device's own loader, called through ctypes. Everything per launch that must be fast
 * (looping over blocks, patching refreshed addresses into argument buffers,
 * replaying a compiled graph's launches) happens here, not in Python.
 */
#include <stddef.h>
#include <stdint.h>

#define GE_EXPORT __attribute__((visibility("default")))

/* The SHA-256 of the source this binary was built from (the builder passes it
 * as -DGE_NATIVE_SOURCE="..."), so a prebuilt copy older than native.c is
 * never used. */
#ifndef GE_NATIVE_SOURCE
#define GE_NATIVE_SOURCE "unknown"
#endif
GE_EXPORT const char *ge_native_source(void) { return GE_NATIVE_SOURCE; }

typedef void (*ge_kernel_fn)(uint32_t block_idx, uint32_t block_dim,
                             const uint64_t *args);

/* One launch: every block of `fn` over `args`. The one loop over blocks. */
static inline void launch_blocks(ge_kernel_fn fn, uint32_t block_dim,
                                 const uint64_t *args) {
  for (uint32_t block = 0; block < block_dim; ++block) fn(block, block_dim, args);
}

GE_EXPORT void ge_launch(ge_kernel_fn fn, uint32_t block_dim, const uint64_t *args) {
  launch_blocks(fn, block_dim, args);
}

/* A compiled graph's launch: the kernel, its blocks and its argument buffer
 * (a row of the graph's slot table). */
typedef struct ge_task {
  ge_kernel_fn fn;
  uint64_t *args;
  uint32_t block_dim;
  uint32_t reserved;
} ge_task;

/* Every task in order. The one replay loop: ge_run and ge_replay use it. */
static inline void replay(const ge_task *tasks, uint32_t ntasks) {
  for (uint32_t t = 0; t < ntasks; ++t)
    launch_blocks(tasks[t].fn, tasks[t].block_dim, tasks[t].args);
}

/* Address refresh and replay in one call: write each run-time address into
 * the argument slots bound to it, then launch every task in order.
 *   slots[i]   index into `table` of the i-th bound slot
 *   sources[i] index into `addrs` of the address that slot receives
 *   addrs      this run's addresses (the address table: arena, graph inputs
 *              and outputs, constants, workspaces; ge/engine/layout.py)
 *   offsets[i] added to the address (a tensor's offset inside its buffer)
 */
GE_EXPORT void ge_run(uint64_t *table, const uint32_t *slots, const uint32_t *sources,
            const uint64_t *offsets, uint32_t nbound, const uint64_t *addrs,
            const ge_task *tasks, uint32_t ntasks) {
  for (uint32_t i = 0; i < nbound; ++i) {
    uint64_t value = addrs[sources[i]] + offsets[i];
    if (table[slots[i]] != value) table[slots[i]] = value; /* only what changed */
  }
  replay(tasks, ntasks);
}

/* Replay only: the execute path's task segments, and the floor the
 * benchmarks compare against. */
GE_EXPORT void ge_replay(const ge_task *tasks, uint32_t ntasks) {
  replay(tasks, ntasks);
}
