#include "app/report/sweep-charts.h"

#include "app/store/store-query.h"

guint
ls_sweep_charts_n (void)
{
  guint n = 0;
  while (ls_chart_sweep_names[n])
    n++;
  return n;
}

GPtrArray *
ls_sweep_charts (ls_store *store, gint64 sweep_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  g_autoptr (GPtrArray) charts = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_chart_free);
  for (const char *const *name = ls_chart_sweep_names; *name; name++)
    {
      ls_chart *c = ls_chart_sweep (store, sweep_id, *name, error);
      if (!c)
        return NULL;
      g_ptr_array_add (charts, c);
    }
  return g_steal_pointer (&charts);
}

typedef struct {
  char *db;
  gint64 sweep_id;
} load_request;

static void
load_request_free (gpointer data)
{
  load_request *req = data;
  g_free (req->db);
  g_free (req);
}

static void
load_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  load_request *req = data;
  GError *error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (req->db, &error);
  GPtrArray *charts = store ? ls_sweep_charts (store, req->sweep_id, &error) : NULL;
  if (charts)
    g_task_return_pointer (task, charts, (GDestroyNotify) g_ptr_array_unref);
  else
    g_task_return_error (task, error);
}

void
ls_sweep_charts_load_async (const char *db, gint64 sweep_id, GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  load_request *req = g_new0 (load_request, 1);
  req->db = g_strdup (db);
  req->sweep_id = sweep_id;
  g_task_set_source_tag (task, ls_sweep_charts_load_async);
  g_task_set_task_data (task, req, load_request_free);
  g_task_run_in_thread (task, load_in_thread);
}

GPtrArray *
ls_sweep_charts_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
