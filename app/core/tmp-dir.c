#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* lstat, for g_lstat */
#endif
#include "app/core/tmp-dir.h"

#include <glib/gstdio.h>
#include <string.h>

#include "platform/process.h"

/* Deep enough for what a script makes, shallow enough for the stack. */
#define MAX_DEPTH 64

static gboolean
remove_below (const char *path, int depth)
{
  GStatBuf st;
  if (g_lstat (path, &st) != 0)
    return TRUE; /* gone already */
  if (!S_ISDIR (st.st_mode))
    return g_unlink (path) == 0;
  if (depth >= MAX_DEPTH)
    return FALSE;
  g_chmod (path, 0700);
  gboolean ok = TRUE;
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      ok &= remove_below (p, depth + 1);
    }
  if (d)
    g_dir_close (d);
  return g_rmdir (path) == 0 && ok;
}

gboolean
ls_tmp_dir_remove (const char *dir)
{
  return !dir || remove_below (dir, 0);
}

char *
ls_tmp_dir_make (const char *prefix, GError **error)
{
  const char *tmp = g_get_tmp_dir ();
  g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
  const char *name;
  size_t plen = strlen (prefix);

  while (d && (name = g_dir_read_name (d)))
    {
      if (strncmp (name, prefix, plen) != 0)
        continue;
      char *end = NULL;
      gint64 pid = g_ascii_strtoll (name + plen, &end, 10);
      if (pid <= 0 || !end || *end != '-' || pid == (gint64) ls_process_self_pid ()
          || ls_process_is_alive (pid, NULL))
        continue;
      g_autofree char *p = g_build_filename (tmp, name, NULL);
      ls_tmp_dir_remove (p);
    }
  g_autofree char *tmpl = g_strdup_printf ("%s%" G_GINT64_FORMAT "-XXXXXX", prefix, (gint64) ls_process_self_pid ());
  return g_dir_make_tmp (tmpl, error);
}
