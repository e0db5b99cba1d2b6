/* The sample-dataset generator: the jpeg-dir layout, valid JPEGs of the
 * sizes it promises, photograph-like file sizes, byte-identical output for
 * the same options (whatever the thread count), the HDF5 layouts the loader
 * reads, refusing to replace what is not a generated dataset, leaving
 * nothing behind when stopped, and the command's exit codes. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "app/maker/dataset-maker.h"
#include "loader/dataset.h"
#include "loader/jpeg.h"
#include "test-cli-util.h"
#include "test-util.h"

#define LIMIT_64MP ((uint64_t) 64 * 1000 * 1000)

/* ---- helpers ---- */

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ls-make-dataset-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorted names in a folder. */
static GPtrArray *
list_dir (const char *path)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  return names;
}

static gboolean
make (ls_make_format format, uint64_t count, int width, int height, uint64_t seed, int threads, const char *out,
      ls_make_result *result, GError **error)
{
  ls_make_options o;
  ls_make_result scratch;

  ls_make_options_init (&o);
  o.format = format;
  o.count = count;
  o.width = width;
  o.height = height;
  o.seed = seed;
  o.threads = threads;
  return ls_make_dataset (&o, out, result ? result : &scratch, error);
}

static void
make_ok (ls_make_format format, uint64_t count, int width, int height, uint64_t seed, int threads, const char *out,
         ls_make_result *result)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = make (format, count, width, height, seed, threads, out, result, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static GBytes *
read_bytes (const char *path)
{
  char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}

static char *
jpeg_path (const char *root, uint64_t index, int classes)
{
  g_autofree char *cls = g_strdup_printf ("class_%d", (int) (index % (uint64_t) classes));
  g_autofree char *file = g_strdup_printf ("img_%05" G_GUINT64_FORMAT ".jpg", index);
  return g_build_filename (root, cls, file, NULL);
}

/* Spread of luma in a decoded image: a flat colour has none. */
static double
luma_stddev (const uint8_t *data, size_t len, int width, int height)
{
  ls_jpeg_decoder *d = ls_jpeg_decoder_new ();
  const uint8_t *px = NULL;
  size_t stride = 0;
  ls_error err = { 0 };
  double sum = 0, sum2 = 0, n = (double) width * height;

  g_assert_cmpint (ls_jpeg_decode_region (d, data, len, LIMIT_64MP, 0, 0, width, height, &px, &stride, &err), ==,
                   LS_OK);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const uint8_t *p = px + (size_t) y * stride + (size_t) x * 3;
        double l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        sum += l;
        sum2 += l * l;
      }
  ls_jpeg_decoder_free (d);
  return sqrt (sum2 / n - (sum / n) * (sum / n));
}

/* ---- jpeg-dir ---- */

