/* Asking a target, before a sweep, whether it answers and holds this
 * version's bundle: what the window's Machine row says as soon as a
 * machine is chosen, instead of after the first run fails. */
#include "app/remote/remote.h"

#include "app/core/i18n.h"
#include "app/core/worker-path.h"

#include <string.h>

static const char check_script[] = "need_bundle\n"
                                   "echo loadscope-remote-ready\n";

gboolean
ls_remote_check (const ls_remote_target *target, const char *runner, guint limit_s, GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *key = ls_remote_version_key_of (runner);
  g_autofree char *script = g_strconcat (ls_remote_script_prelude, check_script, NULL);
  const char *args[] = { key, NULL };
  g_autoptr (GPtrArray) argv = ls_remote_sh_argv (target, script, args);
  g_autoptr (GError) why = NULL;
  g_autoptr (GBytes) out = ls_remote_command (target, argv, NULL, limit_s, cancellable, NULL, &why);
  if (!out)
    {
      if (g_error_matches (why, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TIMEOUT))
        g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TIMEOUT,
                     _("%s did not answer in %u s (is the container running? does the command wait for a password "
                       "or for input?)"),
                     target->text, limit_s);
      else
        g_propagate_error (error, g_steal_pointer (&why));
      return FALSE;
    }
  gsize n = 0;
  const char *text = g_bytes_get_data (out, &n);
  if (text && g_strstr_len (text, (gssize) n, "loadscope-remote-ready"))
    return TRUE;
  g_set_error (error, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED,
               _("%s answered, but not as a shell that runs Loadscope's check (is the command a prefix that runs "
                 "its arguments?)"),
               target->text);
  return FALSE;
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

/* ---- installing from the window ---- */

static void
installed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *said = NULL;
  GSubprocess *proc = G_SUBPROCESS (source);
  if (!g_subprocess_communicate_utf8_finish (proc, result, &said, NULL, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_subprocess_get_if_exited (proc) && g_subprocess_get_exit_status (proc) == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* What it said last (the target's words may be among them: made valid
   * and kept short, for a label). */
  g_autofree char *valid = g_utf8_make_valid (said ? said : "", -1);
  char *text = g_strstrip (valid);
  glong n = g_utf8_strlen (text, -1);
  const char *tail = n > 600 ? g_utf8_offset_to_pointer (text, n - 600) : text;
  g_task_return_new_error (task, LS_REMOTE_ERROR, LS_REMOTE_ERROR_FAILED, _("Installing failed: %s"), tail);
}

void
ls_remote_install_async (const char *target_text, const char *runner, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ls_remote_install_async);
  g_autofree char *self = runner ? NULL : ls_self_exe_path ();
  const char *argv[] = { runner ? runner : self, "remote", "install", target_text, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                              | G_SUBPROCESS_FLAGS_STDERR_MERGE
                                                              | G_SUBPROCESS_FLAGS_STDIN_PIPE,
                                                    &error);
  if (!proc)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_subprocess_communicate_utf8_async (proc, "", cancellable, installed, g_steal_pointer (&task));
}

gboolean
ls_remote_install_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
