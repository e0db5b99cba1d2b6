#include "loader/sampler.h"

#include <stdlib.h>

#include "loader/prng.h"
#include "platform/sysinfo.h"

int
ls_sampler_init (ls_sampler *s, uint64_t length, uint32_t batch_size, bool shuffle, bool drop_last,
                 uint64_t seed, ls_error *err)
{
  *s = (ls_sampler){ .length = length, .batch_size = batch_size, .shuffle = shuffle, .drop_last = drop_last,
                     .seed = seed, .perm_epoch = UINT32_MAX };
  if (batch_size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "--batch-size must be at least 1");
  if (length == 0)
    return ls_error_set (err, LS_ERR_INVALID, "the dataset has no samples");
  if (drop_last && length < batch_size)
    return ls_error_set (err, LS_ERR_INVALID,
                         "drop_last with %llu samples and --batch-size %u leaves no batch",
                         (unsigned long long) length, batch_size);
  /* The length may come from a file (an HDF5 file can declare 2^62 rows
   * in a few bytes): bound it before any size is computed from it. */
  if (length > LS_SAMPLER_MAX_LENGTH)
    return ls_error_set (err, LS_ERR_INVALID, "the dataset declares %llu samples; at most %llu are supported",
                         (unsigned long long) length, (unsigned long long) LS_SAMPLER_MAX_LENGTH);
  if (shuffle)
    {
      uint64_t bytes = length * sizeof *s->perm; /* <= 2^43: no overflow */
      ls_sysinfo info;
      if (ls_sysinfo_read (&info, NULL) == LS_OK && info.total_ram_bytes && bytes > info.total_ram_bytes / 2)
        return ls_error_set (err, LS_ERR_INVALID,
                             "shuffling %llu samples needs a %.1f GiB permutation, more than half of this "
                             "machine's %.1f GiB of memory",
                             (unsigned long long) length, bytes / 1073741824.0, info.total_ram_bytes / 1073741824.0);
      s->perm = malloc ((size_t) bytes);
      if (!s->perm)
        return ls_error_set (err, LS_ERR_NOMEM, "sampler: no memory for a permutation of %llu samples",
                             (unsigned long long) length);
    }
  return LS_OK;
}

uint64_t
ls_sampler_batches_per_epoch (const ls_sampler *s)
{
  return s->drop_last ? s->length / s->batch_size : (s->length + s->batch_size - 1) / s->batch_size;
}

/* Fisher-Yates with a generator seeded by (seed, epoch). */
static void
make_permutation (ls_sampler *s, uint32_t epoch)
{
  ls_rng rng = ls_rng_for (s->seed, epoch, 0x5045524dull);
  for (uint64_t i = 0; i < s->length; i++)
    s->perm[i] = i;
  for (uint64_t i = s->length - 1; i > 0; i--)
    {
      uint64_t j = ls_rng_below (&rng, i + 1);
      uint64_t t = s->perm[i];
      s->perm[i] = s->perm[j];
      s->perm[j] = t;
    }
  s->perm_epoch = epoch;
}

uint32_t
ls_sampler_batch (ls_sampler *s, uint32_t epoch, uint64_t batch, uint64_t *indices)
{
  uint64_t first = batch * s->batch_size;
  uint32_t n = 0;

  if (batch >= ls_sampler_batches_per_epoch (s))
    return 0;
  if (s->shuffle && s->perm_epoch != epoch)
    make_permutation (s, epoch);
  for (uint64_t pos = first; pos < s->length && n < s->batch_size; pos++)
    indices[n++] = s->shuffle ? s->perm[pos] : pos;
  return n;
}

void
ls_sampler_clear (ls_sampler *s)
{
  free (s->perm);
  s->perm = NULL;
}