static void
test_jpeg_dir_layout_and_files (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  g_autofree char *partial = g_strconcat (out, ".partial", NULL);
  ls_make_result result;
  ls_jpeg_decoder *dec = ls_jpeg_decoder_new ();
  uint64_t total = 0;

  make_ok (LS_MAKE_JPEG_DIR, 30, 0, 0, 7, 0, out, &result);
  g_assert_cmpuint (result.images, ==, 30);
  g_assert_cmpint (result.classes, ==, 10);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));

  g_autoptr (GPtrArray) classes = list_dir (out);
  g_assert_cmpuint (classes->len, ==, 10);
  for (int k = 0; k < 10; k++)
    {
      g_autofree char *expected = g_strdup_printf ("class_%d", k);
      g_assert_cmpstr (classes->pdata[k], ==, expected);
      g_autofree char *dir = g_build_filename (out, expected, NULL);
      g_autoptr (GPtrArray) files = list_dir (dir);
      g_assert_cmpuint (files->len, ==, 3);
      for (guint i = 0; i < files->len; i++)
        {
          /* class k holds images k, k + 10, k + 20, in that order */
          uint64_t index = (uint64_t) k + 10u * i;
          g_autofree char *name = g_strdup_printf ("img_%05" G_GUINT64_FORMAT ".jpg", index);
          g_assert_cmpstr (files->pdata[i], ==, name);

          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autoptr (GBytes) bytes = read_bytes (path);
          gsize len;
          const uint8_t *data = g_bytes_get_data (bytes, &len);
          int w = 0, h = 0, ew, eh;
          ls_error err = { 0 };
          g_assert_cmpint (ls_jpeg_read_header (dec, data, len, LIMIT_64MP, &w, &h, &err), ==, LS_OK);
          ls_make_image_size (7, index, &ew, &eh);
          g_assert_cmpint (w, ==, ew);
          g_assert_cmpint (h, ==, eh);
          /* about 500x375, each side within the promised spread */
          g_assert_cmpint (MAX (w, h), >=, 333 * 92 / 100);
          g_assert_cmpint (MAX (w, h), <=, 640 * 108 / 100 + 1);
          total += len;
          if (i == 0)
            g_assert_cmpfloat (luma_stddev (data, len, w, h), >, 15.0);
        }
    }
  g_assert_cmpuint (total, ==, result.bytes);
  ls_jpeg_decoder_free (dec);

  /* The loader reads it as a jpeg-dir dataset with labels = class. */
  {
    ls_dataset_spec spec = { 0 };
    ls_dataset *ds = NULL;
    ls_error err = { 0 };
    g_strlcpy (spec.kind, "jpeg-dir", sizeof spec.kind);
    g_strlcpy (spec.path, out, sizeof spec.path);
    spec.width = spec.height = 32;
    spec.output = LS_OUTPUT_U8_HWC;
    g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
    g_assert_cmpuint (ls_dataset_length (ds), ==, 30);
    g_autofree uint8_t *sample = g_malloc (ls_dataset_sample_bytes (ds));
    for (uint64_t i = 0; i < 30; i += 7)
      {
        int32_t label = -1;
        g_assert_cmpint (ls_dataset_read (ds, i, 0, sample, &label, &err), ==, LS_OK);
        g_assert_cmpint (label, ==, (int32_t) (i / 3)); /* sorted: 3 files per class */
      }
    ls_dataset_close (ds);
  }
  ls_test_remove_tree (tmp);
}

static void
test_jpeg_dir_is_deterministic (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *a = g_build_filename (tmp, "a", NULL);
  g_autofree char *b = g_build_filename (tmp, "b", NULL);
  g_autofree char *c = g_build_filename (tmp, "c", NULL);

  make_ok (LS_MAKE_JPEG_DIR, 30, 0, 0, 1, 1, a, NULL);
  make_ok (LS_MAKE_JPEG_DIR, 30, 0, 0, 1, 3, b, NULL);
  make_ok (LS_MAKE_JPEG_DIR, 30, 0, 0, 2, 0, c, NULL);
  for (uint64_t i = 0; i < 30; i++)
    {
      g_autofree char *pa = jpeg_path (a, i, 10);
      g_autofree char *pb = jpeg_path (b, i, 10);
      g_autofree char *pc = jpeg_path (c, i, 10);
      g_autoptr (GBytes) ba = read_bytes (pa);
      g_autoptr (GBytes) bb = read_bytes (pb);
      g_autoptr (GBytes) bc = read_bytes (pc);
      g_assert_true (g_bytes_equal (ba, bb)); /* 1 thread or 3: the same bytes */
      g_assert_false (g_bytes_equal (ba, bc)); /* another seed: other content */
    }
  ls_test_remove_tree (tmp);
}

