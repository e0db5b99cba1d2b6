/* A run's lanes off the GTK thread (lanes-job.h). */
#include "app/report/lanes-job.h"

#include "app/report/chart-store.h"
#include "app/store/store-query.h"

typedef struct {
  char *db;
  gint64 run_id;
} job;

static void
job_free (gpointer data)
{
  job *j = data;
  g_free (j->db);
  g_free (j);
}

static void
run_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  job *j = data;
  GError *error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (j->db, &error);
  ls_chart *chart = store ? ls_chart_run_lanes (store, j->run_id, &error) : NULL;
  if (chart)
    g_task_return_pointer (task, chart, (GDestroyNotify) ls_chart_free);
  else
    g_task_return_error (task, error);
}

void
ls_lanes_job (const char *db, gint64 run_id, GCancellable *cancellable, GAsyncReadyCallback callback,
              gpointer user_data)
{
  job *j = g_new0 (job, 1);
  j->db = g_strdup (db);
  j->run_id = run_id;
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ls_lanes_job);
  g_task_set_task_data (task, j, job_free);
  g_task_run_in_thread (task, run_in_thread);
}

ls_chart *
ls_lanes_job_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
