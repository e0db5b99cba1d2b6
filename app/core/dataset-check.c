#include "app/core/dataset-check.h"

#include "app/core/error-bridge.h"
#include "app/core/run-options.h"
#include "loader/dataset.h"

gboolean
ls_dataset_check (const char *path, char **description, GError **error)
{
  ls_run_options o;
  ls_run_config config;
  ls_error err = { 0 };
  ls_dataset *ds = NULL;

  ls_run_options_init (&o);
  o.dataset = g_strdup (path);
  gboolean ok = ls_run_options_resolve (&o, &config, error);
  ls_run_options_clear (&o);
  if (!ok)
    return FALSE;
  if (ls_dataset_open (&config.pool.dataset, &ds, &err) != 0)
    {
      return ls_error_to_gerror (&err, error);
    }
  if (description)
    {
      g_autofree char *n = g_strdup_printf ("%'" G_GUINT64_FORMAT, ls_dataset_length (ds));
      *description = g_strdup_printf ("%s: %s samples", config.pool.dataset.kind, n);
    }
  ls_dataset_close (ds);
  return TRUE;
}

static void
check_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  char *description = NULL;
  if (ls_dataset_check (task_data, &description, &error))
    g_task_return_pointer (task, description, g_free);
  else
    g_task_return_error (task, error);
}

void
ls_dataset_check_async (const char *path, GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ls_dataset_check_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, check_in_thread);
}

char *
ls_dataset_check_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
