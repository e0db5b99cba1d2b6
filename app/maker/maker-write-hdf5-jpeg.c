/* The hdf5-jpeg writer: `jpeg` variable-length uint8 [N], one encoded JPEG
 * per row, in chunks of up to 1024 rows. */
#include "app/maker/maker-hdf5.h"

static ls_maker_writer *
hdf5_jpeg_open (const char *path, const ls_maker_plan *plan, GError **error)
{
  ls_maker_h5 *h = ls_maker_h5_create (path, plan, error);
  if (!h)
    return NULL;

  hid_t dcpl = ls_maker_h5_untimed (H5P_DATASET_CREATE);
  hsize_t dims[1] = { h->count };
  hsize_t chunk[1] = { MIN (h->count, 1024) };
  hid_t ftype = H5Tvlen_create (H5T_STD_U8LE);
  h->vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
  h->space = H5Screate_simple (1, dims, NULL);
  H5Pset_chunk (dcpl, 1, chunk);
  h->data = H5Dcreate2 (h->file, "jpeg", ftype, h->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Tclose (ftype);
  H5Pclose (dcpl);
  if (h->data < 0)
    {
      ls_maker_failed (error, "%s: cannot create dataset 'jpeg' of %" G_GUINT64_FORMAT " rows", h->path, h->count);
      ls_maker_h5_close (h, FALSE, NULL);
      return NULL;
    }
  return (ls_maker_writer *) h;
}

static gboolean
hdf5_jpeg_add (ls_maker_writer *w, const ls_maker_job *j, GError **error)
{
  ls_maker_h5 *h = (ls_maker_h5 *) w;
  hsize_t start[1] = { j->index }, one[1] = { 1 };
  hid_t mem = H5Screate_simple (1, one, NULL);
  hvl_t row = { j->len, j->data };

  ls_maker_h5_label (h, j->index);
  herr_t rc = H5Sselect_hyperslab (h->space, H5S_SELECT_SET, start, NULL, one, NULL);
  if (rc >= 0)
    rc = H5Dwrite (h->data, h->vtype, mem, h->space, H5P_DEFAULT, &row);
  H5Sclose (mem);
  if (rc < 0)
    return ls_maker_failed (error, "%s: writing row %" G_GUINT64_FORMAT " of 'jpeg' failed", h->path, j->index);
  return TRUE;
}

static gboolean
hdf5_jpeg_close (ls_maker_writer *w, gboolean finish, GError **error)
{
  return ls_maker_h5_close ((ls_maker_h5 *) w, finish, error);
}

const ls_maker_writer_ops ls_maker_write_hdf5_jpeg = {
  .encode = ls_maker_encode_jpeg,
  .open = hdf5_jpeg_open,
  .add = hdf5_jpeg_add,
  .close = hdf5_jpeg_close,
};
