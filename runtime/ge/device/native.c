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
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* Note [Worker pool]: the blocks of a launch run in parallel on a pool of
 * threads, one per core the device is given (ge_pool_resize; the Python side
 * passes the session option or the cores of sched_getaffinity). The thread
 * that launches takes part: with n threads there are n - 1 workers.
 * A launch is published by bumping `generation`; workers spin on it for a
 * while (a replay's next launch follows within nanoseconds), then sleep on
 * a futex. Every participant, the launcher included, claims chunks of
 * consecutive blocks from `cursor` (the generation in the high half, the
 * next block in the low half, advanced by compare-and-swap) until none
 * are left; the launcher then waits until `done` counts every block. So a
 * worker that the machine's scheduler has not run yet holds nothing up (the
 * others take its blocks), and each launch completes before the next
 * starts: replay keeps its order. Chunks are about a quarter of a fair
 * share, so a preempted worker delays a launch by one chunk at most.
 * One thread owns the pool at a time (a try-lock per replay or launch):
 * another run that finds it busy runs its blocks inline on its own thread,
 * so concurrent runs never wait for each other and never oversubscribe.
 * A launch with fewer than `min_blocks` blocks runs inline (no handoff). */
#define GE_MAX_THREADS 256
#define GE_SPIN 20000 /* polls before sleeping: tens of microseconds */
#define GE_CLOSED 0xffffffffu /* cursor's low half while a job is being set up */

static pthread_mutex_t pool_owner = PTHREAD_MUTEX_INITIALIZER;
static pthread_t pool_workers[GE_MAX_THREADS];
static uint32_t pool_threads = 1; /* participants, the launcher included */
static uint32_t pool_min_blocks = 2;
static _Atomic uint32_t pool_generation;
static _Atomic uint32_t pool_stop;
static _Atomic uint32_t pool_sleepers; /* threads in futex_wait */
static uint32_t pool_epoch; /* set before workers start, read as they start */
static _Atomic uint64_t job_cursor;
static _Atomic uint32_t job_done;
static _Atomic uint32_t job_blocks;
static _Atomic uint32_t job_chunk;
static ge_kernel_fn job_fn;
static const uint64_t *job_args;

