/* Declarations shared by the files of the sample-dataset maker; not for
 * use outside app/maker/. The public API is dataset-maker.h.
 *
 *   dataset-maker.c        ls_make_dataset: options, paths, writer, jobs, install
 *   maker-options.c        format names, option checks, the plan
 *   maker-paths.c          OUT and OUT.partial: never replace what is not ours
 *   maker-jobs.c           images made on worker threads, written in order
 *   maker-encode.c         JPEG and deflate encoding on the worker threads
 *   maker-write-*.c        one writer per format (maker-writer.h)
 *   maker-hdf5.c           what the two HDF5 writers share (maker-hdf5.h)
 *   maker-synth*.c         the pixels (maker-synth.h) */
#pragma once

#include "app/maker/dataset-maker.h"

/* Errors in LS_MAKE_ERROR: USAGE (exit 2) and FAILED (exit 1). Both return
 * FALSE. */
gboolean ls_maker_usage_error (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
gboolean ls_maker_failed (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* What every image of one generation shares, fixed before any is made. */
typedef struct ls_maker_plan {
  ls_make_format format;
  uint64_t seed;
  uint64_t count;
  int classes;
  int quality;          /* resolved: 1-100 */
  int width, height;    /* 0 x 0: each image's own size (ls_make_image_size) */
} ls_maker_plan;

/* --- maker-options.c --- */

/* Refuses bad options (LS_MAKE_ERROR_USAGE). */
gboolean ls_maker_check_options (const ls_make_options *o, GError **error);

/* The plan of checked options: classes, default quality and hdf5 size. */
void ls_maker_plan_init (ls_maker_plan *plan, const ls_make_options *o);

/* --- maker-paths.c --- */

/* OUT without trailing separators ("/tmp/d/" is "/tmp/d": the temporary
 * name goes beside it, not inside) and OUT.partial; both newly allocated. */
void ls_maker_paths (const char *out_arg, char **out, char **partial);

/* Checks OUT, its folder and OUT.partial before any work; removes a
 * leftover OUT.partial of an interrupted generation. */
gboolean ls_maker_check_paths (const ls_make_options *o, const char *out, const char *partial, GError **error);

/* partial -> out, replacing what ls_maker_check_paths allowed to replace. */
gboolean ls_maker_install (ls_make_format format, const char *partial, const char *out, GError **error);

/* Removes what was written at partial (a generated folder, or the file). */
void ls_maker_remove_partial (ls_make_format format, const char *partial);

/* The size of a file, 0 if it cannot be read. */
uint64_t ls_maker_file_size (const char *path);

/* --- maker-jobs.c --- */

/* One image, made and encoded on a worker thread, then handed to the
 * writer in index order. */
typedef struct ls_maker_job {
  uint64_t index;
  uint8_t *data;        /* the encoded JPEG, the compressed chunk, or raw pixels */
  size_t len;
  uint32_t filter_mask; /* hdf5: 1 if the chunk is stored uncompressed */
  char *error;          /* set instead of data when encoding failed */
  gboolean ready;
} ls_maker_job;

struct ls_maker_writer_ops;
struct ls_maker_writer;

/* Makes every image of the plan on worker threads and adds them, in index
 * order, to the writer, reporting progress and watching o->interrupt.
 * *bytes: the encoded bytes added so far. The writer is not closed. */
gboolean ls_maker_run_jobs (const ls_make_options *o, const ls_maker_plan *plan,
                            const struct ls_maker_writer_ops *ops, struct ls_maker_writer *writer,
                            const char *partial, uint64_t *bytes, GError **error);

/* --- maker-encode.c (called on worker threads) --- */

/* j->data := the JPEG of pixels (w x h RGB8) at quality, or j->error. Frees
 * pixels. */
void ls_maker_encode_jpeg (ls_maker_job *j, uint8_t *pixels, int w, int h, int quality);

/* j->data := what HDF5's deflate filter (level 4) would store, or the raw
 * pixels with j->filter_mask = 1 where deflate does not make them smaller.
 * Takes pixels. */
void ls_maker_encode_deflate (ls_maker_job *j, uint8_t *pixels, int w, int h, int quality);
