/* The jpeg-dir writer: OUT/class_<k>/img_<nnnnn>.jpg, label k = index %
 * classes, names zero-padded to at least five digits. */
#include "app/maker/maker-writer.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

typedef struct {
  char *path;
  int classes;
  int name_digits;
} jpegdir;

static ls_maker_writer *
jpegdir_open (const char *path, const ls_maker_plan *plan, GError **error)
{
  jpegdir *wr = g_new0 (jpegdir, 1);
  uint64_t last = plan->count - 1;

  wr->path = g_strdup (path);
  wr->classes = plan->classes;
  wr->name_digits = 5;
  for (uint64_t limit = 100000; last >= limit; limit *= 10)
    wr->name_digits++;
  if (g_mkdir (wr->path, 0777) != 0)
    {
      ls_maker_failed (error, "%s: cannot create the folder: %s", wr->path, g_strerror (errno));
      goto fail;
    }
  for (int k = 0; k < wr->classes; k++)
    {
      g_autofree char *dir = g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d", wr->path, k);
      if (g_mkdir (dir, 0777) != 0)
        {
          ls_maker_failed (error, "%s: cannot create the folder: %s", dir, g_strerror (errno));
          goto fail;
        }
    }
  return (ls_maker_writer *) wr;

fail:
  g_free (wr->path);
  g_free (wr);
  return NULL;
}

static gboolean
jpegdir_add (ls_maker_writer *w, const ls_maker_job *j, GError **error)
{
  jpegdir *wr = (jpegdir *) w;
  int label = (int) (j->index % (uint64_t) wr->classes);
  g_autofree char *path = g_strdup_printf ("%s" G_DIR_SEPARATOR_S "class_%d" G_DIR_SEPARATOR_S
                                           "img_%0*" G_GUINT64_FORMAT ".jpg",
                                           wr->path, label, wr->name_digits, j->index);
  FILE *fp = g_fopen (path, "wb");

  if (!fp)
    return ls_maker_failed (error, "%s: cannot create: %s", path, g_strerror (errno));
  size_t put = fwrite (j->data, 1, j->len, fp);
  int saved = errno;
  if (fclose (fp) != 0 || put != j->len)
    return ls_maker_failed (error, "%s: writing failed: %s", path, g_strerror (put != j->len ? saved : errno));
  return TRUE;
}

static gboolean
jpegdir_close (ls_maker_writer *w, gboolean finish, GError **error)
{
  jpegdir *wr = (jpegdir *) w;

  g_free (wr->path);
  g_free (wr);
  return TRUE;
}

const ls_maker_writer_ops ls_maker_write_jpegdir = {
  .encode = ls_maker_encode_jpeg,
  .open = jpegdir_open,
  .add = jpegdir_add,
  .close = jpegdir_close,
};
