#include "app/maker/dataset-maker.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef LS_HAVE_JPEG
#include "loader/jpeg.h"
#endif
#ifdef LS_MAKE_HAVE_HDF5
#include <hdf5.h>
#include <zlib.h>
#endif

G_DEFINE_QUARK (loadscope-make-dataset-error, ls_make_error)

/* ---------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------- */

static const char *const format_names[] = { "jpeg-dir", "hdf5", "hdf5-jpeg" };

gboolean
ls_make_format_parse (const char *name, ls_make_format *out)
{
  for (size_t i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (name && strcmp (name, format_names[i]) == 0)
      {
        *out = (ls_make_format) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ls_make_format_name (ls_make_format format)
{
  return (size_t) format < G_N_ELEMENTS (format_names) ? format_names[format] : "?";
}

void
ls_make_options_init (ls_make_options *o)
{
  memset (o, 0, sizeof *o);
  o->format = LS_MAKE_JPEG_DIR;
  o->quality = -1;
}

static gboolean
usage_error (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
usage_error (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, LS_MAKE_ERROR, LS_MAKE_ERROR_USAGE, msg);
  g_free (msg);
  return FALSE;
}

static gboolean
check_options (const ls_make_options *o, GError **error)
{
  gboolean jpeg = o->format != LS_MAKE_HDF5;

  if ((size_t) o->format >= G_N_ELEMENTS (format_names))
    return usage_error (error, "unknown format %d", (int) o->format);
#ifndef LS_HAVE_JPEG
  if (jpeg)
    return usage_error (error, "--format %s: this build has no JPEG support (libjpeg-turbo was not found)",
                        ls_make_format_name (o->format));
#endif
#ifndef LS_MAKE_HAVE_HDF5
  if (o->format != LS_MAKE_JPEG_DIR)
    return usage_error (error, "--format %s: this build has no HDF5 support (libhdf5 was not found)",
                        ls_make_format_name (o->format));
#endif
  if (o->count == 0 || o->count > LS_MAKE_MAX_COUNT)
    return usage_error (error, "--count %" G_GUINT64_FORMAT ": must be between 1 and %u", o->count,
                        LS_MAKE_MAX_COUNT);
  if ((o->width == 0) != (o->height == 0) || o->width < 0 || o->height < 0)
    return usage_error (error, "--size %dx%d: give both sides, each at least 1", o->width, o->height);
  if (o->width && (uint64_t) o->width * (uint64_t) o->height > LS_MAKE_MAX_PIXELS)
    return usage_error (error, "--size %dx%d: at most %.0f MP per image", o->width, o->height,
                        LS_MAKE_MAX_PIXELS / 1e6);
  if (jpeg && (o->width > 65500 || o->height > 65500))
    return usage_error (error, "--size %dx%d: a JPEG side is at most 65500 pixels", o->width, o->height);
  if (o->quality != -1 && !jpeg)
    return usage_error (error, "--quality applies to jpeg-dir and hdf5-jpeg; hdf5 stores raw pixels");
  if (o->quality != -1 && (o->quality < 1 || o->quality > 100))
    return usage_error (error, "--quality %d: must be between 1 and 100", o->quality);
  if (o->threads < 0 || o->threads > 256)
    return usage_error (error, "--threads %d: must be between 0 (one per core) and 256", o->threads);
  return TRUE;
}

/* ---------------------------------------------------------------------------
 * Images made on worker threads, written in index order by the caller
 * ------------------------------------------------------------------------- */

typedef struct {
  uint64_t index;
  uint8_t *data;        /* the encoded JPEG, the compressed chunk, or raw pixels */
  size_t len;
  uint32_t filter_mask; /* hdf5: 1 if the chunk is stored uncompressed */
  char *error;
  gboolean ready;
} job;

typedef struct {
  ls_make_format format;
  uint64_t seed;
  int classes, quality;
  int width, height;    /* 0: each image's own size */
  GMutex lock;
  GCond done;
} maker;

static void
make_one (gpointer data, gpointer user_data)
{
  job *j = data;
  maker *m = user_data;
  int w = m->width, h = m->height;
  uint8_t *pixels;
  size_t n;

  if (!w)
    ls_make_image_size (m->seed, j->index, &w, &h);
  n = (size_t) w * (size_t) h * 3;
  pixels = g_malloc (n);
  ls_make_image (m->seed, j->index, m->classes, w, h, pixels);

  if (m->format == LS_MAKE_HDF5)
    {
#ifdef LS_MAKE_HAVE_HDF5
      /* What HDF5's deflate filter would store: zlib's compress2 output. */
      uLongf zlen = compressBound ((uLong) n);
      uint8_t *z = g_malloc (zlen);
      if (compress2 (z, &zlen, pixels, (uLong) n, 4) == Z_OK && zlen < n)
        {
          g_free (pixels);
          j->data = z;
          j->len = zlen;
        }
      else
        {
          g_free (z);
          j->data = pixels;
          j->len = n;
          j->filter_mask = 1;
        }
#endif
    }
  else
    {
#ifdef LS_HAVE_JPEG
      ls_error err = { 0 };
      uint8_t *out = NULL;
      size_t len = 0;
      if (ls_jpeg_encode (pixels, w, h, 3, m->quality, 0, &out, &len, &err) == LS_OK)
        {
          j->data = out; /* malloc'ed: g_free is free since GLib 2.46 */
          j->len = len;
        }
      else
        {
          j->error = g_strdup_printf ("encoding image %" G_GUINT64_FORMAT " (%dx%d): %s", j->index, w, h,
                                      err.message);
          free (out);
        }
#endif
      g_free (pixels);
    }

  g_mutex_lock (&m->lock);
  j->ready = TRUE;
  g_cond_broadcast (&m->done);
  g_mutex_unlock (&m->lock);
}

/* ---------------------------------------------------------------------------
 * Writers
 * ------------------------------------------------------------------------- */

typedef struct {
  ls_make_format format;
  const char *path;     /* the temporary path being written */
  int classes;
  int name_digits;
  uint64_t count;
  uint64_t bytes;
  int64_t *labels;
#ifdef LS_MAKE_HAVE_HDF5
  hid_t file, data, vtype, space;
#endif
} writer;

static gboolean
failed (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
failed (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, LS_MAKE_ERROR, LS_MAKE_ERROR_FAILED, msg);
  g_free (msg);
  return FALSE;
}

static char *
class_dir (const char *root, int k)
{
  return g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d", root, k);
}

#ifdef LS_MAKE_HAVE_HDF5
/* Object headers without creation times, so two runs give the same bytes. */
static hid_t
untimed (hid_t plist)
{
  H5Pset_obj_track_times (plist, 0);
  return plist;
}

static gboolean
hdf5_open (writer *wr, int width, int height, GError **error)
{
  hid_t fcpl = untimed (H5Pcreate (H5P_FILE_CREATE));
  hid_t dcpl = untimed (H5Pcreate (H5P_DATASET_CREATE));
  gboolean ok = TRUE;

  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  wr->file = H5Fcreate (wr->path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  if (wr->file < 0)
    ok = failed (error, "%s: cannot create the HDF5 file", wr->path);
  else if (wr->format == LS_MAKE_HDF5)
    {
      hsize_t dims[4] = { wr->count, (hsize_t) height, (hsize_t) width, 3 };
      hsize_t chunk[4] = { 1, (hsize_t) height, (hsize_t) width, 3 };
      wr->space = H5Screate_simple (4, dims, NULL);
      H5Pset_chunk (dcpl, 4, chunk);
      H5Pset_deflate (dcpl, 4);
      H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER);
      wr->data = H5Dcreate2 (wr->file, "images", H5T_STD_U8LE, wr->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (wr->data < 0)
        ok = failed (error, "%s: cannot create dataset 'images' of %" G_GUINT64_FORMAT "x%dx%dx3", wr->path,
                     wr->count, height, width);
    }
  else
    {
      hsize_t dims[1] = { wr->count };
      hsize_t chunk[1] = { MIN (wr->count, 1024) };
      hid_t ftype = H5Tvlen_create (H5T_STD_U8LE);
      wr->vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
      wr->space = H5Screate_simple (1, dims, NULL);
      H5Pset_chunk (dcpl, 1, chunk);
      wr->data = H5Dcreate2 (wr->file, "jpeg", ftype, wr->space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      H5Tclose (ftype);
      if (wr->data < 0)
        ok = failed (error, "%s: cannot create dataset 'jpeg' of %" G_GUINT64_FORMAT " rows", wr->path, wr->count);
    }
  H5Pclose (dcpl);
  H5Pclose (fcpl);
  return ok;
}

static gboolean
hdf5_put (writer *wr, const job *j, GError **error)
{
  if (wr->format == LS_MAKE_HDF5)
    {
      hsize_t offset[4] = { j->index, 0, 0, 0 };
      if (H5Dwrite_chunk (wr->data, H5P_DEFAULT, j->filter_mask, offset, j->len, j->data) < 0)
        return failed (error, "%s: writing image %" G_GUINT64_FORMAT " failed", wr->path, j->index);
      return TRUE;
    }
  hsize_t start[1] = { j->index }, one[1] = { 1 };
  hid_t mem = H5Screate_simple (1, one, NULL);
  hvl_t row = { j->len, j->data };
  herr_t rc = H5Sselect_hyperslab (wr->space, H5S_SELECT_SET, start, NULL, one, NULL);
  if (rc >= 0)
    rc = H5Dwrite (wr->data, wr->vtype, mem, wr->space, H5P_DEFAULT, &row);
  H5Sclose (mem);
  if (rc < 0)
    return failed (error, "%s: writing row %" G_GUINT64_FORMAT " of 'jpeg' failed", wr->path, j->index);
  return TRUE;
}

static gboolean
hdf5_close (writer *wr, gboolean finish, GError **error)
{
  gboolean ok = TRUE;

  if (finish)
    {
      hsize_t dims[1] = { wr->count }, chunk[1] = { MIN (wr->count, 65536) };
      hid_t space = H5Screate_simple (1, dims, NULL);
      hid_t dcpl = untimed (H5Pcreate (H5P_DATASET_CREATE));
      H5Pset_chunk (dcpl, 1, chunk);
      H5Pset_deflate (dcpl, 4);
      hid_t d = H5Dcreate2 (wr->file, "labels", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (d < 0 || H5Dwrite (d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, wr->labels) < 0)
        ok = failed (error, "%s: writing dataset 'labels' failed", wr->path);
      if (d >= 0)
        H5Dclose (d);
      H5Pclose (dcpl);
      H5Sclose (space);
    }
  if (wr->vtype >= 0)
    H5Tclose (wr->vtype);
  if (wr->space >= 0)
    H5Sclose (wr->space);
  if (wr->data >= 0 && H5Dclose (wr->data) < 0)
    ok = ok && failed (error, "%s: closing the image dataset failed", wr->path);
  if (wr->file >= 0 && H5Fclose (wr->file) < 0)
    ok = ok && failed (error, "%s: closing the file failed (disk full?)", wr->path);
  wr->vtype = wr->space = wr->data = wr->file = H5I_INVALID_HID;
  return ok;
}
#endif

static gboolean
writer_open (writer *wr, int width, int height, GError **error)
{
#ifdef LS_MAKE_HAVE_HDF5
  wr->file = wr->data = wr->vtype = wr->space = H5I_INVALID_HID;
#endif
  wr->labels = g_new (int64_t, wr->count);
  if (wr->format == LS_MAKE_JPEG_DIR)
    {
      uint64_t last = wr->count - 1;
      wr->name_digits = 5;
      for (uint64_t limit = 100000; last >= limit; limit *= 10)
        wr->name_digits++;
      if (g_mkdir (wr->path, 0777) != 0)
        return failed (error, "%s: cannot create the folder: %s", wr->path, g_strerror (errno));
      for (int k = 0; k < wr->classes; k++)
        {
          g_autofree char *dir = class_dir (wr->path, k);
          if (g_mkdir (dir, 0777) != 0)
            return failed (error, "%s: cannot create the folder: %s", dir, g_strerror (errno));
        }
      return TRUE;
    }
#ifdef LS_MAKE_HAVE_HDF5
  return hdf5_open (wr, width, height, error);
#else
  return failed (error, "no HDF5 support in this build");
#endif
}

static gboolean
writer_put (writer *wr, const job *j, GError **error)
{
  int label = (int) (j->index % (uint64_t) wr->classes);

  wr->labels[j->index] = label;
  wr->bytes += j->len;
  if (wr->format == LS_MAKE_JPEG_DIR)
    {
      g_autofree char *path = g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d" G_DIR_SEPARATOR_S
                                               "img_%0*" G_GUINT64_FORMAT ".jpg",
                                               wr->path, label, wr->name_digits, j->index);
      FILE *fp = g_fopen (path, "wb");
      if (!fp)
        return failed (error, "%s: cannot create: %s", path, g_strerror (errno));
      size_t put = fwrite (j->data, 1, j->len, fp);
      int saved = errno;
      if (fclose (fp) != 0 || put != j->len)
        return failed (error, "%s: writing failed: %s", path, g_strerror (put != j->len ? saved : errno));
      return TRUE;
    }
#ifdef LS_MAKE_HAVE_HDF5
  return hdf5_put (wr, j, error);
#else
  return failed (error, "no HDF5 support in this build");
#endif
}

/* Closes the writer; with finish, completes the dataset (labels). */
static gboolean
writer_close (writer *wr, gboolean finish, GError **error)
{
  gboolean ok = TRUE;
#ifdef LS_MAKE_HAVE_HDF5
  if (wr->format != LS_MAKE_JPEG_DIR)
    ok = hdf5_close (wr, finish, error);
#endif
  g_clear_pointer (&wr->labels, g_free);
  return ok;
}

/* ---------------------------------------------------------------------------
 * Paths: never replace what is not ours
 * ------------------------------------------------------------------------- */

static gboolean
is_dir (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK);
}

static gboolean
dir_is_empty (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  gboolean empty = d && g_dir_read_name (d) == NULL;
  if (d)
    g_dir_close (d);
  return empty;
}

/* Whether a folder holds a generated jpeg-dir dataset and nothing else:
 * only class_* folders of *.jpg files. */
static gboolean
looks_generated (const char *root)
{
  GDir *d = g_dir_open (root, 0, NULL);
  const char *name;
  gboolean ok = d != NULL;

  while (ok && (name = g_dir_read_name (d)))
    {
      g_autofree char *sub = g_build_filename (root, name, NULL);
      GDir *cd;
      const char *file;
      if (!g_str_has_prefix (name, "class_") || !is_dir (sub) || !(cd = g_dir_open (sub, 0, NULL)))
        {
          ok = FALSE;
          break;
        }
      while (ok && (file = g_dir_read_name (cd)))
        {
          g_autofree char *p = g_build_filename (sub, file, NULL);
          ok = g_str_has_suffix (file, ".jpg") && g_file_test (p, G_FILE_TEST_IS_REGULAR)
               && !g_file_test (p, G_FILE_TEST_IS_SYMLINK);
        }
      g_dir_close (cd);
    }
  if (d)
    g_dir_close (d);
  return ok;
}

/* Removes a folder that looks_generated() accepted, or one being written. */
static void
remove_generated (const char *root)
{
  GDir *d = g_dir_open (root, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *sub = g_build_filename (root, name, NULL);
      GDir *cd = g_str_has_prefix (name, "class_") && is_dir (sub) ? g_dir_open (sub, 0, NULL) : NULL;
      const char *file;
      while (cd && (file = g_dir_read_name (cd)))
        if (g_str_has_suffix (file, ".jpg"))
          {
            g_autofree char *p = g_build_filename (sub, file, NULL);
            g_unlink (p);
          }
      if (cd)
        {
          g_dir_close (cd);
          g_rmdir (sub);
        }
    }
  if (d)
    g_dir_close (d);
  g_rmdir (root);
}

static void
remove_partial (ls_make_format format, const char *partial)
{
  if (format == LS_MAKE_JPEG_DIR)
    remove_generated (partial);
  else
    g_unlink (partial);
}

/* Checks OUT, its folder and OUT.partial before any work. */
static gboolean
check_paths (const ls_make_options *o, const char *out, const char *partial, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (out);
  gboolean dir_format = o->format == LS_MAKE_JPEG_DIR;

  if (!g_file_test (parent, G_FILE_TEST_EXISTS))
    return usage_error (error, "%s: the folder %s does not exist (make-dataset does not create it)", out, parent);
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    return usage_error (error, "%s: %s is not a folder", out, parent);

  if (g_file_test (out, G_FILE_TEST_IS_SYMLINK))
    return usage_error (error, "%s is a symbolic link; give the path itself", out);
  if (dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (!is_dir (out))
        return usage_error (error, "%s exists and is not a folder (jpeg-dir writes a folder)", out);
      if (!dir_is_empty (out))
        {
          if (!o->force)
            return usage_error (error, "%s is a folder that is not empty (--force replaces a generated dataset)", out);
          if (!looks_generated (out))
            return usage_error (error,
                                "%s holds files that are not a generated dataset (only class_*/*.jpg); "
                                "not replacing it, even with --force",
                                out);
        }
    }
  else if (!dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (g_file_test (out, G_FILE_TEST_IS_DIR))
        return usage_error (error, "%s is a folder (%s writes one file, such as data.h5)", out,
                            ls_make_format_name (o->format));
      if (!g_file_test (out, G_FILE_TEST_IS_REGULAR))
        return usage_error (error, "%s exists and is not a regular file", out);
      if (!o->force)
        return usage_error (error, "%s exists (--force replaces it)", out);
    }

  /* A leftover of an interrupted generation is ours to remove. */
  if (g_file_test (partial, G_FILE_TEST_EXISTS) || g_file_test (partial, G_FILE_TEST_IS_SYMLINK))
    {
      gboolean ours = dir_format ? is_dir (partial) && looks_generated (partial)
                                 : g_file_test (partial, G_FILE_TEST_IS_REGULAR)
                                     && !g_file_test (partial, G_FILE_TEST_IS_SYMLINK);
      if (!ours)
        return usage_error (error, "%s is in the way (the temporary name of the dataset); remove it", partial);
      remove_partial (o->format, partial);
      if (g_file_test (partial, G_FILE_TEST_EXISTS))
        return usage_error (error, "%s is in the way (the temporary name of the dataset) and cannot be removed",
                            partial);
    }
  return TRUE;
}

/* partial -> out, replacing what check_paths allowed to replace. */
static gboolean
install (ls_make_format format, const char *partial, const char *out, GError **error)
{
  g_autofree char *old = NULL;

  if (format == LS_MAKE_JPEG_DIR && is_dir (out) && !dir_is_empty (out))
    {
      old = g_strdup_printf ("%s.old-%d", out, (int) getpid ());
      if (g_rename (out, old) != 0)
        return failed (error, "%s: cannot move the old dataset aside: %s", out, g_strerror (errno));
    }
  if (g_rename (partial, out) != 0)
    {
      int saved = errno;
      if (old)
        g_rename (old, out);
      return failed (error, "renaming %s to %s failed: %s", partial, out, g_strerror (saved));
    }
  if (old)
    remove_generated (old);
  return TRUE;
}

static uint64_t
file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (uint64_t) st.st_size : 0;
}

/* ---------------------------------------------------------------------------
 * The whole generation
 * ------------------------------------------------------------------------- */

gboolean
ls_make_dataset (const ls_make_options *o, const char *out_arg, ls_make_result *result, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autofree char *out = NULL;
  g_autofree char *partial = NULL;
  maker m = { 0 };
  writer wr = { 0 };
  job *jobs = NULL;
  GThreadPool *pool = NULL;
  int threads, window;
  uint64_t submitted = 0, done = 0;
  gboolean ok = TRUE;

  memset (result, 0, sizeof *result);
  if (!check_options (o, error))
    return FALSE;
  if (!out_arg || !*out_arg)
    return usage_error (error, "no output path given");

  /* "/tmp/d/" is "/tmp/d": the temporary name goes beside it, not inside. */
  out = g_strdup (out_arg);
  for (size_t len = strlen (out); len > 1 && G_IS_DIR_SEPARATOR (out[len - 1]); len--)
    out[len - 1] = '\0';
  partial = g_strconcat (out, ".partial", NULL);
  if (!check_paths (o, out, partial, error))
    return FALSE;

  m.format = o->format;
  m.seed = o->seed;
  m.classes = ls_make_classes (o->count);
  m.quality = o->quality == -1 ? LS_MAKE_DEFAULT_QUALITY : o->quality;
  m.width = o->width;
  m.height = o->height;
  if (o->format == LS_MAKE_HDF5 && !m.width)
    m.width = m.height = LS_MAKE_DEFAULT_HDF5_SIDE;
  g_mutex_init (&m.lock);
  g_cond_init (&m.done);

  wr.format = o->format;
  wr.path = partial;
  wr.classes = m.classes;
  wr.count = o->count;
  threads = o->threads > 0 ? o->threads : (int) MIN (g_get_num_processors (), 64u);
  {
    /* A thread holds about 40 bytes a pixel while it works: stay near 2 GB. */
    double pixels = m.width ? (double) m.width * m.height : 640 * 1.08 * 480 * 1.08;
    int fit = (int) MAX (1.0, 2e9 / (pixels * 40.0));
    threads = MIN (threads, fit);
  }
  if (!writer_open (&wr, m.width, m.height, error)
      || !(pool = g_thread_pool_new (make_one, &m, threads, TRUE, error)))
    {
      writer_close (&wr, FALSE, NULL);
      remove_partial (o->format, partial);
      ok = FALSE;
      goto out;
    }
  window = threads * 2 + 2;
  jobs = g_new0 (job, window);

  while (ok && done < o->count)
    {
      while (submitted < o->count && submitted - done < (uint64_t) window)
        {
          job *j = &jobs[submitted % (uint64_t) window];
          memset (j, 0, sizeof *j);
          j->index = submitted++;
          g_thread_pool_push (pool, j, NULL);
        }
      job *j = &jobs[done % (uint64_t) window];
      g_mutex_lock (&m.lock);
      while (!j->ready)
        g_cond_wait (&m.done, &m.lock);
      g_mutex_unlock (&m.lock);

      if (j->error)
        ok = failed (error, "%s", j->error);
      else
        ok = writer_put (&wr, j, error);
      g_clear_pointer (&j->data, g_free);
      g_clear_pointer (&j->error, g_free);
      done++;
      if (ok && o->progress)
        o->progress (done, o->count, wr.bytes, o->progress_data);
      if (ok && o->interrupt && *o->interrupt)
        {
          g_set_error (error, LS_MAKE_ERROR, LS_MAKE_ERROR_INTERRUPTED,
                       "interrupted after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " images; %s removed", done,
                       o->count, partial);
          ok = FALSE;
        }
    }

  /* Queued images are dropped; running ones finish before the pool goes. */
  g_thread_pool_free (pool, TRUE, TRUE);
  for (int i = 0; i < window; i++)
    {
      g_free (jobs[i].data);
      g_free (jobs[i].error);
    }
  g_free (jobs);

  if (!writer_close (&wr, ok, ok ? error : NULL))
    ok = FALSE;
  if (ok)
    ok = install (o->format, partial, out, error);
  if (!ok)
    {
      remove_partial (o->format, partial);
      goto out;
    }

  result->images = o->count;
  result->classes = m.classes;
  result->bytes = o->format == LS_MAKE_JPEG_DIR ? wr.bytes : file_size (out);
  result->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;

out:
  g_mutex_clear (&m.lock);
  g_cond_clear (&m.done);
  return ok;
}