static void futex_wait(_Atomic uint32_t *word, uint32_t value) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word) {
  if (atomic_load(&pool_sleepers) == 0) return; /* no system call when all spin */
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Wait until *word != value: spin, then sleep. */
static void await_change(_Atomic uint32_t *word, uint32_t value) {
  for (int i = 0; i < GE_SPIN; ++i) {
    if (atomic_load_explicit(word, memory_order_acquire) != value) return;
    cpu_relax();
  }
  atomic_fetch_add(&pool_sleepers, 1); /* seq_cst: a waker sees it or we see the change */
  while (atomic_load(word) == value) futex_wait(word, value);
  atomic_fetch_sub(&pool_sleepers, 1);
}

/* Claim and run chunks of launch `generation` until none are left. */
static void run_chunks(uint32_t generation) {
  uint64_t cursor = atomic_load_explicit(&job_cursor, memory_order_acquire);
  while ((uint32_t)(cursor >> 32) == generation) {
    uint32_t next = (uint32_t)cursor;
    uint32_t total = atomic_load_explicit(&job_blocks, memory_order_relaxed);
    if (next >= total) return; /* all claimed, or the job is being set up */
    uint32_t chunk = atomic_load_explicit(&job_chunk, memory_order_relaxed);
    uint32_t end = total - next > chunk ? next + chunk : total;
    uint64_t claimed = ((uint64_t)generation << 32) | end;
    if (!atomic_compare_exchange_weak(&job_cursor, &cursor, claimed)) continue;
    /* Ours until `done` counts them: the job cannot change meanwhile. */
    for (uint32_t block = next; block < end; ++block) job_fn(block, total, job_args);
    if (atomic_fetch_add(&job_done, end - next) + (end - next) == total)
      futex_wake(&job_done);
    cursor = atomic_load_explicit(&job_cursor, memory_order_acquire);
  }
}

static void *worker_main(void *arg) {
  (void)arg;
  uint32_t seen = pool_epoch;
  for (;;) {
    await_change(&pool_generation, seen);
    seen = atomic_load(&pool_generation);
    if (atomic_load(&pool_stop)) return NULL;
    run_chunks(seen);
  }
}

/* Every block of one launch on the pool (the caller owns it). */
static void launch_parallel(ge_kernel_fn fn, uint32_t block_dim, const uint64_t *args) {
  uint32_t generation = atomic_load(&pool_generation) + 1;
  uint32_t chunk = block_dim / (pool_threads * 4);
  atomic_store(&job_cursor, ((uint64_t)generation << 32) | GE_CLOSED);
  job_fn = fn;
  job_args = args;
  atomic_store(&job_blocks, block_dim);
  atomic_store(&job_chunk, chunk ? chunk : 1);
  atomic_store(&job_done, 0);
  atomic_store(&job_cursor, (uint64_t)generation << 32); /* open: block 0 next */
  atomic_store(&pool_generation, generation);
  futex_wake(&pool_generation);
  run_chunks(generation);
  uint32_t done;
  while ((done = atomic_load(&job_done)) != block_dim) await_change(&job_done, done);
}

/* One launch: every block of `fn` over `args`, in parallel when the caller
 * owns the pool and the launch is big enough. */
static inline void launch_blocks(ge_kernel_fn fn, uint32_t block_dim,
                                 const uint64_t *args, int owner) {
  if (owner && block_dim >= pool_min_blocks)
    launch_parallel(fn, block_dim, args);
  else
    for (uint32_t block = 0; block < block_dim; ++block) fn(block, block_dim, args);
}

/* Take the pool if it is free and has workers (1) or run inline (0). */
static int pool_take(void) {
  return pool_threads > 1 && pthread_mutex_trylock(&pool_owner) == 0;
}

static void pool_stop_workers(void) {
  atomic_store(&pool_stop, 1);
  atomic_fetch_add(&pool_generation, 1);
  futex_wake(&pool_generation);
  for (uint32_t i = 1; i < pool_threads; ++i) pthread_join(pool_workers[i], NULL);
  atomic_store_explicit(&pool_stop, 0, memory_order_release);
  pool_threads = 1;
}

/* Use `threads` participants (the caller included): 0 when every worker
 * started, else the error of the thread that could not (the pool then has
 * the workers that did start). Waits for a running launch to finish. */
GE_EXPORT int ge_pool_resize(uint32_t threads) {
  if (threads < 1) threads = 1;
  if (threads > GE_MAX_THREADS) threads = GE_MAX_THREADS;
  pthread_mutex_lock(&pool_owner);
  pool_stop_workers();
  int error = 0;
  pool_epoch = atomic_load(&pool_generation);
  for (uint32_t i = 1; i < threads && !error; ++i) {
    error = pthread_create(&pool_workers[i], NULL, worker_main, NULL);
    if (!error) pool_threads = i + 1;
  }
  pthread_mutex_unlock(&pool_owner);
  return error;
}

GE_EXPORT uint32_t ge_pool_threads(void) { return pool_threads; }

/* Launches with fewer blocks than this run inline. */
GE_EXPORT void ge_pool_min_blocks(uint32_t blocks) {
  pool_min_blocks = blocks < 2 ? 2 : blocks;
}

GE_EXPORT void ge_launch(ge_kernel_fn fn, uint32_t block_dim, const uint64_t *args) {
  int owner = block_dim >= pool_min_blocks && pool_take();
  launch_blocks(fn, block_dim, args, owner);
  if (owner) pthread_mutex_unlock(&pool_owner);
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
static void replay(const ge_task *tasks, uint32_t ntasks) {
  int owner = ntasks > 0 && pool_take();
  for (uint32_t t = 0; t < ntasks; ++t)
    launch_blocks(tasks[t].fn, tasks[t].block_dim, tasks[t].args, owner);
  if (owner) pthread_mutex_unlock(&pool_owner);
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
