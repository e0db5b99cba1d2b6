/* Reading a run folder's files. The folder sits on a shared file system
 * and other users' jobs write into it: every file is read as untrusted
 * (platform/fs.h): regular files only, never through a symbolic link,
 * never blocking on a FIFO, and never more than a cap. */
#include "app/slurm/slurm.h"

#include <stdlib.h>
#include <string.h>

#include "platform/fs.h"

char *
ls_slurm_folder_read (const char *path, gsize max, gboolean tail, gsize *len, gboolean *missing, GError **error)
{
  ls_error err = { 0 };
  char *buf = NULL;
  size_t n = 0;
  int rc = ls_fs_read_regular (path, LS_FS_READ_NOFOLLOW | (tail ? LS_FS_READ_TAIL : 0), max, &buf, &n, NULL, &err);
  if (missing)
    *missing = rc == LS_ERR_NOT_FOUND;
  if (rc != LS_OK)
    {
      g_set_error_literal (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, err.message);
      return NULL;
    }
  if (len)
    *len = n;
  /* malloc'ed by platform/: handed on as GLib memory, NUL bytes kept. */
  char *out = g_malloc (n + 1);
  memcpy (out, buf, n);
  out[n] = '\0';
  free (buf);
  return out;
}

gboolean
ls_slurm_folder_has_file (const char *path)
{
  return ls_fs_kind_of_link (path, NULL) == LS_FS_FILE;
}
