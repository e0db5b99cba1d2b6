/* One command on a target that is not streamed: the check, an install, a
 * fetch, a list. Each is bounded in time, because a dropped link or a
 * stopped container otherwise holds the caller (and the window's row, or
 * a collect) for ever. */
#include "app/remote/remote.h"

#include "app/core/i18n.h"

#include <stdlib.h>

typedef struct {
  GSubprocess *proc;
  GCancellable *stop;
  GBytes *out, *err;
  GError *error;
  gboolean done, timed_out;
} command_wait;

static void
on_communicated (GObject *source, GAsyncResult *result, gpointer data)
{
  command_wait *w = data;
  g_subprocess_communicate_finish (G_SUBPROCESS (source), result, &w->out, &w->err, &w->error);
  w->done = TRUE;
}

static gboolean
on_limit (gpointer data)
{
  command_wait *w = data;
  w->timed_out = TRUE;
  g_subprocess_force_exit (w->proc);
  g_cancellable_cancel (w->stop); /* a child of it may still hold the pipes */
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *cancellable, gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
}

guint
ls_remote_command_limit_s (void)
{
  const char *text = g_getenv ("LOADSCOPE_REMOTE_COMMAND_S");
  char *end = NULL;
  long v = text ? strtol (text, &end, 10) : 0;
  return text && end && *end == '\0' && v >= 1 && v <= 86400 ? (guint) v : 600;
}

GBytes *
ls_remote_command (const ls_remote_target *target, GPtrArray *argv, const char *in_path, guint limit_s,
                   GCancellable *cancellable, int *exit_status, GError **error)
{
  g_autoptr (GError) why = NULL;
  if (exit_status)
    *exit_status = -1;
  if (limit_s == 0)
    limit_s = ls_remote_command_limit_s ();
  /* The input goes through a pipe from a mapped file, not as the child's
   * stdin file: GLib has no stdin file path on Windows. */
  g_autoptr (GMappedFile) input = NULL;
  if (in_path && !(input = g_mapped_file_new (in_path, FALSE, &why)))
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("%s: could not read %s: %s"), target->text,
                   in_path, why->message);
      return NULL;
    }
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GSubprocess) proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &why);
  if (!proc)
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_CONNECT, _("%s: could not start %s: %s"), target->text,
                   (const char *) argv->pdata[0], why->message);
      return NULL;
    }

  /* Its own main context: the caller may be a worker thread, or the CLI
   * with no loop running. */
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  command_wait w = { .proc = proc, .stop = g_cancellable_new () };
  gulong handler = cancellable ? g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                        g_object_ref (w.stop), g_object_unref)
                               : 0;
  /* No input: an empty one, so the command there sees its end at once. */
  g_autoptr (GBytes) in = input ? g_mapped_file_get_bytes (input) : g_bytes_new_static ("", 0);
  g_subprocess_communicate_async (proc, in, w.stop, on_communicated, &w);
  GSource *limit = g_timeout_source_new_seconds (limit_s);
  g_source_set_callback (limit, on_limit, &w, NULL);
  g_source_attach (limit, context);
  while (!w.done)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (limit);
  g_source_unref (limit);
  if (w.error)
    g_subprocess_force_exit (proc); /* ended here: given up, or the caller cancelled */
  g_subprocess_wait (proc, NULL, NULL);
  g_main_context_pop_thread_default (context);
  if (handler)
    g_cancellable_disconnect (cancellable, handler);
  g_object_unref (w.stop);

  g_autoptr (GBytes) out = g_steal_pointer (&w.out);
  g_autoptr (GBytes) err = g_steal_pointer (&w.err);
  g_autoptr (GError) failed = g_steal_pointer (&w.error);
  if (w.timed_out)
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TIMEOUT,
                   _("%s did not finish in %u s and was ended (a dropped connection, a stopped container, or a "
                     "command waiting for a password or for input?)"),
                   target->text, limit_s);
      return NULL;
    }
  if (failed)
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_CONNECT, "%s: %s", target->text, failed->message);
      return NULL;
    }
  int status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
  if (exit_status)
    *exit_status = status;
  if (status != 0)
    {
      /* (an empty GBytes has no data pointer) */
      g_autofree char *valid = err && g_bytes_get_size (err)
                                   ? g_utf8_make_valid (g_bytes_get_data (err, NULL), (gssize) g_bytes_get_size (err))
                                   : g_strdup ("");
      g_autofree char *message = ls_remote_transport_failure (target, status, valid);
      g_set_error_literal (error, LS_REMOTE_ERROR,
                           status == 97                                     ? LS_REMOTE_ERROR_MISSING
                           : status == 255 && target->kind == LS_REMOTE_SSH ? LS_REMOTE_ERROR_CONNECT
                                                                            : LS_REMOTE_ERROR_FAILED,
                           message);
      return NULL;
    }
  return out ? g_steal_pointer (&out) : g_bytes_new_static ("", 0);
}
