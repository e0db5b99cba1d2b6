/* Files that declare more than they hold: an HDF5 file of a few
 * kilobytes declaring 2^62 rows or 2^32-pixel sides, a sparse 1 GB .jpg,
 * a sampler asked for more samples than any size computation can hold.
 * Each is refused with an error naming the file, before any allocation
 * sized by the file (release: no SIGSEGV; ASan: no overflow). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <hdf5.h>

#include "loader/dataset.h"
#include "loader/sampler.h"
#include "test-util.h"

static char *scratch;

static void
write_chunked (hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims)
{
  hsize_t chunk[4] = { 1, 1, 1, 1 };
  for (int i = 1; i < rank; i++)
    chunk[i] = dims[i] < 64 ? dims[i] : 64;
  hid_t space = H5Screate_simple (rank, dims, NULL);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, rank, chunk);
  hid_t d = H5Dcreate2 (file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
}

/* images [rows][h][w][3] (or jpeg [rows] when h == 0) and labels [label_rows], all chunked and unwritten. */
static char *
make_declaring (const char *name, hsize_t rows, hsize_t h, hsize_t w, hsize_t label_rows)
{
  char *path = g_build_filename (scratch, name, NULL);
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  if (h)
    {
      hsize_t dims[4] = { rows, h, w, 3 };
      write_chunked (file, "images", H5T_NATIVE_UINT8, 4, dims);
    }
  else
    {
      hid_t vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
      hsize_t dims[1] = { rows };
      write_chunked (file, "jpeg", vtype, 1, dims);
      H5Tclose (vtype);
    }
  hsize_t ldims[1] = { label_rows };
  write_chunked (file, "labels", H5T_NATIVE_INT32, 1, ldims);
  H5Fclose (file);
  return path;
}

static char *
open_error (const char *kind, const char *path)
{
  ls_dataset_spec spec;
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  memset (&spec, 0, sizeof spec);
  g_strlcpy (spec.kind, kind, sizeof spec.kind);
  g_strlcpy (spec.path, path, sizeof spec.path);
  spec.width = spec.height = 32;
  int rc = ls_dataset_open (&spec, &ds, &err);
  g_assert_cmpint (rc, !=, LS_OK);
  g_assert_null (ds);
  g_assert_nonnull (strstr (err.message, path));
  return g_strdup (err.message);
}

static void
test_hdf5_huge_rows (void)
{
  const hsize_t huge = ((hsize_t) 1 << 62) + 1;
  g_autofree char *raw = make_declaring ("rows.h5", huge, 8, 8, huge);
  g_autofree char *jpeg = make_declaring ("jpeg-rows.h5", huge, 0, 0, huge);
  g_autofree char *e1 = open_error ("hdf5", raw);
  g_autofree char *e2 = open_error ("hdf5", jpeg);
  g_test_message ("%s\n%s", e1, e2);
  g_assert_nonnull (strstr (e1, "4611686018427387905 rows"));
  g_assert_nonnull (strstr (e2, "4611686018427387905 rows"));

  /* Under the hard limit, but labels larger than the machine can hold. */
  const hsize_t big = (hsize_t) 1 << 40;
  g_autofree char *ram = make_declaring ("ram.h5", big, 8, 8, big);
  g_autofree char *e3 = open_error ("hdf5", ram);
  g_assert_nonnull (strstr (e3, "rows"));
}

static void
test_hdf5_huge_sides (void)
{
  const hsize_t side = (hsize_t) 1 << 32; /* side * side wraps to 0 in 64 bits */
  g_autofree char *path = make_declaring ("sides.h5", 4, side, side, 4);
  g_autofree char *e = open_error ("hdf5", path);
  g_assert_nonnull (strstr (e, "at most 65535 pixels"));
}

static void
test_sampler_limits (void)
{
  ls_sampler s;
  ls_error err = { 0 };
  g_assert_cmpint (ls_sampler_init (&s, ((uint64_t) 1 << 62) + 1, 4, FALSE, FALSE, 0, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "at most"));
  ls_sampler_clear (&s);
  /* 2^39 samples: a 4 TiB permutation, refused before malloc */
  g_assert_cmpint (ls_sampler_init (&s, (uint64_t) 1 << 39, 4, TRUE, FALSE, 0, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "GiB"));
  ls_sampler_clear (&s);
  /* Sequential needs no memory: the last batch of a large length. */
  g_assert_cmpint (ls_sampler_init (&s, (uint64_t) 1 << 40, 65536, FALSE, FALSE, 0, &err), ==, LS_OK);
  uint64_t *idx = g_new (uint64_t, 65536);
  uint64_t last = ls_sampler_batches_per_epoch (&s) - 1;
  g_assert_cmpuint (ls_sampler_batch (&s, 0, last, idx), ==, 65536);
  g_assert_cmpuint (idx[65535], ==, ((uint64_t) 1 << 40) - 1);
  g_assert_cmpuint (ls_sampler_batch (&s, 0, last + 1, idx), ==, 0);
  g_free (idx);
  ls_sampler_clear (&s);
}

static void
test_sparse_jpeg_is_not_read (void)
{
  g_autofree char *root = g_build_filename (scratch, "imgs", NULL);
  g_autofree char *cls = g_build_filename (root, "a", NULL);
  g_autofree char *file = g_build_filename (cls, "big.jpg", NULL);
  g_assert_cmpint (g_mkdir_with_parents (cls, 0700), ==, 0);
  int fd = open (file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 30), ==, 0); /* 1 GiB, sparse */
  close (fd);

  ls_dataset_spec spec;
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  memset (&spec, 0, sizeof spec);
  g_strlcpy (spec.kind, "jpeg-dir", sizeof spec.kind);
  g_strlcpy (spec.path, root, sizeof spec.path);
  spec.width = spec.height = 32;
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
  g_autofree guint8 *out = g_malloc (ls_dataset_sample_bytes (ds));
  int32_t label;
  g_assert_cmpint (ls_dataset_read (ds, 0, 0, out, &label, &err), !=, LS_OK);
  /* Refused by its size, before reading (the size check's words; not
   * timed, as load stretches any timing). */
  g_assert_nonnull (strstr (err.message, "big.jpg"));
  g_assert_nonnull (strstr (err.message, "MiB"));
  ls_dataset_close (ds);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-hostile-XXXXXX", NULL);
  g_test_add_func ("/loader/hostile/hdf5-huge-rows", test_hdf5_huge_rows);
  g_test_add_func ("/loader/hostile/hdf5-huge-sides", test_hdf5_huge_sides);
  g_test_add_func ("/loader/hostile/sampler-limits", test_sampler_limits);
  g_test_add_func ("/loader/hostile/sparse-jpeg-is-not-read", test_sparse_jpeg_is_not_read);
  int rc = ls_test_run_checked ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  return rc;
}