static void
test_jpeg_size_like_imagenet (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  ls_make_result result;

  make_ok (LS_MAKE_JPEG_DIR, 20, 500, 375, 0, 0, out, &result);
  double mean_kb = (double) result.bytes / 20 / 1000.0;
  g_test_message ("mean file size of 500x375 q90: %.1f KB", mean_kb);
  g_assert_cmpfloat (mean_kb, >=, 70.0);
  g_assert_cmpfloat (mean_kb, <=, 140.0);
  for (uint64_t i = 0; i < 20; i++)
    {
      g_autofree char *p = jpeg_path (out, i, 10);
      g_autoptr (GBytes) bytes = read_bytes (p);
      ls_jpeg_decoder *dec = ls_jpeg_decoder_new ();
      int w, h;
      ls_error err = { 0 };
      g_assert_cmpint (ls_jpeg_read_header (dec, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), LIMIT_64MP,
                                            &w, &h, &err), ==, LS_OK);
      g_assert_cmpint (w, ==, 500);
      g_assert_cmpint (h, ==, 375);
      ls_jpeg_decoder_free (dec);
    }
  ls_test_remove_tree (tmp);
}

static void
test_few_images_few_classes (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  ls_make_result result;

  make_ok (LS_MAKE_JPEG_DIR, 3, 64, 48, 0, 0, out, &result);
  g_assert_cmpint (result.classes, ==, 3);
  g_autoptr (GPtrArray) classes = list_dir (out);
  g_assert_cmpuint (classes->len, ==, 3);
  g_assert_cmpstr (classes->pdata[2], ==, "class_2");
  ls_test_remove_tree (tmp);

  /* Tiny images have content too, without reading past their edges. */
  static const int sizes[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 7, 3 }, { 9, 16 }, { 33, 5 } };
  for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      size_t n = (size_t) sizes[i][0] * (size_t) sizes[i][1] * 3;
      g_autofree uint8_t *a = g_malloc (n);
      g_autofree uint8_t *b = g_malloc (n);
      ls_make_image (1, i, 10, sizes[i][0], sizes[i][1], a);
      ls_make_image (1, i, 10, sizes[i][0], sizes[i][1], b);
      g_assert_cmpmem (a, n, b, n);
    }
}

/* ---- hdf5 ---- */

static hid_t
open_dataset (hid_t file, const char *name, int rank, hsize_t *dims)
{
  hid_t d = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t space = H5Dget_space (d);
  g_assert_cmpint (H5Sget_simple_extent_ndims (space), ==, rank);
  H5Sget_simple_extent_dims (space, dims, NULL);
  H5Sclose (space);
  return d;
}

static void
check_labels (hid_t file, uint64_t count, int classes)
{
  hsize_t dims[1];
  hid_t d = open_dataset (file, "labels", 1, dims);
  hid_t type = H5Dget_type (d);
  hid_t dcpl = H5Dget_create_plist (d);
  g_autofree int64_t *labels = g_new (int64_t, count);

  g_assert_cmpuint (dims[0], ==, count);
  g_assert_cmpint (H5Tget_class (type), ==, H5T_INTEGER);
  g_assert_cmpuint (H5Tget_size (type), ==, 8);
  g_assert_cmpint (H5Tget_sign (type), ==, H5T_SGN_2);
  g_assert_cmpint (H5Pget_layout (dcpl), ==, H5D_CHUNKED);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels), >=, 0);
  for (uint64_t i = 0; i < count; i++)
    g_assert_cmpint (labels[i], ==, (int64_t) (i % (uint64_t) classes));
  H5Pclose (dcpl);
  H5Tclose (type);
  H5Dclose (d);
}

static void
read_with_loader (const char *path, uint64_t count)
{
  ls_dataset_spec spec = { 0 };
  ls_dataset *ds = NULL;
  ls_error err = { 0 };

  g_strlcpy (spec.kind, "hdf5", sizeof spec.kind);
  g_strlcpy (spec.path, path, sizeof spec.path);
  spec.width = spec.height = 32;
  spec.output = LS_OUTPUT_F32_CHW;
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
  g_assert_cmpuint (ls_dataset_length (ds), ==, count);
  g_autofree uint8_t *sample = g_malloc (ls_dataset_sample_bytes (ds));
  for (uint64_t i = 0; i < count; i += 5)
    {
      int32_t label = -1;
      g_assert_cmpint (ls_dataset_read (ds, i, 0, sample, &label, &err), ==, LS_OK);
      g_assert_cmpint (label, ==, (int32_t) (i % 10));
    }
  ls_dataset_close (ds);
}

