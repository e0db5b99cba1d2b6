/* The worker pool, with the semantics of PyTorch's DataLoader: num_workers
 * (0 = load in the caller's process), prefetch_factor batches in flight per
 * worker, persistent workers or new ones each epoch, in-order delivery or
 * as completed, a timeout, and workers started by fork or by spawning the
 * loadscope-worker executable.
 *
 * Batches are built by workers straight into slots of one shared arena and
 * handed to the consumer in place: ls_pool_next() gives a slot, and
 * ls_pool_release() gives it back. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader/arena.h"
#include "loader/dataset.h"
#include "platform/process.h"

/* The most workers a pool runs (num_workers 0..LS_POOL_MAX_WORKERS): the
 * pool waits on all their channels at once, and Win32 waits on at most 64
 * objects. */
#define LS_POOL_MAX_WORKERS 60

typedef enum {
  LS_START_FORK = 0,
  LS_START_SPAWN = 1,
} ls_start_method;

typedef struct ls_pool_config {
  ls_dataset_spec dataset;
  uint32_t num_workers;
  uint32_t batch_size;
  uint32_t prefetch_factor;  /* batches in flight per worker, >= 1 */
  bool persistent_workers;   /* keep workers across epochs (and prefetch across the boundary) */
  bool shuffle;
  bool drop_last;
  bool in_order;             /* deliver in sampler order, or as batches complete (within an epoch) */
  bool skip_bad_samples;     /* --on-error skip; otherwise the run fails on the first bad sample */
  ls_start_method start;
  uint32_t epochs;           /* 0: as many as the consumer asks for */
  double timeout_s;          /* 0: wait for a batch forever; counted once every worker is ready */
  uint64_t seed;
  uint32_t consumer_slots;   /* batches the consumer may hold at once; 0 means 2 */
  bool whole_first_batch;    /* build a new worker set's first batch in one worker, not shared
                                out in parts among them (benchmarks compare the two) */
  const char *worker_path;   /* spawn: the loadscope-worker executable */
  bool prepared;             /* 0 workers only: each slot is built once, then handed out again as it
                                is (the consumer fed without loading: its own ceiling, run --diagnose) */
} ls_pool_config;

/* Fills a config with DataLoader's defaults. */
void ls_pool_config_init (ls_pool_config *config);

/* Where a batch's build time went: wall-clock ns summed over its samples
 * (the stages) and over the tasks that built it (a first batch of a set
 * is built in parts by several workers). With 0 workers, the runner's own
 * build of it (idle 0). */
typedef struct ls_batch_stages {
  uint64_t read_ns, decode_ns, transform_ns, write_ns; /* ls_stage_ns, summed */
  uint64_t idle_ns; /* its builders waiting for its task(s): since their previous DONE or READY */
  uint64_t busy_ns; /* its builders' wall time on it: each task's arrival to its DONE */
  /* When it was built, on ls_clock_ns: its first task's start (a DONE's
   * arrival less that task's busy time) and its last DONE's arrival; 0
   * when not built here (a prepared slot handed out again). */
  uint64_t start_ns, done_ns;
  int32_t worker; /* the worker that built it (the first, when shared); -1: the runner itself */
} ls_batch_stages;

typedef struct ls_batch {
  uint32_t slot;
  uint32_t epoch;
  uint64_t batch;   /* within its epoch */
  uint32_t count;   /* samples */
  uint32_t skipped; /* samples replaced under skip */
  const uint8_t *data;
  size_t bytes;     /* count x sample bytes */
  const int32_t *labels;
  const uint64_t *indices;
  ls_batch_stages stages;
} ls_batch;

/* One worker process, as it was started. Non-persistent pools start a new
 * set each epoch; every one is listed. */
typedef struct ls_worker_info {
  uint32_t index;
  uint32_t epoch;        /* epoch it was started for */
  ls_pid pid;
  double startup_ms;     /* pool start (of this set) → its ready message; < 0 if never ready */
  uint64_t cpu_ns;       /* CPU time it reported when stopping; 0 if it did not stop cleanly */
  ls_exit_status exit;   /* how it ended (LS_EXIT_RUNNING while alive) */
  /* Reported with cpu_ns when stopping (all 0 otherwise): READY to STOP,
   * split into idle and busy (idle + busy = wall), and the stage times of
   * every sample it read in that time (late tasks nobody took included). */
  uint64_t wall_ns, idle_ns, busy_ns;
  ls_stage_ns stages;
  double populate_ms;    /* mapping the arena's pages before its ready message (in startup_ms) */
  /* Page faults it took while building batches (its tasks), all of them
   * and those of the measured batches (ls_pool_set_warmup), with the
   * bytes it wrote into the arena for the latter. */
  uint64_t task_faults, measured_faults, measured_bytes;
} ls_worker_info;

/* Where the wait for the run's first batch went, along the worker that
 * finished it last (with 0 workers: the runner's own build). The parts
 * add up to the wait for it. */
typedef struct ls_first_batch {
  bool valid;
  double worker_start_ms; /* the pool starting it → it mapped the arena (process start, dataset open) */
  double populate_ms;     /* it populating the arena's pages */
  double in_flight_ms;    /* its ready message → its first task in hand */
  double build_ms;        /* its task: its part of the first batch, or all of it */
  double handoff_ms;      /* its task done → the batch in the consumer's hands */
} ls_first_batch;

typedef struct ls_pool ls_pool;

#define LS_POOL_END 1 /* ls_pool_next: every epoch has been delivered */

/* Opens the dataset and creates the arena. Workers start on the first
 * ls_pool_next(), as DataLoader's do when iteration starts. */
int ls_pool_create (const ls_pool_config *config, ls_pool **out, ls_error *err);

/* Blocks until the next batch is ready. LS_OK with *batch filled,
 * LS_POOL_END after the last epoch, or an error (a sample failed, a worker
 * died, the timeout passed) after which the pool has stopped its workers. */
int ls_pool_next (ls_pool *pool, ls_batch *batch, ls_error *err);

/* The consumer is done with the batch; its slot can be refilled. */
void ls_pool_release (ls_pool *pool, const ls_batch *batch);

/* Stops the workers: each finishes the batch in hand, reports its CPU time
 * and exits; one that does not within 2 s is killed. The worker records
 * stay readable. */
void ls_pool_stop (ls_pool *pool);

/* Stops the workers (as ls_pool_stop) and frees everything. */
void ls_pool_free (ls_pool *pool);

const ls_arena *ls_pool_arena (const ls_pool *pool);
const ls_dataset *ls_pool_dataset (const ls_pool *pool);
uint64_t ls_pool_batches_per_epoch (const ls_pool *pool);

/* Every worker started so far. The array lives until ls_pool_free. */
const ls_worker_info *ls_pool_workers (const ls_pool *pool, size_t *count);

typedef struct ls_pool_counters {
  uint64_t dispatched;     /* batches requested from workers so far */
  uint64_t delivered;      /* batches handed to the consumer */
  uint32_t max_in_flight;  /* most batches requested but not yet delivered at once */
} ls_pool_counters;

ls_pool_counters ls_pool_get_counters (const ls_pool *pool);

/* The run's first `warmup` batches are warm-up: page faults taken while
 * building later ones count as measured (ls_worker_info). */
void ls_pool_set_warmup (ls_pool *pool, uint64_t warmup);

/* The first batch's wait split into its parts (valid once delivered). */
ls_first_batch ls_pool_first_batch (const ls_pool *pool);

/* Pids of the workers alive now, for samplers in other threads. */
size_t ls_pool_live_pids (ls_pool *pool, ls_pid *pids, size_t cap);
