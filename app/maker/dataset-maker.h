/* The sample-dataset generator behind `loadscope make-dataset`: images with
 * photograph-like content (a lit scene with soft-edged objects, textures
 * from coarse to fine, and sensor grain), so a JPEG of it costs what an
 * ImageNet photo costs to store and decode (about 100 KB at 500x375, q90).
 *
 * Everything is a pure function of (seed, image index, size): the same
 * options give byte-identical files whatever the thread count, and the
 * pixel synthesis uses no libm function, only IEEE arithmetic and sqrt.
 *
 * Formats (read by loader/dataset-jpegdir.c and loader/dataset-hdf5.c):
 *   jpeg-dir   OUT/class_<k>/img_<nnnnn>.jpg, label k = index % classes
 *   hdf5       OUT: `images` uint8 [N][H][W][3] (one image per chunk, gzip
 *              level 4) and `labels` int64 [N]
 *   hdf5-jpeg  OUT: `jpeg` variable-length uint8 [N] (one encoded JPEG per
 *              row) and `labels` int64 [N]
 * The dataset is written under OUT.partial and renamed to OUT at the end,
 * so an interrupted generation never looks like a finished one. */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdint.h>

#define LS_MAKE_ERROR (ls_make_error_quark ())

typedef enum {
  LS_MAKE_ERROR_USAGE,       /* bad options, or OUT / its folder in the way: exit 2 */
  LS_MAKE_ERROR_FAILED,      /* writing or encoding failed: exit 1 */
  LS_MAKE_ERROR_INTERRUPTED, /* *interrupt became non-zero: exit 1 */
} ls_make_error_code;

GQuark ls_make_error_quark (void);

typedef enum {
  LS_MAKE_JPEG_DIR,
  LS_MAKE_HDF5,
  LS_MAKE_HDF5_JPEG,
} ls_make_format;

#define LS_MAKE_MAX_CLASSES 10
#define LS_MAKE_MAX_COUNT 10000000u
#define LS_MAKE_MAX_PIXELS (16u * 1000u * 1000u) /* per image */
#define LS_MAKE_DEFAULT_QUALITY 90
#define LS_MAKE_DEFAULT_HDF5_SIDE 256

/* "jpeg-dir", "hdf5", "hdf5-jpeg" <-> the enum. */
gboolean ls_make_format_parse (const char *name, ls_make_format *out);
const char *ls_make_format_name (ls_make_format format);

/* Called in the thread that called ls_make_dataset, after each image is
 * written: images done of total, bytes written so far. */
typedef void (*ls_make_progress_fn) (uint64_t done, uint64_t total, uint64_t bytes, void *user_data);

typedef struct ls_make_options {
  ls_make_format format;
  uint64_t count;         /* 1 .. LS_MAKE_MAX_COUNT */
  int width, height;      /* 0 x 0: jpeg formats vary sizes like ImageNet's; hdf5 uses 256x256 */
  uint64_t seed;
  int quality;            /* JPEG quality 1-100 (jpeg formats); -1: default 90 */
  int threads;            /* 0: one per core */
  gboolean force;         /* replace an existing OUT (a file, or a folder that holds a generated dataset) */
  ls_make_progress_fn progress;
  void *progress_data;
  const volatile sig_atomic_t *interrupt; /* optional: non-zero stops the generation */
} ls_make_options;

typedef struct ls_make_result {
  uint64_t images;
  uint64_t bytes;         /* on disk: all files (jpeg-dir) or the HDF5 file */
  int classes;
  double seconds;
} ls_make_result;

void ls_make_options_init (ls_make_options *o);

/* Generates the dataset at out. Errors are in LS_MAKE_ERROR and name the
 * path or option at fault; nothing is left at out or out.partial on error. */
gboolean ls_make_dataset (const ls_make_options *o, const char *out, ls_make_result *result, GError **error);

/* --- building blocks, also for tests and benchmarks --- */

/* min(count, 10) */
int ls_make_classes (uint64_t count);

/* The size of image `index` when sizes vary: about 500x375 (65 %), 375x500
 * (20 %), 500x333, 400x400 or 640x480, each side jittered by up to 8 %. */
void ls_make_image_size (uint64_t seed, uint64_t index, int *width, int *height);

/* Synthesizes image `index` (whose class is index % classes) as packed RGB8,
 * width * height * 3 bytes. */
void ls_make_image (uint64_t seed, uint64_t index, int classes, int width, int height, uint8_t *rgb);