static void
test_hdf5_raw (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "data.h5", NULL);
  g_autofree char *again = g_build_filename (tmp, "again.h5", NULL);
  ls_make_result result;
  hsize_t dims[4], chunk[4];

  make_ok (LS_MAKE_HDF5, 12, 0, 0, 3, 0, out, &result);
  g_assert_cmpint (result.classes, ==, 10);

  hid_t file = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  hid_t d = open_dataset (file, "images", 4, dims);
  g_assert_cmpuint (dims[0], ==, 12);
  g_assert_cmpuint (dims[1], ==, 256); /* the default size of this format */
  g_assert_cmpuint (dims[2], ==, 256);
  g_assert_cmpuint (dims[3], ==, 3);
  hid_t type = H5Dget_type (d);
  g_assert_cmpint (H5Tget_class (type), ==, H5T_INTEGER);
  g_assert_cmpuint (H5Tget_size (type), ==, 1);
  g_assert_cmpint (H5Tget_sign (type), ==, H5T_SGN_NONE);
  H5Tclose (type);

  hid_t dcpl = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_layout (dcpl), ==, H5D_CHUNKED);
  g_assert_cmpint (H5Pget_chunk (dcpl, 4, chunk), ==, 4);
  g_assert_cmpuint (chunk[0], ==, 1);
  g_assert_cmpuint (chunk[1], ==, 256);
  g_assert_cmpuint (chunk[2], ==, 256);
  g_assert_cmpuint (chunk[3], ==, 3);
  gboolean gzip = FALSE;
  for (int i = 0; i < H5Pget_nfilters (dcpl); i++)
    {
      unsigned flags, values[4] = { 0 };
      size_t nvalues = G_N_ELEMENTS (values);
      char name[64];
      if (H5Pget_filter2 (dcpl, (unsigned) i, &flags, &nvalues, values, sizeof name, name, NULL) == H5Z_FILTER_DEFLATE)
        {
          gzip = TRUE;
          g_assert_cmpuint (nvalues, >=, 1);
          g_assert_cmpuint (values[0], ==, 4);
        }
    }
  g_assert_true (gzip);
  H5Pclose (dcpl);

  /* The stored pixels are the synthesized ones (through the compressed chunk). */
  {
    hsize_t start[4] = { 5, 0, 0, 0 }, count[4] = { 1, 256, 256, 3 };
    size_t n = 256 * 256 * 3;
    g_autofree uint8_t *stored = g_malloc (n);
    g_autofree uint8_t *expected = g_malloc (n);
    hid_t fspace = H5Dget_space (d), mspace = H5Screate_simple (4, count, NULL);
    H5Sselect_hyperslab (fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    g_assert_cmpint (H5Dread (d, H5T_NATIVE_UINT8, mspace, fspace, H5P_DEFAULT, stored), >=, 0);
    ls_make_image (3, 5, 10, 256, 256, expected);
    g_assert_cmpmem (stored, n, expected, n);
    H5Sclose (mspace);
    H5Sclose (fspace);
  }
  H5Dclose (d);
  check_labels (file, 12, 10);
  H5Fclose (file);
  read_with_loader (out, 12);

  /* The same options give the same file, byte for byte. */
  make_ok (LS_MAKE_HDF5, 12, 0, 0, 3, 1, again, NULL);
  g_autoptr (GBytes) a = read_bytes (out);
  g_autoptr (GBytes) b = read_bytes (again);
  g_assert_true (g_bytes_equal (a, b));
  ls_test_remove_tree (tmp);
}

