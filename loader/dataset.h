/* The dataset interface: a length, and "read sample i into this buffer".
 * A dataset is described by an ls_dataset_spec, which travels to spawned
 * workers as one command-line argument so they can reopen it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "platform/error.h"

typedef enum {
  LS_OUTPUT_F32_CHW = 0, /* float32, channels first, normalized (torchvision's to_tensor + normalize) */
  LS_OUTPUT_U8_HWC = 1,  /* uint8, channels last, as decoded */
} ls_output_format;

#define LS_DATASET_PATH_MAX 1024

typedef struct ls_dataset_spec {
  char kind[16];                 /* "synthetic", "jpeg-dir" or "hdf5" */
  char path[LS_DATASET_PATH_MAX];
  uint64_t count;                /* synthetic: number of samples */
  uint32_t width, height;        /* synthetic: sample size; images: the crop's side (width == height) */
  uint64_t pixel_limit;          /* images: larger ones are refused before decoding (0: 64 MP) */
  uint32_t sample_cost_us;       /* synthetic: CPU work per sample */
  double work_per_us;            /* synthetic: calibrated work units per microsecond */
  uint64_t seed;
  ls_output_format output;
  /* Fault injection (synthetic only), for tests and demonstrations; 0 = off.
   * fail_every = k: samples k-1, 2k-1, ... fail to read. crash_at / hang_at
   * = i + 1: the worker that reads sample i crashes / hangs. */
  uint64_t fail_every;
  uint64_t crash_at;
  uint64_t hang_at;
  uint64_t alloc_mb;  /* each process that reads a sample allocates and touches this much, once */
} ls_dataset_spec;

/* Wall time spent in each stage of the samples read so far, in ns (one
 * process, one thread: each worker has its own dataset). */
typedef struct ls_stage_ns {
  uint64_t read;      /* the file's or HDF5 row's bytes, and everything not below */
  uint64_t decode;    /* JPEG header and decode of the crop (gray to RGB for raw HDF5) */
  uint64_t transform; /* random resized crop and resize (synthetic: its CPU work) */
  uint64_t write;     /* the pass that writes the sample into the arena: flip, to_tensor and
                         normalize fused into it (synthetic: generating the content) */
} ls_stage_ns;

/* Opaque; the kinds see it in dataset-private.h. */
typedef struct ls_dataset ls_dataset;

/* Opens the dataset a spec describes. Bad specs are LS_ERR_INVALID with a
 * message naming the field and the reason. */
int ls_dataset_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err);

uint64_t ls_dataset_length (const ls_dataset *ds);
size_t ls_dataset_sample_bytes (const ls_dataset *ds);

/* The spec as the dataset was opened with it (what a spawned worker gets). */
const ls_dataset_spec *ls_dataset_get_spec (const ls_dataset *ds);

/* Writes sample `index` (transformed with epoch's randomness) into out,
 * exactly ls_dataset_sample_bytes() bytes, and its label. An error says
 * why, naming the file where there is one; the caller adds the index. */
int ls_dataset_read (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err);

/* Adds the stage times accumulated by ls_dataset_read since the last call
 * into *into, and starts again from zero. */
void ls_dataset_take_stages (ls_dataset *ds, ls_stage_ns *into);

void ls_dataset_close (ls_dataset *ds);

/* One-line text form of a spec for a spawned worker's command line, and
 * back. ls_dataset_spec_format returns -1 if buf is too small. */
int ls_dataset_spec_format (const ls_dataset_spec *spec, char *buf, size_t len);
int ls_dataset_spec_parse (const char *text, ls_dataset_spec *spec, ls_error *err);

/* The kind a path holds for --format auto: a folder is "jpeg-dir", a file
 * ending in .h5, .hdf5 or .hdf is "hdf5". NULL (with err) otherwise. */
const char *ls_dataset_detect_kind (const char *path, ls_error *err);

/* Measures how many units of the synthetic CPU work fit in a microsecond on
 * this machine, so a spawned worker does the same work as a forked one. */
double ls_synthetic_calibrate (void);
