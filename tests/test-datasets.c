/* The image datasets: jpeg-dir (ImageFolder layout) and hdf5 (raw arrays or
 * encoded JPEG rows), through the pool with both start methods, and every
 * bad input with the message a user gets. Fixtures are made here. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "loader/jpeg.h"
#include "loader/run.h"
#include "loader/transform.h"
#include "test-util.h"

static char *tmp_root;

/* A textured RGB image, different for every seed. */
static guint8 *
texture (int w, int h, guint seed)
{
  guint8 *px = g_malloc ((gsize) w * h * 3);
  GRand *r = g_rand_new_with_seed (seed);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        px[((gsize) y * w + x) * 3 + c] = (guint8) (((x * (c + 1) + y * (3 - c)) ^ g_rand_int_range (r, 0, 48)) & 0xff);
  g_rand_free (r);
  return px;
}

static void
write_jpeg (const char *path, int w, int h, guint seed)
{
  g_autofree guint8 *px = texture (w, h, seed);
  uint8_t *jpeg = NULL;
  size_t len = 0;
  ls_error err = { 0 };
  g_assert_cmpint (ls_jpeg_encode (px, w, h, 3, 90, 0, &jpeg, &len, &err), ==, LS_OK);
  g_assert_true (g_file_set_contents (path, (const char *) jpeg, (gssize) len, NULL));
  free (jpeg);
}

static char *
make_path (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();
  g_ptr_array_add (parts, tmp_root);
  for (const char *p = first; p; p = va_arg (ap, const char *))
    g_ptr_array_add (parts, (char *) p);
  va_end (ap);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

/* root/<class>/... with `per_class` images each; returns the root. */
static char *
make_jpeg_dir (const char *name, int classes, int per_class)
{
  char *root = make_path (name, NULL);
  g_mkdir_with_parents (root, 0755);
  for (int c = 0; c < classes; c++)
    {
      g_autofree char *cls = g_strdup_printf ("%s/class_%c", root, 'a' + c);
      g_mkdir_with_parents (cls, 0755);
      for (int i = 0; i < per_class; i++)
        {
          /* Mixed extensions and case, as real folders have. */
          const char *ext = i % 3 == 0 ? "jpg" : i % 3 == 1 ? "JPEG" : "Jpg";
          g_autofree char *file = g_strdup_printf ("%s/img_%03d.%s", cls, i, ext);
          write_jpeg (file, 120 + 17 * i, 90 + 11 * c, (guint) (c * 100 + i));
        }
      g_autofree char *other = g_strdup_printf ("%s/notes.txt", cls);
      g_file_set_contents (other, "not an image", -1, NULL);
    }
  return root;
}

static ls_run_config
image_config (const char *kind, const char *path, uint32_t workers, ls_start_method start)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, kind, sizeof c.pool.dataset.kind);
  g_strlcpy (c.pool.dataset.path, path, sizeof c.pool.dataset.path);
  c.pool.dataset.width = c.pool.dataset.height = 48;
  c.pool.dataset.output = LS_OUTPUT_F32_CHW;
  c.pool.dataset.seed = 3;
  c.pool.seed = 3;
  c.pool.num_workers = workers;
  c.pool.start = start;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c.pool.batch_size = 4;
  c.pool.epochs = 2;
  c.pool.timeout_s = 30;
  c.checksum = true;
  c.sample_interval_ms = 20;
  return c;
}

static ls_run_result
run_expect (const ls_run_config *c, ls_run_status want)
{
  ls_run_result r;
  ls_error err = { 0 };
  g_assert_cmpint (ls_run (c, &r, &err), ==, LS_OK);
  if (r.status != want)
    g_error ("run ended %d, expected %d: %s", r.status, want, r.error);
  return r;
}

static void
check_same_across_workers (const char *kind, const char *path, uint64_t expect_samples)
{
  ls_run_config c = image_config (kind, path, 0, LS_START_FORK);
  ls_run_result ref = run_expect (&c, LS_RUN_DONE);
  g_assert_cmpuint (ref.samples, ==, 2 * expect_samples);
  g_assert_cmpuint (ref.dataset_samples, ==, expect_samples);
  g_assert_cmpuint (ref.sample_bytes, ==, 48 * 48 * 3 * 4);
  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      c = image_config (kind, path, 2, (ls_start_method) start);
      ls_run_result r = run_expect (&c, LS_RUN_DONE);
      g_assert_cmpuint (r.checksum, ==, ref.checksum);
      ls_run_result_clear (&r);
    }
  ls_run_result_clear (&ref);
}

