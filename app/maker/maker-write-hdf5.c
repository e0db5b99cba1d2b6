/* The hdf5 writer: `images` uint8 [N][H][W][3], one image per chunk,
 * compressed on the worker threads (maker-encode.c) and stored as is with
 * H5Dwrite_chunk, as HDF5's deflate filter at level 4 would have. */
#include "app/maker/maker-hdf5.h"

static ls_maker_writer *
hdf5_open (const char *path, const ls_maker_plan *plan, GError **error)
{
  ls_maker_h5 *h = ls_maker_h5_create (path, plan, error);
  if (!h)
    return NULL;

  hid_t dcpl = ls_maker_h5_untimed (H5P_DATASET_CREATE);
  hsize_t dims[4] = { h->count, (hsize_t) plan->height, (hsize_t) plan->width, 3 };
  hsize_t chunk[4] = { 1, (hsize_t) plan->height, (hsize_t) plan->width, 3 };
  h->space = H5Screate_simple (4, dims, NULL);
  H5Pset_chunk (dcpl, 4, chunk);
  H5Pset_deflate (dcpl, 4);
  H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER);
  h->data = H5Dcreate2 (h->file, "images", H5T_STD_U8LE, h->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose (dcpl);
  if (h->data < 0)
    {
      ls_maker_failed (error, "%s: cannot create dataset 'images' of %" G_GUINT64_FORMAT "x%dx%dx3", h->path,
                       h->count, plan->height, plan->width);
      ls_maker_h5_close (h, FALSE, NULL);
      return NULL;
    }
  return (ls_maker_writer *) h;
}

static gboolean
hdf5_add (ls_maker_writer *w, const ls_maker_job *j, GError **error)
{
  ls_maker_h5 *h = (ls_maker_h5 *) w;
  hsize_t offset[4] = { j->index, 0, 0, 0 };

  ls_maker_h5_label (h, j->index);
  if (H5Dwrite_chunk (h->data, H5P_DEFAULT, j->filter_mask, offset, j->len, j->data) < 0)
    return ls_maker_failed (error, "%s: writing image %" G_GUINT64_FORMAT " failed", h->path, j->index);
  return TRUE;
}

static gboolean
hdf5_close (ls_maker_writer *w, gboolean finish, GError **error)
{
  return ls_maker_h5_close ((ls_maker_h5 *) w, finish, error);
}

const ls_maker_writer_ops ls_maker_write_hdf5 = {
  .encode = ls_maker_encode_deflate,
  .open = hdf5_open,
  .add = hdf5_add,
  .close = hdf5_close,
};
