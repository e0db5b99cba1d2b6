/* The script's process, its channel and its tree (probe-process.h). */
#include "app/target/probe-process.h"
#include "app/core/i18n.h"

#include <gio/gio.h>
#include <inttypes.h>
#include <stdlib.h>

#include "app/target/probe-dir.h"
#include "platform/pipe.h"
#include "platform/process-identity.h"
#include "platform/process-tree.h"
#include "platform/process.h"

#define CHUNK 65536
/* What end reads after the tree is gone: enough for the lines a script
 * wrote last, not a flood. */
#define DRAIN_MAX ((gsize) 8 << 20)

struct ls_probe_process {
  ls_process *proc;
  int pid;
  ls_exit_status status;
  uint64_t started;      /* the script's start time (process identity) */
  ls_handle channel;     /* read end */
  gboolean eof, ended;
  char *dir;             /* the per-run folder */
  char *marker;          /* "LOADSCOPE_PROBE_RUN=<pid>-<random>", inherited by the tree */
  ls_probe_reader *reader;
  char chunk[CHUNK];
};

/* argv[0] as given when it names a folder, else found on PATH (as a
 * shell would); NULL with an error saying which. */
static char *
find_interpreter (const char *name, GError **error)
{
  if (strchr (name, '/') || strchr (name, G_DIR_SEPARATOR))
    return g_strdup (name);
  char *found = g_find_program_in_path (name);
  if (!found)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("--python %s: not found on PATH"), name);
  return found;
}

ls_probe_process *
ls_probe_process_start (const char *const *argv, const char *const *env, GError **error)
{
  g_autofree char *interpreter = find_interpreter (argv[0], error);
  if (!interpreter)
    return NULL;
  g_autofree char *dir = ls_probe_dir_make (error);
  if (!dir)
    {
      g_prefix_error (error, _("the probe's temporary folder: "));
      return NULL;
    }
  ls_handle rd, wr;
  ls_error err = { 0 };
  if (ls_pipe_open (&rd, &wr, &err) != LS_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("the probe's channel: %s"), err.message);
      ls_probe_dir_remove (dir);
      return NULL;
    }
  /* Orphans of the tree (a child that called setsid() and whose parent
   * died) come back to us instead of init; where the system cannot,
   * the marker still finds them. */
  ls_process_tree_adopt_orphans (NULL);
  g_autofree char *marker_value = g_strdup_printf ("%d-%08x%08x", (int) ls_process_self_pid (), g_random_int (),
                                                   g_random_int ());
  /* The channel's write end keeps its value in the child (a descriptor on
   * POSIX, a HANDLE on Windows); the probe reads which from the variable. */
  g_autoptr (GPtrArray) env_add = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *e = env; e && e[0] && e[1]; e += 2)
    g_ptr_array_add (env_add, g_strconcat (e[0], "=", e[1], NULL));
  g_ptr_array_add (env_add, g_strconcat ("TMPDIR=", dir, NULL));
  g_ptr_array_add (env_add, g_strconcat ("LOADSCOPE_PROBE_DIR=", dir, NULL));
  g_ptr_array_add (env_add, g_strconcat ("LOADSCOPE_PROBE_RUN=", marker_value, NULL));
  g_ptr_array_add (env_add, g_strdup_printf ("LOADSCOPE_PROBE_FD=%" PRIdPTR, wr));
  g_ptr_array_add (env_add, NULL);
  /* A session (Windows: a process group) of its own that dies with us; the
   * script's prints go to stderr, as stdout may be the event stream. */
  ls_spawn_options opts = {
    .path = interpreter, .argv = argv, .inherit = &wr, .n_inherit = 1,
    .env_add = (const char *const *) env_add->pdata, .tree_leader = true, .stdout_to_stderr = true,
  };
  ls_process *proc = NULL;
  int rc = ls_process_spawn (&opts, &proc, &err);
  ls_pipe_close (wr); /* the child holds the only write end now */
  if (rc != LS_OK)
    {
      ls_pipe_close (rd);
      ls_probe_dir_remove (dir);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "--python %s: %s", argv[0], err.message);
      return NULL;
    }
  ls_probe_process *p = g_new0 (ls_probe_process, 1);
  p->proc = proc;
  p->pid = (int) ls_process_pid (proc);
  p->started = ls_process_start_time (ls_process_pid (proc));
  p->channel = rd;
  p->dir = g_steal_pointer (&dir);
  p->marker = g_strconcat ("LOADSCOPE_PROBE_RUN=", marker_value, NULL);
  p->reader = ls_probe_reader_new ();
  return p;
}

int
ls_probe_process_pid (const ls_probe_process *p)
{
  return p->pid;
}

ls_probe_read
ls_probe_process_read (ls_probe_process *p, int timeout_ms, ls_probe_line_fn fn, gpointer user, GError **error)
{
  if (p->eof || p->ended)
    {
      /* A closed pipe polls ready at once: wait here instead. */
      g_usleep ((gulong) timeout_ms * 1000);
      return LS_PROBE_READ_EOF;
    }
  int64_t n = ls_pipe_read (p->channel, p->chunk, sizeof p->chunk, timeout_ms, NULL);
  if (n == LS_ERR_TIMEOUT)
    return LS_PROBE_READ_MORE;
  if (n <= 0)
    {
      p->eof = TRUE;
      return LS_PROBE_READ_EOF;
    }
  if (!ls_probe_reader_feed (p->reader, p->chunk, (gsize) n, fn, user, error))
    return LS_PROBE_READ_ERROR;
  return LS_PROBE_READ_MORE;
}

gboolean
ls_probe_process_exited (ls_probe_process *p)
{
  return p->ended || ls_process_wait (p->proc, 0, &p->status, NULL) == LS_OK;
}

void
ls_probe_process_end (ls_probe_process *p, ls_probe_line_fn fn, gpointer user)
{
  if (p->ended)
    return;
  /* The group first (the script and what stayed in its session), then
   * what carries the marker or was adopted; the script is reaped by its
   * ls_process, the others by the tree's end. */
  ls_process_tree_end (p->pid, p->marker, p->started, NULL);
  ls_process_kill (p->proc, NULL);
  ls_process_wait (p->proc, -1, &p->status, NULL);
  ls_process_tree_end (0, p->marker, p->started, NULL);
  p->ended = TRUE;
  /* Every writer is gone: what is left in the pipe ends in EOF. */
  gsize drained = 0;
  while (!p->eof && drained < DRAIN_MAX)
    {
      int64_t n = ls_pipe_read (p->channel, p->chunk, sizeof p->chunk, 0, NULL);
      if (n <= 0)
        break;
      drained += (gsize) n;
      if (fn && !ls_probe_reader_feed (p->reader, p->chunk, (gsize) n, fn, user, NULL))
        break;
    }
  ls_pipe_close (p->channel);
  p->channel = LS_HANDLE_INVALID;
  ls_probe_dir_remove (p->dir);
}

const ls_exit_status *
ls_probe_process_status (const ls_probe_process *p)
{
  return &p->status;
}

void
ls_probe_process_free (ls_probe_process *p)
{
  if (!p)
    return;
  ls_probe_process_end (p, NULL, NULL);
  ls_process_free (p->proc);
  ls_probe_reader_free (p->reader);
  g_free (p->dir);
  g_free (p->marker);
  g_free (p);
}
