/* Which samples make up batch b of epoch e: sequential, or a permutation
 * that is a pure function of (seed, epoch), so every worker count and start
 * method delivers the same batches. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "platform/error.h"

/* The most samples a dataset may have (as the store's dataset_samples):
 * every size computed from a length stays far from overflow. */
#define LS_SAMPLER_MAX_LENGTH ((uint64_t) 1 << 40)

typedef struct ls_sampler {
  uint64_t length;
  uint32_t batch_size;
  bool shuffle;
  bool drop_last;
  uint64_t seed;
  uint32_t perm_epoch; /* epoch whose permutation is in perm */
  uint64_t *perm;      /* NULL when sequential */
} ls_sampler;

int ls_sampler_init (ls_sampler *s, uint64_t length, uint32_t batch_size, bool shuffle, bool drop_last,
                     uint64_t seed, ls_error *err);

uint64_t ls_sampler_batches_per_epoch (const ls_sampler *s);

/* Writes the dataset indices of batch `batch` of `epoch` into indices (room
 * for batch_size) and returns how many there are (the last batch of an
 * epoch may be short unless drop_last). */
uint32_t ls_sampler_batch (ls_sampler *s, uint32_t epoch, uint64_t batch, uint64_t *indices);

void ls_sampler_clear (ls_sampler *s);
