/* Paths: never replace what is not ours. The dataset is written at
 * OUT.partial and renamed to OUT when complete; an existing OUT is replaced
 * only with --force and only when it is a file (hdf5 formats) or a folder
 * that holds a generated dataset and nothing else (jpeg-dir). */
#include "app/maker/maker-private.h"
#include "platform/process.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

void
ls_maker_paths (const char *out_arg, char **out, char **partial)
{
  char *o = g_strdup (out_arg);
  for (size_t len = strlen (o); len > 1 && G_IS_DIR_SEPARATOR (o[len - 1]); len--)
    o[len - 1] = '\0';
  *partial = g_strconcat (o, ".partial", NULL);
  *out = o;
}

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

void
ls_maker_remove_partial (ls_make_format format, const char *partial)
{
  if (format == LS_MAKE_JPEG_DIR)
    remove_generated (partial);
  else
    g_unlink (partial);
}

gboolean
ls_maker_check_paths (const ls_make_options *o, const char *out, const char *partial, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (out);
  gboolean dir_format = o->format == LS_MAKE_JPEG_DIR;

  if (!g_file_test (parent, G_FILE_TEST_EXISTS))
    return ls_maker_usage_error (error, "%s: the folder %s does not exist (make-dataset does not create it)", out,
                                 parent);
  if (!g_file_test (parent, G_FILE_TEST_IS_DIR))
    return ls_maker_usage_error (error, "%s: %s is not a folder", out, parent);

  if (g_file_test (out, G_FILE_TEST_IS_SYMLINK))
    return ls_maker_usage_error (error, "%s is a symbolic link; give the path itself", out);
  if (dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (!is_dir (out))
        return ls_maker_usage_error (error, "%s exists and is not a folder (jpeg-dir writes a folder)", out);
      if (!dir_is_empty (out))
        {
          if (!o->force)
            return ls_maker_usage_error (error,
                                         "%s is a folder that is not empty (--force replaces a generated dataset)",
                                         out);
          if (!looks_generated (out))
            return ls_maker_usage_error (error,
                                         "%s holds files that are not a generated dataset (only class_*/*.jpg); "
                                         "not replacing it, even with --force",
                                         out);
        }
    }
  else if (!dir_format && g_file_test (out, G_FILE_TEST_EXISTS))
    {
      if (g_file_test (out, G_FILE_TEST_IS_DIR))
        return ls_maker_usage_error (error, "%s is a folder (%s writes one file, such as data.h5)", out,
                                     ls_make_format_name (o->format));
      if (!g_file_test (out, G_FILE_TEST_IS_REGULAR))
        return ls_maker_usage_error (error, "%s exists and is not a regular file", out);
      if (!o->force)
        return ls_maker_usage_error (error, "%s exists (--force replaces it)", out);
    }

  /* A leftover of an interrupted generation is ours to remove. */
  if (g_file_test (partial, G_FILE_TEST_EXISTS) || g_file_test (partial, G_FILE_TEST_IS_SYMLINK))
    {
      gboolean ours = dir_format ? is_dir (partial) && looks_generated (partial)
                                 : g_file_test (partial, G_FILE_TEST_IS_REGULAR)
                                     && !g_file_test (partial, G_FILE_TEST_IS_SYMLINK);
      if (!ours)
        return ls_maker_usage_error (error, "%s is in the way (the temporary name of the dataset); remove it", partial);
      ls_maker_remove_partial (o->format, partial);
      if (g_file_test (partial, G_FILE_TEST_EXISTS))
        return ls_maker_usage_error (error,
                                     "%s is in the way (the temporary name of the dataset) and cannot be removed",
                                     partial);
    }
  return TRUE;
}

gboolean
ls_maker_install (ls_make_format format, const char *partial, const char *out, GError **error)
{
  g_autofree char *old = NULL;

  if (format == LS_MAKE_JPEG_DIR && is_dir (out) && !dir_is_empty (out))
    {
      old = g_strdup_printf ("%s.old-%lu", out, (unsigned long) ls_process_self_pid ());
      if (g_rename (out, old) != 0)
        return ls_maker_failed (error, "%s: cannot move the old dataset aside: %s", out, g_strerror (errno));
    }
  if (g_rename (partial, out) != 0)
    {
      int saved = errno;
      if (old)
        g_rename (old, out);
      return ls_maker_failed (error, "renaming %s to %s failed: %s", partial, out, g_strerror (saved));
    }
  if (old)
    remove_generated (old);
  return TRUE;
}

uint64_t
ls_maker_file_size (const char *path)
{
  GStatBuf st;
  return g_stat (path, &st) == 0 ? (uint64_t) st.st_size : 0;
}
