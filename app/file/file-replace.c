#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* lstat, for g_lstat */
#endif
#include "app/file/file-replace.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#ifdef G_OS_WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "app/file/test-hold.h"
#include "platform/cleanup.h"
#include "platform/fs.h"
#include "platform/process-identity.h"
#include "platform/process.h"

#ifndef O_BINARY
#define O_BINARY 0
#endif

/* SQLite's files beside a database it writes (the partial of a bundle). */
static const char *const sides[] = { "", "-journal", "-wal", "-shm" };
#define N_SIDES G_N_ELEMENTS (sides)

struct ls_partial_file {
  char *path;    /* the final name */
  char *partial; /* FILE.PID-START-XXXXXX.partial */
  int fd;        /* -1 once closed */
  int armed[N_SIDES];
  gboolean committed;
};

/* errno as words, saying it of the file asked for (not of the partial). */
static void
set_error (GError **error, const char *path, int err)
{
  const char *why;
  switch (err)
    {
    case ENOENT:
    case ENOTDIR:
      why = "its folder does not exist";
      break;
    case EACCES:
    case EPERM:
    case EROFS:
      why = "permission denied";
      break;
    case ENOSPC:
      why = "no space left on the device";
      break;
    case EISDIR:
      why = "it is a folder";
      break;
#ifdef EFBIG
    case EFBIG:
      why = "larger than the file size limit allows";
      break;
#endif
    default:
      why = g_strerror (err);
      break;
    }
  /* untranslated: app/file is GLib and platform/ only (no catalogue here): its callers put the file's name and reason into their own sentence */
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: cannot write it: %s", path, why);
}

/* Digits up to a '-': the number, and where it ends. FALSE: not that. */
static gboolean
number_then_dash (const char **at, guint64 *value)
{
  const char *p = *at;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  char *end = NULL;
  *value = g_ascii_strtoull (p, &end, 10);
  if (!end || *end != '-' || end - p > 20)
    return FALSE;
  *at = end + 1;
  return TRUE;
}

gboolean
ls_partial_file_owner (const char *base, const char *name, gint64 *pid, guint64 *start)
{
  size_t blen = strlen (base);
  if (strncmp (name, base, blen) != 0 || name[blen] != '.')
    return FALSE;
  const char *p = name + blen + 1;
  guint64 owner, started;
  if (!number_then_dash (&p, &owner) || !number_then_dash (&p, &started) || owner == 0 || owner > G_MAXINT64)
    return FALSE;
  for (int i = 0; i < 6; i++) /* mkstemp's letters and digits */
    if (!g_ascii_isalnum (p[i]))
      return FALSE;
  p += 6;
  if (!g_str_has_prefix (p, ".partial"))
    return FALSE;
  p += strlen (".partial");
  for (guint i = 0; i < N_SIDES; i++)
    if (strcmp (p, sides[i]) == 0)
      {
        *pid = (gint64) owner;
        *start = started;
        return TRUE;
      }
  return FALSE;
}

/* Removes what a writer of path that is gone (SIGKILL, a crash, a power
 * loss) left beside it: regular files of ours named as its partials (or
 * their SQLite files) whose process no longer runs. A process that still
 * runs with that pid and start time keeps its partial; a link, a folder or
 * another user's file of that name stays. */