static void
test_jpeg_dir_loads_the_same_everywhere (void)
{
  g_autofree char *root = make_jpeg_dir ("folder", 3, 5);
  ls_dataset_spec spec = image_config ("jpeg-dir", root, 0, LS_START_FORK).pool.dataset;
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  g_autofree float *out = g_malloc (48 * 48 * 3 * 4);
  int32_t label;

  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
  g_assert_cmpuint (ls_dataset_length (ds), ==, 15);
  /* Classes in name order, labels by class. */
  for (uint64_t i = 0; i < 15; i++)
    {
      g_assert_cmpint (ls_dataset_read (ds, i, 0, out, &label, &err), ==, LS_OK);
      g_assert_cmpint (label, ==, (int32_t) (i / 5));
    }
  ls_dataset_close (ds);
  check_same_across_workers ("jpeg-dir", root, 15);
}

static void
test_jpeg_dir_bad_folders (void)
{
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  g_autofree char *missing = make_path ("no-such-folder", NULL);
  g_autofree char *empty = make_path ("empty", NULL);
  g_autofree char *loose = make_path ("loose", NULL);
  g_autofree char *loose_img = make_path ("loose", "a.jpg", NULL);
  g_autofree char *no_jpegs = make_path ("no-jpegs", "cls", NULL);
  g_autofree char *no_jpegs_root = make_path ("no-jpegs", NULL);
  ls_dataset_spec spec = image_config ("jpeg-dir", missing, 0, LS_START_FORK).pool.dataset;

  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_NOT_FOUND);
  g_assert_nonnull (strstr (err.message, missing));

  g_mkdir_with_parents (empty, 0755);
  g_strlcpy (spec.path, empty, sizeof spec.path);
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "found no .jpg or .jpeg files in class folders"));
  g_assert_nonnull (strstr (err.message, "<class>/<image>.jpg"));

  g_mkdir_with_parents (loose, 0755);
  write_jpeg (loose_img, 20, 20, 1);
  g_strlcpy (spec.path, loose, sizeof spec.path);
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "found 1 JPEG files but no class folders"));

  g_mkdir_with_parents (no_jpegs, 0755);
  g_strlcpy (spec.path, no_jpegs_root, sizeof spec.path);
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);

  g_strlcpy (spec.path, loose_img, sizeof spec.path);
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "is a file"));
  g_assert_null (ds);
}

static void
test_bad_files_fail_or_are_skipped (void)
{
  g_autofree char *root = make_jpeg_dir ("bad-files", 2, 6);
  g_autofree char *truncated = make_path ("bad-files", "class_a", "img_001.JPEG", NULL);
  g_autofree char *empty = make_path ("bad-files", "class_b", "img_002.Jpg", NULL);
  g_autofree char *not_jpeg = make_path ("bad-files", "class_b", "img_004.JPEG", NULL);
  gchar *data = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (truncated, &data, &len, NULL));
  g_assert_true (g_file_set_contents (truncated, data, (gssize) (len * 6 / 10), NULL));
  g_free (data);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  g_assert_true (g_file_set_contents (not_jpeg, "\x89PNG\r\n\x1a\n0000000000000000", 24, NULL));

  struct {
    const char *path;
    const char *reason;
  } bad[] = { { truncated, "truncated" }, { empty, "empty file" }, { not_jpeg, "not a JPEG" } };

  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      ls_run_config c = image_config ("jpeg-dir", root, 2, (ls_start_method) start);
      c.pool.shuffle = false;
      c.pool.epochs = 1;
      ls_run_result r = run_expect (&c, LS_RUN_FAILED);
      /* The first bad sample in order is the truncated one. */
      g_test_message ("fail policy: %s", r.error);
      g_assert_true (g_str_has_prefix (r.error, "sample 1: "));
      g_assert_nonnull (strstr (r.error, truncated));
      g_assert_nonnull (strstr (r.error, "truncated"));
      ls_run_result_clear (&r);

      c.pool.skip_bad_samples = true;
      r = run_expect (&c, LS_RUN_DONE);
      g_assert_cmpuint (r.skipped_samples, ==, 3);
      g_assert_cmpuint (r.samples, ==, 12);
      ls_run_result_clear (&r);
    }

  /* Each reason, one file at a time, in-process. */
  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ls_dataset_spec spec = image_config ("jpeg-dir", root, 0, LS_START_FORK).pool.dataset;
      ls_dataset *ds = NULL;
      ls_error err = { 0 };
      g_autofree float *out = g_malloc (48 * 48 * 3 * 4);
      int32_t label;
      g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
      uint64_t index = i == 0 ? 1 : i == 1 ? 8 : 10;
      g_assert_cmpint (ls_dataset_read (ds, index, 0, out, &label, &err), ==, LS_ERR_INVALID);
      g_test_message ("%s", err.message);
      g_assert_nonnull (strstr (err.message, bad[i].path));
      g_assert_nonnull (strstr (err.message, bad[i].reason));
      ls_dataset_close (ds);
    }
}

