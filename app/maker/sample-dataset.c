#include "app/maker/sample-dataset.h"

#include <errno.h>
#include <glib/gstdio.h>

/* $LS_TEST_SAMPLE_IMAGES, a test switch, makes a smaller one (the GUI
 * tests; docs/testing.md lists the switches). */
static guint64
sample_images (void)
{
  const char *env = g_getenv ("LS_TEST_SAMPLE_IMAGES");
  guint64 n = env ? g_ascii_strtoull (env, NULL, 10) : 0;
  return n > 0 && n <= 100000 ? n : LS_SAMPLE_IMAGES;
}

char *
ls_sample_dataset_path (void)
{
  g_autofree char *name = g_strdup_printf ("sample-jpeg-dir-%" G_GUINT64_FORMAT, sample_images ());
  return g_build_filename (g_get_user_cache_dir (), "loadscope", name, NULL);
}

char *
ls_sample_dataset_ensure (ls_make_progress_fn progress, void *progress_data, const volatile sig_atomic_t *interrupt,
                          GError **error)
{
  char *path = ls_sample_dataset_path ();
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return path;
  g_autofree char *parent = g_path_get_dirname (path);
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", parent, g_strerror (e));
      g_free (path);
      return NULL;
    }
  ls_make_options o;
  ls_make_result r;
  ls_make_options_init (&o);
  o.format = LS_MAKE_JPEG_DIR;
  o.count = sample_images ();
  o.progress = progress;
  o.progress_data = progress_data;
  o.interrupt = interrupt;
  if (!ls_make_dataset (&o, path, &r, error))
    {
      g_free (path);
      return NULL;
    }
  return path;
}