static void
test_hdf5_jpeg (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "data.h5", NULL);
  g_autofree char *again = g_build_filename (tmp, "again.h5", NULL);
  ls_make_result result;
  hsize_t dims[1];
  ls_jpeg_decoder *dec = ls_jpeg_decoder_new ();

  make_ok (LS_MAKE_HDF5_JPEG, 15, 0, 0, 4, 0, out, &result);

  hid_t file = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  g_assert_false (H5Lexists (file, "images", H5P_DEFAULT) > 0);
  hid_t d = open_dataset (file, "jpeg", 1, dims);
  g_assert_cmpuint (dims[0], ==, 15);
  hid_t type = H5Dget_type (d);
  g_assert_cmpint (H5Tget_class (type), ==, H5T_VLEN);
  hid_t base = H5Tget_super (type);
  g_assert_cmpint (H5Tget_class (base), ==, H5T_INTEGER);
  g_assert_cmpuint (H5Tget_size (base), ==, 1);
  H5Tclose (base);
  H5Tclose (type);
  hid_t dcpl = H5Dget_create_plist (d);
  g_assert_cmpint (H5Pget_layout (dcpl), ==, H5D_CHUNKED);
  H5Pclose (dcpl);

  hid_t vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
  hvl_t rows[15];
  g_assert_cmpint (H5Dread (d, vtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), >=, 0);
  gboolean sizes_vary = FALSE;
  for (int i = 0; i < 15; i++)
    {
      int w, h, ew, eh;
      ls_error err = { 0 };
      g_assert_cmpint (ls_jpeg_read_header (dec, rows[i].p, rows[i].len, LIMIT_64MP, &w, &h, &err), ==, LS_OK);
      ls_make_image_size (4, (uint64_t) i, &ew, &eh);
      g_assert_cmpint (w, ==, ew);
      g_assert_cmpint (h, ==, eh);
      sizes_vary = sizes_vary || w != 500 || h != 375;
    }
  g_assert_true (sizes_vary);
  hid_t space = H5Dget_space (d);
  H5Dvlen_reclaim (vtype, space, H5P_DEFAULT, rows);
  H5Sclose (space);
  H5Tclose (vtype);
  H5Dclose (d);
  check_labels (file, 15, 10);
  H5Fclose (file);
  ls_jpeg_decoder_free (dec);
  read_with_loader (out, 15);

  make_ok (LS_MAKE_HDF5_JPEG, 15, 0, 0, 4, 2, again, NULL);
  g_autoptr (GBytes) a = read_bytes (out);
  g_autoptr (GBytes) b = read_bytes (again);
  g_assert_true (g_bytes_equal (a, b));
  ls_test_remove_tree (tmp);
}

/* ---- what is in the way ---- */

static void
expect_usage_error (ls_make_format format, const char *out, gboolean force, const char *needle)
{
  g_autoptr (GError) error = NULL;
  ls_make_options o;
  ls_make_result result;

  ls_make_options_init (&o);
  o.format = format;
  o.count = 4;
  o.width = 32;
  o.height = 32;
  o.force = force;
  g_assert_false (ls_make_dataset (&o, out, &result, &error));
  g_assert_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_USAGE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
}

