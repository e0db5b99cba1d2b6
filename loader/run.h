/* One measured run: a pool feeding a consumer for some epochs or batches,
 * with every figure of the run summary (see DESIGN.md, "What is measured"). */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "loader/gpumon.h"
#include "loader/memsampler.h"
#include "loader/pool.h"
#include "loader/sink.h"
#include "loader/stats.h"

struct ls_run_result;
struct ls_batch_record;

typedef struct ls_run_config {
  ls_pool_config pool;
  uint64_t max_batches;  /* stop after this many batches (0: run pool.epochs to the end) */
  uint32_t warmup;       /* batches left out of throughput and waits */
  ls_sink_config sink;
  bool checksum;         /* hash every delivered batch (tests, determinism checks) */
  uint32_t sample_interval_ms;              /* memory sampling, default 100 */
  volatile sig_atomic_t *interrupt;         /* set to stop the run as interrupted */

  /* Optional observers, called in the thread that runs ls_run, for
   * recording and live views. `so_far` is the result being filled. */
  void *user;
  void (*on_started) (void *user, const struct ls_run_result *so_far);      /* pool and sink ready */
  void (*on_workers) (void *user, const ls_worker_info *workers, size_t n); /* a new set has started */
  void (*on_batch) (void *user, uint64_t seq, const struct ls_batch_record *batch); /* its figures are complete */
  void (*on_memory) (void *user, const ls_memory_point *point);
} ls_run_config;

typedef enum {
  LS_RUN_DONE = 0,
  LS_RUN_FAILED = 1,
  LS_RUN_INTERRUPTED = 2,
} ls_run_status;

typedef struct ls_batch_record {
  uint32_t epoch;
  uint64_t batch;
  uint32_t samples;
  double ready_ms;   /* since the iteration started */
  double wait_ms;    /* time blocked in next(): the data stall */
  double copy_ms;    /* host to device (< 0: none, or not known) */
  double compute_ms; /* model step (< 0: none) */
  double stage_ms;   /* host copy into pinned staging memory */
  /* Where its build time went (ls_batch_stages, in ms): summed over its
   * samples and the tasks that built it. */
  double read_ms, decode_ms, transform_ms, write_ms;
  double idle_ms;    /* its builders waiting for its task(s) */
  double busy_ms;    /* its builders' wall time on it (≥ the four stages) */
  /* A user's script's batch (--target pytorch), inside its DataLoader:
   * the sampler's indices, __getitem__ summed over its samples,
   * collate_fn, the hand-off from its worker, and the pin_memory() within
   * that hand-off (pin_memory on CUDA). NaN for Loadscope's own loader's
   * batches, and for a script's batch the probe did not see. */
  double sampler_ms, getitem_ms, collate_ms, handoff_ms, pin_ms;
  /* When and where it was built, for the run's timeline: ms since the
   * iteration started (as ready_ms) of its build's start and end (NaN: not
   * known), and the worker that built it (-1: the training loop's own
   * process, num_workers 0; LS_BATCH_WORKER_UNKNOWN: not known). */
  double build_start_ms, build_end_ms;
  int32_t worker;
} ls_batch_record;

#define LS_BATCH_WORKER_UNKNOWN (-2)

typedef struct ls_run_result {
  ls_run_status status;
  char error[LS_ERROR_MESSAGE_MAX];

  uint64_t batches;          /* delivered, warm-up included */
  uint64_t samples;          /* delivered, warm-up included */
  uint64_t measured_samples; /* in the measured window */
  uint32_t warmup_used;
  double measured_s;
  double throughput_sps;     /* valid when measured_s > 0 */
  ls_dist wait_ms;           /* over the measured batches */
  ls_dist copy_ms;           /* host-to-device copy per batch (invalid for the none sink) */
  ls_dist compute_ms;        /* model step per batch */
  double gpu_util_exact;     /* model-step busy time / wall time of the measured window; < 0: none */
  double gpu_util_nvml;      /* NVML's mean over the measured window, 0..1; < 0: no NVML series */
  ls_gpumon_summary gpu;     /* the NVML series (cuda sink only); gpu.valid 0 when absent */
  char gpu_note[LS_ERROR_MESSAGE_MAX]; /* why there is no NVML series, or empty */
  char sink_name[8];         /* "none", "sim" or "cuda" */
  bool simulated;
  char sink_note[LS_ERROR_MESSAGE_MAX]; /* why auto fell back to sim, or empty */
  char device_name[128];
  uint64_t batch_bytes;      /* a full batch: batch size x sample bytes */
  uint64_t host_bytes_copied;
  double time_to_first_batch_ms; /* < 0: no batch arrived */
  ls_first_batch first_batch;    /* that wait split into its parts (valid: a batch arrived) */
  uint64_t arena_page_bytes;     /* the page size backing the arena (0: unknown) */
  double arena_populate_ms;      /* populating it where it was made, before the run started */
  double epoch_boundary_ms;  /* mean wait for the first batch of epochs after the first; < 0: none */
  double wall_s;             /* iteration start to workers stopped */
  double cpu_percent;        /* runner + workers CPU time / wall, per cent of one core */
  double cpu_ms_per_sample;  /* runner + workers CPU time / samples delivered */
  uint64_t skipped_samples;
  uint64_t arena_bytes;
  uint64_t dataset_samples;  /* length of the dataset */
  uint64_t sample_bytes;     /* one transformed sample */
  ls_memory_summary memory;
  uint64_t checksum;         /* order-independent; 0 unless asked for */

  ls_worker_info *workers;   /* every worker started */
  size_t n_workers;
  ls_batch_record *timeline; /* every delivered batch */
  size_t n_timeline;
} ls_run_result;

/* Runs to the end or to the first failure. Returns LS_OK when the run could
 * be set up (result->status then says how it went), or an error for a bad
 * configuration (nothing ran). */
int ls_run (const ls_run_config *config, ls_run_result *result, ls_error *err);

void ls_run_result_clear (ls_run_result *result);
