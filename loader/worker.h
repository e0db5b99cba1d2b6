/* A worker's loop, shared by forked workers, the loadscope-worker
 * executable (spawn) and the in-process case (num_workers = 0). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "loader/arena.h"
#include "loader/dataset.h"
#include "platform/channel.h"

typedef struct ls_worker {
  uint32_t index;
  ls_dataset *dataset;
  const ls_arena *arena;
  ls_channel *channel; /* NULL in-process */
  bool skip_bad_samples;
} ls_worker;

/* Fills one slot: reads every sample its header names into its data, with
 * labels. With skip_bad_samples a sample that fails is replaced by the next
 * readable one (counted in the slot's `skipped`); otherwise the first
 * failure is returned, naming the sample. */
int ls_worker_fill_slot (const ls_worker *w, uint32_t slot, uint64_t *failed_index, ls_error *err);

/* Fills samples [first, end) of a slot (end clamped to its count), as a
 * part of a batch several workers build together. Samples replaced under
 * skip_bad_samples are counted in *skipped, not in the slot's header (the
 * other parts are being written at the same time). */
int ls_worker_fill_range (const ls_worker *w, uint32_t slot, uint32_t first, uint32_t end, uint32_t *skipped,
                          uint64_t *failed_index, ls_error *err);

/* Serves tasks until STOP or until the pool goes away. Returns the exit code. */
int ls_worker_serve (ls_worker *w);