static void
test_refuses_to_overwrite (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *dir = g_build_filename (tmp, "d", NULL);
  g_autofree char *file = g_build_filename (tmp, "data.h5", NULL);
  g_autofree char *mine = g_build_filename (tmp, "mine", NULL);
  g_autofree char *precious = g_build_filename (mine, "notes.txt", NULL);
  g_autofree char *missing = g_build_filename (tmp, "no-such-folder", "d", NULL);
  g_autofree char *missing_parent = g_build_filename (tmp, "no-such-folder", NULL);
  g_autofree char *empty = g_build_filename (tmp, "empty", NULL);
  g_autofree char *img = g_build_filename (dir, "class_0", "img_00000.jpg", NULL);
  g_autoptr (GError) error = NULL;

  /* A non-empty folder: refused, untouched; replaced with --force. */
  make_ok (LS_MAKE_JPEG_DIR, 4, 32, 32, 0, 0, dir, NULL);
  g_autoptr (GBytes) before = read_bytes (img);
  expect_usage_error (LS_MAKE_JPEG_DIR, dir, FALSE, dir);
  g_autoptr (GBytes) unchanged = read_bytes (img);
  g_assert_true (g_bytes_equal (before, unchanged));
  {
    ls_make_options o;
    ls_make_result result;
    ls_make_options_init (&o);
    o.count = 2;
    o.width = 40;
    o.height = 30;
    o.seed = 9;
    o.force = TRUE;
    g_assert_true (ls_make_dataset (&o, dir, &result, &error));
    g_assert_no_error (error);
    g_autoptr (GPtrArray) classes = list_dir (dir);
    g_assert_cmpuint (classes->len, ==, 2);
    g_autoptr (GPtrArray) left = list_dir (tmp);
    for (guint i = 0; i < left->len; i++) /* no d.partial, no d.old-* */
      g_assert_false (g_str_has_prefix (left->pdata[i], "d."));
  }

  /* A folder of other things: not even --force replaces it. */
  g_assert_cmpint (g_mkdir (mine, 0700), ==, 0);
  g_assert_true (g_file_set_contents (precious, "keep me", -1, NULL));
  expect_usage_error (LS_MAKE_JPEG_DIR, mine, TRUE, "not a generated dataset");
  g_assert_true (g_file_test (precious, G_FILE_TEST_IS_REGULAR));

  /* An empty folder is fine to fill. */
  g_assert_cmpint (g_mkdir (empty, 0700), ==, 0);
  make_ok (LS_MAKE_JPEG_DIR, 2, 16, 16, 0, 0, empty, NULL);

  /* An existing file: refused without --force, replaced with it. */
  g_assert_true (g_file_set_contents (file, "not hdf5", -1, NULL));
  expect_usage_error (LS_MAKE_HDF5, file, FALSE, file);
  expect_usage_error (LS_MAKE_HDF5_JPEG, file, FALSE, "--force");
  {
    g_autoptr (GBytes) old = read_bytes (file);
    g_assert_cmpuint (g_bytes_get_size (old), ==, 8);
  }
  ls_make_options o;
  ls_make_result result;
  ls_make_options_init (&o);
  o.format = LS_MAKE_HDF5;
  o.count = 2;
  o.width = o.height = 16;
  o.force = TRUE;
  g_assert_true (ls_make_dataset (&o, file, &result, &error));
  g_assert_no_error (error);
  g_assert_cmpint (H5Fis_hdf5 (file), >, 0);

  /* Kinds that do not fit, and a missing parent folder (named). */
  expect_usage_error (LS_MAKE_HDF5, dir, TRUE, "is a folder");
  expect_usage_error (LS_MAKE_JPEG_DIR, file, TRUE, "not a folder");
  expect_usage_error (LS_MAKE_JPEG_DIR, missing, FALSE, missing_parent);
  expect_usage_error (LS_MAKE_HDF5, missing, FALSE, missing_parent);
  g_assert_false (g_file_test (missing_parent, G_FILE_TEST_EXISTS));
  ls_test_remove_tree (tmp);
}

typedef struct {
  volatile sig_atomic_t stop;
  uint64_t calls, last_done, last_bytes;
  uint64_t stop_at;
} progress_state;

static void
on_progress (uint64_t done, uint64_t total, uint64_t bytes, void *user_data)
{
  progress_state *p = user_data;
  g_assert_cmpuint (done, ==, p->last_done + 1);
  g_assert_cmpuint (bytes, >, p->last_bytes);
  g_assert_cmpuint (done, <=, total);
  p->calls++;
  p->last_done = done;
  p->last_bytes = bytes;
  if (p->stop_at && done == p->stop_at)
    p->stop = 1;
}

