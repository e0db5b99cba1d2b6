/* One writer per format behind a small ops table. The maker opens the
 * writer at OUT.partial, adds every image in index order, and closes it;
 * encode runs on the worker threads, the rest in the thread that called
 * ls_make_dataset. */
#pragma once

#include "app/maker/maker-private.h"

/* A format's private state, made by open and freed by close. */
typedef struct ls_maker_writer ls_maker_writer;

typedef struct ls_maker_writer_ops {
  /* Encodes one synthesized image (w x h RGB8) into j->data / j->len or
   * sets j->error; takes pixels. Thread-safe. */
  void (*encode) (ls_maker_job *j, uint8_t *pixels, int w, int h, int quality);
  /* Creates the dataset at path; NULL (and nothing to close) on error. */
  ls_maker_writer *(*open) (const char *path, const ls_maker_plan *plan, GError **error);
  /* Writes image j->index. */
  gboolean (*add) (ls_maker_writer *w, const ls_maker_job *j, GError **error);
  /* With finish, completes the dataset (labels); closes and frees w. */
  gboolean (*close) (ls_maker_writer *w, gboolean finish, GError **error);
} ls_maker_writer_ops;

/* maker-write-jpegdir.c: OUT/class_<k>/img_<nnnnn>.jpg */
extern const ls_maker_writer_ops ls_maker_write_jpegdir;
#ifdef LS_MAKE_HAVE_HDF5
/* maker-write-hdf5.c: `images` uint8 [N][H][W][3], `labels` int64 [N] */
extern const ls_maker_writer_ops ls_maker_write_hdf5;
/* maker-write-hdf5-jpeg.c: `jpeg` vlen uint8 [N], `labels` int64 [N] */
extern const ls_maker_writer_ops ls_maker_write_hdf5_jpeg;
#endif

/* The writer of a format; NULL where this build cannot write it. */
const ls_maker_writer_ops *ls_maker_writer_for (ls_make_format format);
