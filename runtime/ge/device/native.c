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
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
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
 * a futex. Participant p (the launcher is 0) has a home range, the
 * contiguous blocks [block_dim * p / n, block_dim * (p + 1) / n), so the
 * launches of a chain give a core the same part of each tensor (its own
 * cache); each range has a cursor (the generation in the high half, the
 * next block in the low half, advanced by compare-and-swap). A participant
 * claims chunks (an eighth of a share) of its own range, then of the
 * others' until none are left, and the launcher waits until `done` counts
 * every block. So a worker that the machine's scheduler has not run yet
 * holds nothing up (the others take its range), a preempted one delays a
 * launch by one chunk at most, and each launch completes before the next
 * starts: replay keeps its order.
 * One thread owns the pool at a time (a try-lock per replay or launch):
 * another run that finds it busy runs its blocks inline on its own thread,
 * so concurrent runs never wait for each other and never oversubscribe.
 * A launch with fewer than `min_blocks` blocks runs inline (no handoff),
 * and so do launches after the pool lost (Note [Pool backoff]). */
#define GE_MAX_THREADS 256
#define GE_SPIN 20000 /* polls before sleeping: tens of microseconds */
#define GE_CLOSED 0xffffffffu /* cursor's low half while a job is being set up */

static pthread_mutex_t pool_owner = PTHREAD_MUTEX_INITIALIZER;
static pthread_t pool_workers[GE_MAX_THREADS];
static uint32_t pool_threads = 1; /* participants, the launcher included */
/* Launches of fewer blocks run inline: below 16 blocks of the sample ops
 * (1,024 floats each, about 2 us of work) the handoff to a second core costs
 * (0.5 to 0.7 us measured) at least what it could save (docs/performance.md). */
#define GE_MIN_BLOCKS 16
static uint32_t pool_min_blocks = GE_MIN_BLOCKS;
static _Atomic uint32_t pool_generation;
static _Atomic uint32_t pool_stop;
static _Atomic uint32_t pool_sleepers; /* threads in futex_wait */
static uint32_t pool_epoch; /* set before workers start, read as they start */
typedef struct ge_cursor { /* one per participant, on its own cache line */
  _Atomic uint64_t value;    /* generation << 32 | the next block of the range */
  char pad[56];
} ge_cursor;
static ge_cursor job_cursors[GE_MAX_THREADS];
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

/* Note [Kernel faults]: a kernel that faults (SIGSEGV, SIGBUS, SIGFPE or
 * SIGILL) in any block, on the launching thread or a worker, fails its
 * launch instead of killing the process: every thread that runs blocks
 * holds a guard (its thread and, while it runs blocks, a recovery point);
 * the handler (ge_fault_install) jumps back to the recovery point of the
 * faulting thread, which records the fault, counts its blocks as done and
 * goes on. The launch reports the first fault: ge_launch, ge_run_state
 * and ge_replay return 0, or signal | block << 8 | task << 32, and a replay
 * stops after the launch that faulted. A fault outside any guard goes to
 * the handler that was installed before (Python's faulthandler, or the
 * default action). What a faulting kernel wrote is not undone: the
 * process survives, the launch's outputs are garbage. */
#define GE_GUARDS 1024

typedef struct ge_guard {
  _Atomic uintptr_t owner; /* pthread_self() of the thread holding it; 0 free */
  sigjmp_buf *volatile env; /* set while the thread runs blocks */
  volatile uint32_t block;  /* the block it runs */
  volatile int signal;      /* the fault's signal */
} ge_guard;

static ge_guard guards[GE_GUARDS];
static const int fault_signals[4] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction previous_actions[4];
static _Atomic uint64_t job_fault; /* the first fault of the current launch */