static void
test_progress_and_interrupt (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  g_autofree char *partial = g_strconcat (out, ".partial", NULL);
  g_autofree char *h5 = g_build_filename (tmp, "d.h5", NULL);
  g_autofree char *h5_partial = g_strconcat (h5, ".partial", NULL);
  progress_state p = { 0 };
  ls_make_options o;
  ls_make_result result;

  ls_make_options_init (&o);
  o.count = 12;
  o.width = 48;
  o.height = 32;
  o.progress = on_progress;
  o.progress_data = &p;
  o.interrupt = &p.stop;
  g_assert_true (ls_make_dataset (&o, out, &result, NULL));
  g_assert_cmpuint (p.calls, ==, 12);
  g_assert_cmpuint (p.last_bytes, ==, result.bytes);
  ls_test_remove_tree (out);

  /* Stopped half way: an error, and nothing left at OUT or OUT.partial. */
  for (int f = 0; f < 3; f++)
    {
      g_autoptr (GError) error = NULL;
      const char *target = f == LS_MAKE_JPEG_DIR ? out : h5;
      memset (&p, 0, sizeof p);
      p.stop_at = 5;
      o.format = (ls_make_format) f;
      g_assert_false (ls_make_dataset (&o, target, &result, &error));
      g_assert_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_INTERRUPTED);
      g_assert_cmpuint (p.calls, ==, 5);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (h5, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (h5_partial, G_FILE_TEST_EXISTS));
    }

  /* A leftover OUT.partial of an interrupted run is replaced. */
  g_assert_cmpint (g_mkdir (partial, 0700), ==, 0);
  o.format = LS_MAKE_JPEG_DIR;
  o.progress = NULL;
  o.interrupt = NULL;
  g_assert_true (ls_make_dataset (&o, out, &result, NULL));
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  ls_test_remove_tree (tmp);
}

