/* What the dataset kinds share and the rest of the loader does not see:
 * the ops table each kind fills, the struct they all start with, and
 * their open functions. For dataset*.c and the tests. */
#pragma once

#include "loader/dataset.h"

typedef struct ls_dataset_ops {
  void (*close) (ls_dataset *ds);
  /* Writes sample `index` (transformed with epoch's randomness) into out,
   * exactly ls_dataset_sample_bytes() bytes. An error says why, naming the
   * file where there is one; the caller adds the sample index. */
  int (*read) (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err);
} ls_dataset_ops;

struct ls_dataset {
  const ls_dataset_ops *ops;
  ls_dataset_spec spec;
  uint64_t length;
  size_t sample_bytes;
  /* The kinds add decode, transform and write; ls_dataset_read counts the
   * rest of each read as `read`. */
  ls_stage_ns stages;
};

/* --- images (dataset-jpegdir.c, dataset-hdf5.c) --- */

int ls_jpegdir_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err);
int ls_hdf5_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err);

/* --- synthetic (dataset-synthetic.c) --- */

int ls_synthetic_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err);

/* The work itself, exposed for the benchmarks: `units` rounds of mixing. */
uint64_t ls_synthetic_work (uint64_t seed, uint64_t units);