static ge_guard *guard_take(void) {
  uintptr_t self = (uintptr_t)pthread_self();
  for (int i = 0; i < GE_GUARDS; ++i) {
    uintptr_t free_slot = 0;
    if (atomic_load_explicit(&guards[i].owner, memory_order_relaxed) == 0 &&
        atomic_compare_exchange_strong(&guards[i].owner, &free_slot, self)) {
      guards[i].env = NULL;
      return &guards[i];
    }
  }
  return NULL; /* more threads than guards: run unguarded */
}

static void guard_release(ge_guard *guard) {
  if (guard) atomic_store(&guard->owner, 0);
}

static void chain_fault(int sig, siginfo_t *info, void *context) {
  for (int i = 0; i < 4; ++i) {
    if (fault_signals[i] != sig) continue;
    struct sigaction *old = &previous_actions[i];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
      old->sa_sigaction(sig, info, context);
      return;
    }
    if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
        old->sa_handler != SIG_IGN) {
      old->sa_handler(sig);
      return;
    }
  }
  /* The default action: reinstate it; the instruction faults again. */
  struct sigaction action = {0};
  action.sa_handler = SIG_DFL;
  sigaction(sig, &action, NULL);
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  uintptr_t self = (uintptr_t)pthread_self();
  for (int i = 0; i < GE_GUARDS; ++i) {
    ge_guard *guard = &guards[i];
    if (atomic_load_explicit(&guard->owner, memory_order_relaxed) == self &&
        guard->env != NULL) {
      guard->signal = sig;
      siglongjmp(*guard->env, 1);
    }
  }
  chain_fault(sig, info, context);
}

/* Install the fault handler (once): 0, or errno's value. */
GE_EXPORT int ge_fault_install(void) {
  static int installed;
  if (installed) return 0;
  struct sigaction action = {0};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER; /* NODEFER: the jump leaves no mask */
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 4; ++i)
    if (sigaction(fault_signals[i], &action, &previous_actions[i]) != 0) return -1;
  installed = 1;
  return 0;
}

/* Blocks [begin, end) of a launch under `guard`: 0, or the fault code
 * (signal | block << 8) of the block that faulted. */
static uint64_t run_blocks(ge_guard *guard, ge_kernel_fn fn, uint32_t begin,
                           uint32_t end, uint32_t block_dim, const uint64_t *args) {
  if (guard == NULL) {
    for (uint32_t block = begin; block < end; ++block) fn(block, block_dim, args);
    return 0;
  }
  sigjmp_buf env;
  if (sigsetjmp(env, 0)) {
    guard->env = NULL;
    return (uint64_t)(guard->signal & 0xff) | ((uint64_t)guard->block << 8);
  }
  guard->env = &env;
  for (uint32_t block = begin; block < end; ++block) {
    guard->block = block;
    fn(block, block_dim, args);
  }
  guard->env = NULL;
  return 0;
}

/* Participant `part`'s home range of blocks: [home(part), home(part + 1)). */
static inline uint32_t home(uint32_t part, uint32_t total) {
  return (uint32_t)((uint64_t)total * part / pool_threads);
}

/* Claim the next chunk of participant `owner`'s range and run it: 1, or 0
 * when that range has nothing left (or belongs to another launch). */
static int run_chunk(uint32_t generation, uint32_t owner, ge_guard *guard) {
  _Atomic uint64_t *word = &job_cursors[owner].value;
  uint64_t cursor = atomic_load_explicit(word, memory_order_acquire);
  for (;;) {
    uint32_t next = (uint32_t)cursor;
    if ((uint32_t)(cursor >> 32) != generation || next == GE_CLOSED) return 0;
    uint32_t total = atomic_load_explicit(&job_blocks, memory_order_relaxed);
    uint32_t last = home(owner + 1, total);
    if (next >= last) return 0;
    uint32_t chunk = atomic_load_explicit(&job_chunk, memory_order_relaxed);
    uint32_t end = last - next > chunk ? next + chunk : last;
    uint64_t claimed = ((uint64_t)generation << 32) | end;
    if (!atomic_compare_exchange_weak(word, &cursor, claimed)) continue;
    /* Ours until `done` counts them: the job cannot change meanwhile. */
    uint64_t fault = run_blocks(guard, job_fn, next, end, total, job_args);
    uint64_t none = 0;
    if (fault) atomic_compare_exchange_strong(&job_fault, &none, fault);
    if (atomic_fetch_add(&job_done, end - next) + (end - next) == total)
      futex_wake(&job_done);
    return 1;
  }
}