static void
remove_stale_partials (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      gint64 pid;
      guint64 start;
      /* this process's own partials are the same process: kept */
      if (!ls_partial_file_owner (base, name, &pid, &start) || ls_process_is_same (pid, start))
        continue;
      g_autofree char *stale = g_build_filename (dir, name, NULL);
      GStatBuf st;
      if (g_lstat (stale, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
#ifndef G_OS_WIN32
      if (st.st_uid != getuid ())
        continue;
#endif
      g_unlink (stale);
    }
}

ls_partial_file *
ls_partial_file_new (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      set_error (error, path, EISDIR);
      return NULL;
    }
  remove_stale_partials (path);
  ls_partial_file *p = g_new0 (ls_partial_file, 1);
  p->path = g_strdup (path);
  /* Whose it is, for the next writer of path to tell one left by a process
   * that is gone from one being written. */
  ls_pid self = ls_process_self_pid ();
  p->partial = g_strdup_printf ("%s.%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT "-XXXXXX.partial", path, (guint64) self,
                                (guint64) ls_process_start_time ((int64_t) self));
  p->fd = g_mkstemp_full (p->partial, O_RDWR | O_BINARY, 0666);
  for (guint i = 0; i < N_SIDES; i++)
    p->armed[i] = -1;
  if (p->fd < 0)
    {
      set_error (error, path, errno);
      g_clear_pointer (&p->partial, g_free);
      ls_partial_file_free (p);
      return NULL;
    }
  /* From here a stop that ends the process removes it. */
  for (guint i = 0; i < N_SIDES; i++)
    {
      g_autofree char *side = g_strconcat (p->partial, sides[i], NULL);
      p->armed[i] = ls_cleanup_arm (side, LS_CLEANUP_FILE);
    }
  return p;
}

const char *
ls_partial_file_path (const ls_partial_file *partial)
{
  return partial->partial;
}

void
ls_partial_file_close (ls_partial_file *p)
{
  if (p->fd >= 0)
    close (p->fd);
  p->fd = -1;
}

gboolean
ls_partial_file_write (ls_partial_file *p, const void *data, gsize len, GError **error)
{
  const char *at = data;
  g_return_val_if_fail (p->fd >= 0, FALSE);
  while (len > 0)
    {
      /* Windows' write() takes an unsigned int count. */
      unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned) len;
      int n = (int) write (p->fd, at, chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          set_error (error, p->path, n < 0 ? errno : ENOSPC);
          return FALSE;
        }
      at += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
ls_partial_file_commit (ls_partial_file *p, GError **error)
{
  int fd = p->fd;
  p->fd = -1;
  if (fd < 0) /* a writer that wrote it by name (SQLite): synced here too */
    {
      ls_test_hold ("write", p->path);
      fd = g_open (p->partial, O_RDWR | O_BINARY, 0);
    }
  if (fd < 0 || g_fsync (fd) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      set_error (error, p->path, saved);
      return FALSE;
    }
  if (close (fd) != 0)
    {
      set_error (error, p->path, errno);
      return FALSE;
    }
  /* What an earlier SQLite left beside the old file would read as the new
   * one's journal. */
  for (guint i = 1; i < N_SIDES; i++)
    {
      g_autofree char *side = g_strconcat (p->path, sides[i], NULL);
      g_unlink (side);
    }
  if (g_rename (p->partial, p->path) != 0)
    {
      set_error (error, p->path, errno);
      return FALSE;
    }
  p->committed = TRUE;
  ls_cleanup_disarm (p->armed[0]);
  p->armed[0] = -1;
  g_autofree char *dir = g_path_get_dirname (p->path);
  ls_fs_sync_dir (dir, NULL); /* the file is whole either way; only its durability */
  return TRUE;
}

void
ls_partial_file_free (ls_partial_file *p)
{
  if (!p)
    return;
  if (p->fd >= 0)
    close (p->fd);
  for (guint i = 0; p->partial && i < N_SIDES; i++)
    {
      if (i > 0 || !p->committed)
        {
          g_autofree char *side = g_strconcat (p->partial, sides[i], NULL);
          g_unlink (side);
        }
      ls_cleanup_disarm (p->armed[i]);
    }
  g_free (p->partial);
  g_free (p->path);
  g_free (p);
}

gboolean
ls_file_replace (const char *path, const void *data, gsize len, GError **error)
{
  g_autoptr (ls_partial_file) p = ls_partial_file_new (path, error);
  if (!p)
    return FALSE;
  gsize half = len / 2;
  if (!ls_partial_file_write (p, data, half, error))
    return FALSE;
  ls_test_hold ("write", path);
  return ls_partial_file_write (p, (const char *) data + half, len - half, error) && ls_partial_file_commit (p, error);
}