static void
test_pixel_limit_refuses_big_images (void)
{
  g_autofree char *root = make_jpeg_dir ("big", 1, 2);
  ls_run_config c = image_config ("jpeg-dir", root, 1, LS_START_FORK);
  c.pool.dataset.pixel_limit = 5000; /* the images are about 120 x 90 = 10800 pixels */
  ls_run_result r = run_expect (&c, LS_RUN_FAILED);
  g_assert_nonnull (strstr (r.error, "over the 0.0 MP limit"));
  ls_run_result_clear (&r);
}

/* ------------------------------------------------------------ HDF5 */

static void
write_dataset (hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data, gboolean gzip)
{
  hid_t space = H5Screate_simple (rank, dims, NULL);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  if (gzip)
    {
      hsize_t chunk[4] = { 1, dims[1], dims[2], dims[3] };
      H5Pset_chunk (dcpl, rank, chunk);
      H5Pset_deflate (dcpl, 4);
    }
  hid_t d = H5Dcreate2 (file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  if (data)
    g_assert_cmpint (H5Dwrite (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
}

static char *
make_hdf5_raw (const char *name, int n, int h, int w, int c, gboolean gzip)
{
  char *path = make_path (name, NULL);
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[4] = { (hsize_t) n, (hsize_t) h, (hsize_t) w, (hsize_t) c };
  g_autofree guint8 *px = g_malloc ((gsize) n * h * w * c);
  g_autofree gint64 *labels = g_new (gint64, n);
  for (gsize i = 0; i < (gsize) n * h * w * c; i++)
    px[i] = (guint8) ((i * 2654435761u) >> 13);
  for (int i = 0; i < n; i++)
    labels[i] = i % 7;
  write_dataset (file, "images", H5T_NATIVE_UINT8, 4, dims, px, gzip);
  hsize_t ldims[1] = { (hsize_t) n };
  write_dataset (file, "labels", H5T_NATIVE_INT64, 1, ldims, labels, FALSE);
  H5Fclose (file);
  return path;
}

static char *
make_hdf5_jpeg (const char *name, int n)
{
  char *path = make_path (name, NULL);
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
  hvl_t *rows = g_new0 (hvl_t, n);
  g_autofree gint64 *labels = g_new (gint64, n);
  for (int i = 0; i < n; i++)
    {
      g_autofree guint8 *px = texture (80 + 9 * i, 60 + 5 * i, (guint) i);
      uint8_t *jpeg = NULL;
      size_t len = 0;
      g_assert_cmpint (ls_jpeg_encode (px, 80 + 9 * i, 60 + 5 * i, 3, 90, 0, &jpeg, &len, NULL), ==, LS_OK);
      rows[i].p = jpeg;
      rows[i].len = len;
      labels[i] = i % 3;
    }
  hsize_t dims[1] = { (hsize_t) n };
  write_dataset (file, "jpeg", vtype, 1, dims, rows, FALSE);
  write_dataset (file, "labels", H5T_NATIVE_INT64, 1, dims, labels, FALSE);
  for (int i = 0; i < n; i++)
    free (rows[i].p);
  g_free (rows);
  H5Tclose (vtype);
  H5Fclose (file);
  return path;
}

static void
test_hdf5_layouts_load_the_same_everywhere (void)
{
  g_autofree char *raw = make_hdf5_raw ("raw.h5", 13, 40, 56, 3, TRUE);
  g_autofree char *gray = make_hdf5_raw ("gray.h5", 9, 33, 30, 1, FALSE);
  g_autofree char *jpeg = make_hdf5_jpeg ("jpeg.h5", 11);
  ls_error err = { 0 };

  g_assert_cmpstr (ls_dataset_detect_kind (raw, &err), ==, "hdf5");
  check_same_across_workers ("hdf5", raw, 13);
  check_same_across_workers ("hdf5", gray, 9);
  check_same_across_workers ("hdf5", jpeg, 11);

  /* Labels come from the file. */
  ls_dataset_spec spec = image_config ("hdf5", raw, 0, LS_START_FORK).pool.dataset;
  ls_dataset *ds = NULL;
  g_autofree float *out = g_malloc (48 * 48 * 3 * 4);
  int32_t label;
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
  g_assert_cmpint (ls_dataset_read (ds, 10, 0, out, &label, &err), ==, LS_OK);
  g_assert_cmpint (label, ==, 3);
  ls_dataset_close (ds);
}

static void
test_hdf5_wrong_layouts_are_named (void)
{
  struct {
    const char *name;
    const char *message;
  } cases[] = {
    { "nothing.h5", "no dataset 'images'" },  { "rank3.h5", "has shape 4x8x8 (rank 3)" },
    { "float.h5", "4-byte float values" },    { "channels.h5", "has shape 4x8x8x2 (rank 4)" },
    { "labels.h5", "'labels' has 3 entries but 'images' has 4" },
    { "nolabels.h5", "no dataset 'labels'" },
  };
  hsize_t d3[3] = { 4, 8, 8 }, d4[4] = { 4, 8, 8, 3 }, d4c2[4] = { 4, 8, 8, 2 }, l3[1] = { 3 };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = make_path (cases[i].name, NULL);
      hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      switch (i)
        {
        case 0: write_dataset (file, "pixels", H5T_NATIVE_UINT8, 4, d4, NULL, FALSE); break;
        case 1: write_dataset (file, "images", H5T_NATIVE_UINT8, 3, d3, NULL, FALSE); break;
        case 2: write_dataset (file, "images", H5T_NATIVE_FLOAT, 4, d4, NULL, FALSE); break;
        case 3: write_dataset (file, "images", H5T_NATIVE_UINT8, 4, d4c2, NULL, FALSE); break;
        case 4:
          write_dataset (file, "images", H5T_NATIVE_UINT8, 4, d4, NULL, FALSE);
          write_dataset (file, "labels", H5T_NATIVE_INT32, 1, l3, NULL, FALSE);
          break;
        case 5: write_dataset (file, "images", H5T_NATIVE_UINT8, 4, d4, NULL, FALSE); break;
        }
      H5Fclose (file);
      ls_dataset_spec spec = image_config ("hdf5", path, 0, LS_START_FORK).pool.dataset;
      ls_dataset *ds = NULL;
      ls_error err = { 0 };
      g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);
      g_test_message ("%s", err.message);
      g_assert_nonnull (strstr (err.message, path));
      g_assert_nonnull (strstr (err.message, cases[i].message));
    }

  /* Not HDF5 at all. */
  g_autofree char *fake = make_path ("fake.h5", NULL);
  g_file_set_contents (fake, "hello", -1, NULL);
  ls_dataset_spec spec = image_config ("hdf5", fake, 0, LS_START_FORK).pool.dataset;
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "not an HDF5 file"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_root = g_dir_make_tmp ("ls-datasets-XXXXXX", NULL);
  g_test_add_func ("/loader/datasets/jpeg-dir-loads-the-same-everywhere", test_jpeg_dir_loads_the_same_everywhere);
  g_test_add_func ("/loader/datasets/jpeg-dir-bad-folders", test_jpeg_dir_bad_folders);
  g_test_add_func ("/loader/datasets/bad-files-fail-or-are-skipped", test_bad_files_fail_or_are_skipped);
  g_test_add_func ("/loader/datasets/pixel-limit-refuses-big-images", test_pixel_limit_refuses_big_images);
  g_test_add_func ("/loader/datasets/hdf5-layouts-load-the-same-everywhere", test_hdf5_layouts_load_the_same_everywhere);
  g_test_add_func ("/loader/datasets/hdf5-wrong-layouts-are-named", test_hdf5_wrong_layouts_are_named);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_root);
  g_free (tmp_root);
  return rc;
}