/* Participant `part` of launch `generation`: its home range first (the
 * same blocks every launch, so a chain's data stays in its core's cache),
 * then what is left of the others' (a participant not yet running). */
static void run_chunks(uint32_t generation, uint32_t part, ge_guard *guard) {
  for (uint32_t i = 0; i < pool_threads; ++i) {
    uint32_t owner = (part + i) % pool_threads;
    while (run_chunk(generation, owner, guard)) {
    }
  }
}

/* Note [Pool backoff]: on a machine whose cores are busy with other
 * processes a worker may not run for a scheduler time slice, and a launch
 * whose chunk it holds waits for it; measured on the shared 2-core machine
 * the pool was slower than inline at every size (docs/performance.md). So
 * the launcher judges each pool launch against the same launch (kernel and
 * block count) run inline: a launch big enough for the pool first runs
 * inline, timed, and so does every GE_REMEASURE-th (the inline time stays
 * fresh, and an inline launch costs nothing against inline); the others
 * run on the pool. A pool launch that did not save an eighth of the last
 * inline time lost: the next `pool_backoff` launches big enough for the
 * pool run inline (timed too), the backoff doubling after each loss up to
 * GE_BACKOFF_MAX and halving after each win. A machine where the pool
 * cannot win pays for one pool launch every GE_BACKOFF_MAX or so; one
 * where it wins keeps it for 7 launches in 8. The state belongs to the
 * pool's owner (read and written under `pool_owner`). */
#define GE_BACKOFF_MAX 256
static int pool_adaptive = 1;
static uint32_t pool_backoff; /* inline launches after the next loss, halved */
static uint32_t pool_skip;    /* launches still to run inline */

static inline uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The last inline time of a launch (kernel, block count): a direct-mapped
 * table, so the pool is judged against what that launch costs inline (the
 * launcher's own rate during a pool launch is no estimate of that: on SMT
 * siblings or a shared memory bus the other participant slows it down). */
#define GE_RATES 256
#define GE_REMEASURE 8 /* every 8th launch of a kind runs inline, timed */
typedef struct ge_rate {
  ge_kernel_fn fn;
  uint32_t blocks;
  uint32_t launches;  /* of this kind since its entry was made */
  uint64_t inline_ns; /* 0: not measured yet */
} ge_rate;
static ge_rate pool_rates[GE_RATES];

static ge_rate *rate_of(ge_kernel_fn fn, uint32_t blocks) {
  uint32_t h = (uint32_t)((uintptr_t)fn >> 4) ^ (blocks * 2654435761u);
  ge_rate *rate = &pool_rates[(h ^ (h >> 16)) % GE_RATES];
  if (rate->fn != fn || rate->blocks != blocks) {
    rate->fn = fn;
    rate->blocks = blocks;
    rate->launches = 0;
    rate->inline_ns = 0;
  }
  ++rate->launches;
  return rate;
}

/* A pool launch took `wall` ns, the same launch inline last `inline_ns`:
 * the pool wins only when it saved an eighth (a launch whose second core
 * saves nothing risks a worker's preemption for no gain). */
static void pool_judge(uint64_t wall, uint64_t inline_ns) {
  if (wall * 8 > inline_ns * 7) {
    pool_backoff = pool_backoff ? pool_backoff * 2 : 1;
    if (pool_backoff > GE_BACKOFF_MAX) pool_backoff = GE_BACKOFF_MAX;
    pool_skip = pool_backoff;
  } else {
    pool_backoff /= 2;
  }
}

