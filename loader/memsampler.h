/* Samples the memory of the runner and its live workers about every 100 ms
 * in a background thread: the sum over the process tree of RSS, PSS and USS
 * (Windows: working set and private bytes), its peak and its mean. */
#pragma once

#include <stdint.h>

#include "loader/pool.h"
#include "platform/procmem.h"

typedef struct ls_memsampler ls_memsampler;

/* One sample of the process tree. */
typedef struct ls_memory_point {
  double t_ms;               /* since the sampler started */
  uint32_t processes;        /* runner + live workers read */
  uint64_t rss_bytes, pss_bytes, uss_bytes;         /* tree sums (Linux) */
  uint64_t working_set_bytes, private_bytes;        /* tree sums (Windows) */
  uint64_t runner_pss_bytes; /* the runner alone (Windows: private bytes) */
  uint64_t cpu_ns;           /* CPU time of the processes alive at this sample */
} ls_memory_point;

typedef struct ls_memory_summary {
  unsigned valid;            /* LS_PROCMEM_* bits with at least one reading */
  uint64_t samples;
  ls_procmem peak;           /* per field, the largest tree-wide sum seen */
  ls_procmem mean;           /* per field, the mean of the tree-wide sums */
  uint64_t sampler_cpu_ns;   /* CPU the sampling itself took (reading /proc is not free) */
  ls_memory_point *series;   /* every sample, in order (malloc'ed; free with ls_memory_summary_clear) */
  size_t n_series;
} ls_memory_summary;

void ls_memory_summary_clear (ls_memory_summary *summary);

/* pool may be NULL (only the runner is sampled). */
int ls_memsampler_start (ls_pool *pool, uint32_t interval_ms, ls_memsampler **out, ls_error *err);

/* Copies the points recorded since point `from` (at most cap); for live
 * views in the thread that owns the run. */
size_t ls_memsampler_points_since (ls_memsampler *s, size_t from, ls_memory_point *out, size_t cap);

/* Takes one last sample, stops the thread and fills *summary. */
void ls_memsampler_stop (ls_memsampler *s, ls_memory_summary *summary);
