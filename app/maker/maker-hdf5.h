/* What the two HDF5 writers share (maker-hdf5.c): the file, created
 * without timestamps so that two runs give the same bytes, and the
 * `labels` dataset written when the file is completed. Only with
 * LS_MAKE_HAVE_HDF5. */
#pragma once

#include <hdf5.h>

#include "app/maker/maker-writer.h"

typedef struct {
  char *path;
  uint64_t count;
  int classes;
  int64_t *labels;
  hid_t file, data, vtype, space; /* data, vtype, space: the image dataset's */
} ls_maker_h5;

/* A property list of `cls` whose objects record no creation times. */
hid_t ls_maker_h5_untimed (hid_t cls);

/* Creates the HDF5 file at path (truncating it); NULL on error. */
ls_maker_h5 *ls_maker_h5_create (const char *path, const ls_maker_plan *plan, GError **error);

/* Records image index's label, index % classes. */
void ls_maker_h5_label (ls_maker_h5 *h, uint64_t index);

/* With finish, writes `labels`; closes every handle and frees h. */
gboolean ls_maker_h5_close (ls_maker_h5 *h, gboolean finish, GError **error);
