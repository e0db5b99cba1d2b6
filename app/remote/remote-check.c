/* Asking a target, before a sweep, whether it answers and holds this
 * version's bundle: what the window's Machine row says as soon as a
 * machine is chosen, instead of after the first run fails. */
#include "app/remote/remote.h"

#include "app/core/i18n.h"

#include <string.h>

static const char check_script[] = "need_bundle\n"
                                   "echo loadscope-remote-ready\n";

typedef struct {
  GSubprocess *proc;
  GCancellable *stop;
  GBytes *out, *err;
  GError *error;
  gboolean done, timed_out;
} check_wait;

static void
on_communicated (GObject *source, GAsyncResult *result, gpointer data)
{
  check_wait *w = data;
  g_subprocess_communicate_finish (G_SUBPROCESS (source), result, &w->out, &w->err, &w->error);
  w->done = TRUE;
}

static gboolean
on_limit (gpointer data)
{
  check_wait *w = data;
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

gboolean
ls_remote_check (const ls_remote_target *target, const char *runner, guint limit_s, GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *key = ls_remote_version_key_of (runner);
  g_autofree char *script = g_strconcat (ls_remote_script_prelude, check_script, NULL);
  const char *args[] = { key, NULL };
  g_autoptr (GPtrArray) argv = ls_remote_sh_argv (target, script, args);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GError) why = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &why);
  if (!proc)
    {
      g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_CONNECT, _("%s: could not start %s: %s"), target->text,
                   (const char *) argv->pdata[0], why->message);
      return FALSE;
    }

  /* Its own main context: this runs in a worker thread. */
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  check_wait w = { .proc = proc, .stop = g_cancellable_new () };
  gulong handler = cancellable ? g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                        g_object_ref (w.stop), g_object_unref)
                               : 0;
  g_autoptr (GBytes) none = g_bytes_new_static ("", 0);
  g_subprocess_communicate_async (proc, none, w.stop, on_communicated, &w);
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

  gboolean ok = FALSE;
  if (w.timed_out)
    g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_CONNECT,
                 _("%s did not answer in %u s (is the container running? does the command wait for a password or "
                   "for input?)"),
                 target->text, limit_s);
  else if (w.error)
    g_propagate_error (error, g_steal_pointer (&w.error));
  else
    {
      int status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
      gsize n = 0;
      const char *out = w.out ? g_bytes_get_data (w.out, &n) : NULL;
      if (status == 0 && out && g_strstr_len (out, (gssize) n, "loadscope-remote-ready"))
        ok = TRUE;
      else
        {
          g_autofree char *said = w.err && g_bytes_get_size (w.err)
                                      ? g_utf8_make_valid (g_bytes_get_data (w.err, NULL), (gssize) g_bytes_get_size (w.err))
                                      : g_strdup ("");
          g_autofree char *message = ls_remote_transport_failure (target, status, said);
          g_set_error_literal (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, message);
        }
    }
  g_clear_error (&w.error);
  g_clear_pointer (&w.out, g_bytes_unref);
  g_clear_pointer (&w.err, g_bytes_unref);
  return ok;
}

static void
check_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  char **what = task_data; /* the target's text, the runner */
  GError *error = NULL;
  g_autoptr (ls_remote_target) target = ls_remote_target_parse (what[0], &error);
  if (target && ls_remote_check (target, what[1], 20, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ls_remote_check_async (const char *target_text, const char *runner, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ls_remote_check_async);
  char **what = g_new0 (char *, 3);
  what[0] = g_strdup (target_text);
  what[1] = g_strdup (runner);
  g_task_set_task_data (task, what, (GDestroyNotify) g_strfreev);
  g_task_run_in_thread (task, check_in_thread);
}

gboolean
ls_remote_check_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
