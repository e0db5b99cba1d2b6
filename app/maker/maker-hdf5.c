/* The HDF5 file of the hdf5 and hdf5-jpeg writers: creation, labels,
 * closing. */
#include "app/maker/maker-hdf5.h"

hid_t
ls_maker_h5_untimed (hid_t cls)
{
  hid_t plist = H5Pcreate (cls);
  H5Pset_obj_track_times (plist, 0);
  return plist;
}

ls_maker_h5 *
ls_maker_h5_create (const char *path, const ls_maker_plan *plan, GError **error)
{
  ls_maker_h5 *h = g_new0 (ls_maker_h5, 1);
  hid_t fcpl = ls_maker_h5_untimed (H5P_FILE_CREATE);

  h->path = g_strdup (path);
  h->count = plan->count;
  h->classes = plan->classes;
  h->labels = g_new (int64_t, plan->count);
  h->file = h->data = h->vtype = h->space = H5I_INVALID_HID;
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  h->file = H5Fcreate (h->path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose (fcpl);
  if (h->file < 0)
    {
      ls_maker_failed (error, "%s: cannot create the HDF5 file", h->path);
      ls_maker_h5_close (h, FALSE, NULL);
      return NULL;
    }
  return h;
}

void
ls_maker_h5_label (ls_maker_h5 *h, uint64_t index)
{
  h->labels[index] = (int64_t) (index % (uint64_t) h->classes);
}

gboolean
ls_maker_h5_close (ls_maker_h5 *h, gboolean finish, GError **error)
{
  gboolean ok = TRUE;

  if (finish)
    {
      hsize_t dims[1] = { h->count }, chunk[1] = { MIN (h->count, 65536) };
      hid_t space = H5Screate_simple (1, dims, NULL);
      hid_t dcpl = ls_maker_h5_untimed (H5P_DATASET_CREATE);
      H5Pset_chunk (dcpl, 1, chunk);
      H5Pset_deflate (dcpl, 4);
      hid_t d = H5Dcreate2 (h->file, "labels", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (d < 0 || H5Dwrite (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->labels) < 0)
        ok = ls_maker_failed (error, "%s: writing dataset 'labels' failed", h->path);
      if (d >= 0)
        H5Dclose (d);
      H5Pclose (dcpl);
      H5Sclose (space);
    }
  if (h->vtype >= 0)
    H5Tclose (h->vtype);
  if (h->space >= 0)
    H5Sclose (h->space);
  if (h->data >= 0 && H5Dclose (h->data) < 0)
    ok = ok && ls_maker_failed (error, "%s: closing the image dataset failed", h->path);
  if (h->file >= 0 && H5Fclose (h->file) < 0)
    ok = ok && ls_maker_failed (error, "%s: closing the file failed (disk full?)", h->path);
  g_free (h->labels);
  g_free (h->path);
  g_free (h);
  return ok;
}