static void
test_bad_options (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  struct {
    ls_make_format format;
    uint64_t count;
    int w, h, quality, threads;
    const char *needle;
  } cases[] = {
    { LS_MAKE_JPEG_DIR, 0, 0, 0, -1, 0, "--count 0" },
    { LS_MAKE_JPEG_DIR, LS_MAKE_MAX_COUNT + 1ull, 0, 0, -1, 0, "--count" },
    { LS_MAKE_JPEG_DIR, 5, 10000, 10000, -1, 0, "--size 10000x10000" },
    { LS_MAKE_JPEG_DIR, 5, 32, 0, -1, 0, "--size" },
    { LS_MAKE_JPEG_DIR, 5, 0, 0, 101, 0, "--quality 101" },
    { LS_MAKE_HDF5, 5, 0, 0, 90, 0, "--quality applies" },
    { LS_MAKE_JPEG_DIR, 5, 0, 0, -1, -1, "--threads -1" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      ls_make_options o;
      ls_make_result result;
      ls_make_options_init (&o);
      o.format = cases[i].format;
      o.count = cases[i].count;
      o.width = cases[i].w;
      o.height = cases[i].h;
      o.quality = cases[i].quality;
      o.threads = cases[i].threads;
      g_assert_false (ls_make_dataset (&o, out, &result, &error));
      g_assert_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_USAGE);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
  ls_test_remove_tree (tmp);
}

/* ---- the command ---- */

static void
test_cli (void)
{
  g_autofree char *tmp = make_tmp_dir ();
  g_autofree char *out = g_build_filename (tmp, "d", NULL);
  g_autofree char *h5 = g_build_filename (tmp, "d.h5", NULL);
  g_autofree char *missing = g_build_filename (tmp, "nope", "d", NULL);
  g_autofree char *missing_parent = g_build_filename (tmp, "nope", NULL);
  struct {
    const char *args[12];
    const char *needle;
  } bad[] = {
    { { "make-dataset", "--format", "jpeg-dir", "--count", "0", out, NULL }, "--count 0" },
    { { "make-dataset", "--format", "png", "--count", "5", out, NULL }, "--format png" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", NULL }, "OUT is missing" },
    { { "make-dataset", "--count", "5", out, NULL }, "--format is missing" },
    { { "make-dataset", "--format", "hdf5", out, NULL }, "--count is missing" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "five", out, NULL }, "--count" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", "--size", "500", out, NULL }, "--size 500" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", "--quality", "0", out, NULL }, "--quality 0" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", "--seed", "-3", out, NULL }, "--seed -3" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", out, "extra", NULL }, "unexpected argument 'extra'" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", "--bogus", out, NULL }, "--bogus" },
    { { "make-dataset", "--format", "jpeg-dir", "--count", "5", missing, NULL }, missing_parent },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ls_test_cli r = ls_test_loadscopev (bad[i].args);
      g_test_message ("case %zu: %s", i, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_true (g_str_has_prefix (r.err, "loadscope make-dataset: "));
      g_assert_nonnull (strstr (r.err, bad[i].needle));
      g_assert_cmpstr (r.out, ==, "");
      ls_test_cli_clear (&r);
    }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  /* A good run: one summary line on stdout, no progress (stderr is no TTY). */
  const char *good[] = { "make-dataset", "--format", "jpeg-dir", "--count", "12", "--size", "64x48", "--seed", "5",
                         out, NULL };
  ls_test_cli r = ls_test_loadscopev (good);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_true (g_str_has_prefix (r.out, "wrote 12 images, "));
  g_assert_nonnull (strstr (r.out, " MB, 10 classes to "));
  g_assert_nonnull (strstr (r.out, out));
  g_assert_true (g_str_has_suffix (r.out, " s\n"));
  ls_test_cli_clear (&r);

  /* Again: refused, naming the path; --force replaces it. */
  r = ls_test_loadscopev (good);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, out));
  ls_test_cli_clear (&r);
  const char *forced[] = { "make-dataset", "--format", "jpeg-dir", "--count", "12", "--size", "64x48", "--force",
                           out, NULL };
  r = ls_test_loadscopev (forced);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);

  const char *hdf5[] = { "make-dataset", "--format", "hdf5", "--count", "3", "--size", "32x24", h5, NULL };
  r = ls_test_loadscopev (hdf5);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "wrote 3 images, "));
  g_assert_nonnull (strstr (r.out, "3 classes"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscopev (hdf5);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, h5));
  ls_test_cli_clear (&r);

  const char *help[] = { "make-dataset", "--help", NULL };
  r = ls_test_loadscopev (help);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "hdf5-jpeg"));
  ls_test_cli_clear (&r);
  ls_test_remove_tree (tmp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/app/make-dataset/jpeg-dir-layout-and-files", test_jpeg_dir_layout_and_files);
  g_test_add_func ("/app/make-dataset/jpeg-dir-is-deterministic", test_jpeg_dir_is_deterministic);
  g_test_add_func ("/app/make-dataset/jpeg-size-like-imagenet", test_jpeg_size_like_imagenet);
  g_test_add_func ("/app/make-dataset/few-images-few-classes", test_few_images_few_classes);
  g_test_add_func ("/app/make-dataset/hdf5-raw", test_hdf5_raw);
  g_test_add_func ("/app/make-dataset/hdf5-jpeg", test_hdf5_jpeg);
  g_test_add_func ("/app/make-dataset/refuses-to-overwrite", test_refuses_to_overwrite);
  g_test_add_func ("/app/make-dataset/progress-and-interrupt", test_progress_and_interrupt);
  g_test_add_func ("/app/make-dataset/bad-options", test_bad_options);
  g_test_add_func ("/app/make-dataset/cli", test_cli);
  return ls_test_run_checked_shm_only ();
}