static void *worker_main(void *arg) {
  uint32_t part = (uint32_t)(uintptr_t)arg;
  uint32_t seen = pool_epoch;
  ge_guard *guard = guard_take();
  for (;;) {
    await_change(&pool_generation, seen);
    seen = atomic_load(&pool_generation);
    if (atomic_load(&pool_stop)) break;
    run_chunks(seen, part, guard);
  }
  guard_release(guard);
  return NULL;
}

/* Every block of one launch on the pool (the caller owns it): 0 or the
 * launch's first fault. */
static uint64_t launch_parallel(ge_kernel_fn fn, uint32_t block_dim,
                                const uint64_t *args, ge_guard *guard,
                                uint64_t inline_ns) {
  uint32_t generation = atomic_load(&pool_generation) + 1;
  uint32_t chunk = block_dim / (pool_threads * 8);
  for (uint32_t q = 0; q < pool_threads; ++q) /* closed while the job is set up */
    atomic_store(&job_cursors[q].value, ((uint64_t)(generation - 1) << 32) | GE_CLOSED);
  job_fn = fn;
  job_args = args;
  atomic_store(&job_blocks, block_dim);
  atomic_store(&job_chunk, chunk ? chunk : 1);
  atomic_store(&job_done, 0);
  atomic_store(&job_fault, 0);
  for (uint32_t q = 0; q < pool_threads; ++q) /* open: each range's first block */
    atomic_store(&job_cursors[q].value, ((uint64_t)generation << 32) | home(q, block_dim));
  uint64_t start = inline_ns ? now_ns() : 0;
  atomic_store(&pool_generation, generation);
  futex_wake(&pool_generation);
  run_chunks(generation, 0, guard);
  uint32_t done;
  while ((done = atomic_load(&job_done)) != block_dim) await_change(&job_done, done);
  if (inline_ns) pool_judge(now_ns() - start, inline_ns);
  return atomic_load(&job_fault);
}

/* One launch: every block of `fn` over `args`, in parallel when the caller
 * owns the pool and the launch is big enough; 0 or its first fault. */
static inline uint64_t launch_blocks(ge_kernel_fn fn, uint32_t block_dim,
                                     const uint64_t *args, int owner, ge_guard *guard) {
  if (!owner || block_dim < pool_min_blocks)
    return run_blocks(guard, fn, 0, block_dim, block_dim, args);
  if (!pool_adaptive) return launch_parallel(fn, block_dim, args, guard, 0);
  ge_rate *rate = rate_of(fn, block_dim); /* Note [Pool backoff] */
  if (pool_skip == 0 && rate->inline_ns && rate->launches % GE_REMEASURE)
    return launch_parallel(fn, block_dim, args, guard, rate->inline_ns);
  if (pool_skip) --pool_skip;
  uint64_t start = now_ns();
  uint64_t fault = run_blocks(guard, fn, 0, block_dim, block_dim, args);
  rate->inline_ns = now_ns() - start;
  return fault;
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
    error = pthread_create(&pool_workers[i], NULL, worker_main, (void *)(uintptr_t)i);
    if (!error) pool_threads = i + 1;
  }
  pthread_mutex_unlock(&pool_owner);
  return error;
}

GE_EXPORT uint32_t ge_pool_threads(void) { return pool_threads; }

/* Launches with fewer blocks than this run inline; returns the previous
 * threshold (0 leaves it as it is). */
GE_EXPORT uint32_t ge_pool_min_blocks(uint32_t blocks) {
  uint32_t previous = pool_min_blocks;
  if (blocks) pool_min_blocks = blocks < 2 ? 2 : blocks;
  return previous;
}

/* Note [Pool backoff] on (1) or off (0; every launch of at least
 * min_blocks runs on the pool); -1 leaves it. Returns the previous setting. */
