/* The script's process, its channel and its tree (probe-process.h). */
#include "app/target/probe-process.h"

#include <gio/gio.h>
#include <stdlib.h>

#include "app/target/probe-dir.h"
#include "platform/pipe.h"
#include "platform/process-identity.h"
#include "platform/process-tree.h"
#include "platform/process.h"

#ifndef G_OS_UNIX

ls_probe_process *
ls_probe_process_start (const char *const *argv, const char *const *env, GError **error)
{
  (void) argv;
  (void) env;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "--target pytorch runs on Linux only for now");
  return NULL;
}

int ls_probe_process_pid (const ls_probe_process *p) { (void) p; return 0; }
ls_probe_read ls_probe_process_read (ls_probe_process *p, int timeout_ms, ls_probe_line_fn fn, gpointer user,
                                     GError **error) { return LS_PROBE_READ_EOF; }
gboolean ls_probe_process_exited (ls_probe_process *p) { return TRUE; }
void ls_probe_process_end (ls_probe_process *p, ls_probe_line_fn fn, gpointer user) {}
int ls_probe_process_term_sig (ls_probe_process *p) { return 0; }
int ls_probe_process_exit_status (ls_probe_process *p) { return 0; }
void ls_probe_process_free (ls_probe_process *p) {}

#else

#define CHUNK 65536
/* What end reads after the tree is gone: enough for the lines a script
 * wrote last, not a flood. */
#define DRAIN_MAX ((gsize) 8 << 20)

struct ls_probe_process {
  GSubprocess *proc;
  int pid;
  uint64_t started;      /* the script's start time (process identity) */
  ls_handle channel;     /* read end */
  gboolean eof, ended;
  char *dir;             /* the per-run folder */
  char *marker;          /* "LOADSCOPE_PROBE_RUN=<pid>-<random>", inherited by the tree */
  ls_probe_reader *reader;
  char chunk[CHUNK];
};

static void
child_setup (gpointer parent)
{
  ls_process_tree_child_setup ((ls_pid) GPOINTER_TO_INT (parent));
}

ls_probe_process *
ls_probe_process_start (const char *const *argv, const char *const *env, GError **error)
{
  g_autofree char *dir = ls_probe_dir_make (error);
  if (!dir)
    {
      g_prefix_error (error, "the probe's temporary folder: ");
      return NULL;
    }
  ls_handle rd, wr;
  ls_error err = { 0 };
  if (ls_pipe_open (&rd, &wr, &err) != LS_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the probe's channel: %s", err.message);
      ls_probe_dir_remove (dir);
      return NULL;
    }
  /* Orphans of the tree (a child that called setsid() and whose parent
   * died) come back to us instead of init; where the system cannot,
   * the marker still finds them. */
  ls_process_tree_adopt_orphans (NULL);
  g_autofree char *marker_value = g_strdup_printf ("%d-%08x%08x", (int) ls_process_self_pid (), g_random_int (),
                                                   g_random_int ());
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  for (const char *const *e = env; e && e[0] && e[1]; e += 2)
    g_subprocess_launcher_setenv (launcher, e[0], e[1], TRUE);
  g_subprocess_launcher_setenv (launcher, "TMPDIR", dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "LOADSCOPE_PROBE_DIR", dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "LOADSCOPE_PROBE_RUN", marker_value, TRUE);
  g_subprocess_launcher_take_fd (launcher, (int) wr, 3);
  /* The script's prints go to stderr: stdout may be the event stream. */
  ls_handle out = ls_pipe_stderr_dup (NULL);
  if (out != LS_HANDLE_INVALID)
    g_subprocess_launcher_take_stdout_fd (launcher, (int) out);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, GINT_TO_POINTER ((int) ls_process_self_pid ()),
                                         NULL);
  g_autoptr (GError) spawn_error = NULL;
  GSubprocess *proc = g_subprocess_launcher_spawnv (launcher, argv, &spawn_error);
  g_clear_object (&launcher); /* closes our copy of the write end */
  if (!proc)
    {
      ls_pipe_close (rd);
      ls_probe_dir_remove (dir);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "--python %s: %s", argv[0], spawn_error->message);
      return NULL;
    }
  ls_probe_process *p = g_new0 (ls_probe_process, 1);
  p->proc = proc;
  p->pid = atoi (g_subprocess_get_identifier (proc));
  p->started = ls_process_start_time (p->pid);
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
  return p->ended || !g_subprocess_get_identifier (p->proc);
}

void
ls_probe_process_end (ls_probe_process *p, ls_probe_line_fn fn, gpointer user)
{
  if (p->ended)
    return;
  /* The group first (the script and what stayed in its session), then
   * what carries the marker or was adopted; the script is reaped by its
   * GSubprocess, the others by the tree's end. */
  ls_process_tree_end (p->pid, p->marker, p->started, NULL);
  g_subprocess_force_exit (p->proc);
  g_subprocess_wait (p->proc, NULL, NULL);
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

int
ls_probe_process_term_sig (ls_probe_process *p)
{
  return g_subprocess_get_if_signaled (p->proc) ? g_subprocess_get_term_sig (p->proc) : 0;
}

int
ls_probe_process_exit_status (ls_probe_process *p)
{
  return g_subprocess_get_if_exited (p->proc) ? g_subprocess_get_exit_status (p->proc) : -1;
}

void
ls_probe_process_free (ls_probe_process *p)
{
  if (!p)
    return;
  ls_probe_process_end (p, NULL, NULL);
  g_clear_object (&p->proc);
  ls_probe_reader_free (p->reader);
  g_free (p->dir);
  g_free (p->marker);
  g_free (p);
}

#endif