GE_EXPORT int ge_pool_adaptive(int on) {
  pthread_mutex_lock(&pool_owner);
  int previous = pool_adaptive;
  if (on >= 0) {
    pool_adaptive = on != 0;
    pool_backoff = pool_skip = 0;
    for (int i = 0; i < GE_RATES; ++i) pool_rates[i].inline_ns = 0;
  }
  pthread_mutex_unlock(&pool_owner);
  return previous;
}

/* One launch: 0, or its first fault (Note [Kernel faults]). */
GE_EXPORT uint64_t ge_launch(ge_kernel_fn fn, uint32_t block_dim, const uint64_t *args) {
  ge_guard *guard = guard_take();
  int owner = block_dim >= pool_min_blocks && pool_take();
  uint64_t fault = launch_blocks(fn, block_dim, args, owner, guard);
  if (owner) pthread_mutex_unlock(&pool_owner);
  guard_release(guard);
  return fault;
}

/* A compiled graph's launch: the kernel, its blocks and its argument buffer
 * (a row of the graph's slot table). */
typedef struct ge_task {
  ge_kernel_fn fn;
  uint64_t *args;
  uint32_t block_dim;
  uint32_t reserved;
} ge_task;

/* Every task in order, up to the first that faults. The one replay loop:
 * ge_run_state and ge_replay use it. 0, or the fault with its task's index. */
static uint64_t replay(const ge_task *tasks, uint32_t ntasks) {
  if (ntasks == 0) return 0;
  ge_guard *guard = guard_take();
  int owner = pool_take();
  uint64_t fault = 0;
  for (uint32_t t = 0; t < ntasks && !fault; ++t) {
    fault = launch_blocks(tasks[t].fn, tasks[t].block_dim, tasks[t].args, owner, guard);
    if (fault) fault |= (uint64_t)t << 32;
  }
  if (owner) pthread_mutex_unlock(&pool_owner);
  guard_release(guard);
  return fault;
}

/* Note [Packed run state]: what a run takes, gathered once per run state
 * in one struct, so a run is one call with one argument (a ctypes call costs
 * about 50 ns per argument it converts; RunState in the engine packs it).
 * Its bindings are the slots bound to graph inputs and outputs only: the
 * slots bound to the arena, the constants and the workspaces (fixed for the
 * run state's life) are written when the state is made.
 *   slots[i]   index into `table` of the i-th bound slot
 *   sources[i] index into `addrs` of the address that slot receives
 *   addrs      this run's addresses (the address table: arena, graph inputs
 *              and outputs, constants, workspaces; ge/engine/layout.py)
 *   offsets[i] added to the address (a tensor's offset inside its buffer)
 */
typedef struct ge_packed_run {
  uint64_t *table;
  const uint32_t *slots;
  const uint32_t *sources;
  const uint64_t *offsets;
  const uint64_t *addrs;
  const ge_task *tasks;
  uint32_t nbound;
  uint32_t ntasks;
} ge_packed_run;

/* Address refresh: write each run-time address into the argument slots
 * bound to it. */
static void refresh(const ge_packed_run *state) {
  uint64_t *table = state->table;
  for (uint32_t i = 0; i < state->nbound; ++i) {
    uint64_t *slot = &table[state->slots[i]];
    uint64_t value = state->addrs[state->sources[i]] + state->offsets[i];
    if (*slot != value) *slot = value; /* only what changed */
  }
}

/* A run over a packed run state: refresh, then replay every task. */
GE_EXPORT uint64_t ge_run_state(const ge_packed_run *state) {
  refresh(state);
  return replay(state->tasks, state->ntasks);
}

/* Refresh only: the execute path's first step. */
GE_EXPORT void ge_refresh_state(const ge_packed_run *state) { refresh(state); }

/* Replay only: the execute path's task segments, and the floor the
 * benchmarks compare against. */
GE_EXPORT uint64_t ge_replay(const ge_task *tasks, uint32_t ntasks) {
  return replay(tasks, ntasks);
}
