/* Reopening a recorded sweep (sweep-open.h). */
#include "app/report/sweep-open.h"

#include "app/core/i18n.h"
#include "app/chart/chart.h"
#include "app/store/store-query.h"

static void
entry_clear (gpointer data)
{
  g_free (((ls_sweep_entry *) data)->started_at);
}

void
ls_sweep_opened_free (ls_sweep_opened *opened)
{
  if (!opened)
    return;
  g_array_unref (opened->sweeps);
  if (opened->summaries)
    json_array_unref (opened->summaries);
  g_free (opened);
}

/* The history's runs (newest first) grouped by sweep, in that order. */
static GArray *
list_sweeps (JsonArray *runs)
{
  GArray *sweeps = g_array_new (FALSE, TRUE, sizeof (ls_sweep_entry));
  g_array_set_clear_func (sweeps, entry_clear);
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      gint64 id = json_object_get_int_member_with_default (run, "sweep_id", 0);
      if (id <= 0)
        continue;
      gpointer at = g_hash_table_lookup (index, &id);
      if (!at)
        {
          ls_sweep_entry e = { .sweep_id = id };
          g_array_append_val (sweeps, e);
          at = GUINT_TO_POINTER (sweeps->len);
          g_hash_table_insert (index, g_memdup2 (&id, sizeof id), at);
        }
      ls_sweep_entry *e = &g_array_index (sweeps, ls_sweep_entry, GPOINTER_TO_UINT (at) - 1);
      e->n_runs++;
      e->n_failed += g_strcmp0 (json_object_get_string_member_with_default (run, "status", ""), "failed") == 0;
      /* newest first: the last seen is the sweep's first run */
      g_free (e->started_at);
      e->started_at = g_strdup (json_object_get_string_member_with_default (run, "started_at", NULL));
    }
  return sweeps;
}

/* A run's stored summary, or what the run row says when it has none. */
static JsonObject *
run_summary (ls_store *store, gint64 run_id, GError **error)
{
  g_autoptr (JsonObject) run = ls_store_run_object (store, run_id, error);
  if (!run)
    return NULL;
  const char *text = json_object_get_string_member_with_default (run, "summary", NULL);
  g_autoptr (JsonNode) node = text ? json_from_string (text, NULL) : NULL;
  if (node && JSON_NODE_HOLDS_OBJECT (node))
    return json_object_ref (json_node_get_object (node));
  JsonObject *stub = json_object_new ();
  json_object_set_string_member (stub, "status", json_object_get_string_member_with_default (run, "status", "?"));
  const char *reason = json_object_get_string_member_with_default (run, "error", NULL);
  if (reason)
    json_object_set_string_member (stub, "error", reason);
  return stub;
}

ls_sweep_opened *
ls_sweep_open (ls_store *store, gint64 sweep_id, GError **error)
{
  g_autoptr (JsonArray) runs = ls_store_history (store, 0, 0, error);
  if (!runs)
    return NULL;
  g_autoptr (ls_sweep_opened) opened = g_new0 (ls_sweep_opened, 1);
  opened->sweeps = list_sweeps (runs);
  if (sweep_id <= 0 && opened->sweeps->len > 0)
    sweep_id = g_array_index (opened->sweeps, ls_sweep_entry, 0).sweep_id;
  if (sweep_id <= 0)
    return g_steal_pointer (&opened);
  g_autofree char *ref = g_strdup_printf ("%" G_GINT64_FORMAT, sweep_id);
  g_autoptr (GArray) ids = ls_store_select_runs (store, NULL, ref, error);
  if (!ids)
    return NULL;
  opened->sweep_id = sweep_id;
  opened->summaries = json_array_new ();
  for (guint i = 0; i < ids->len; i++)
    {
      JsonObject *summary = run_summary (store, g_array_index (ids, gint64, i), error);
      if (!summary)
        return NULL;
      json_array_add_object_element (opened->summaries, summary);
    }
  return g_steal_pointer (&opened);
}

typedef struct {
  char *db;
  gint64 sweep_id;
} open_job;

static void
open_job_free (gpointer data)
{
  open_job *j = data;
  g_free (j->db);
  g_free (j);
}

static void
open_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  open_job *j = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (j->db, &error);
  ls_sweep_opened *opened = NULL;
  if (!store && g_error_matches (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND))
    {
      /* nothing recorded yet */
      opened = g_new0 (ls_sweep_opened, 1);
      opened->sweeps = g_array_new (FALSE, TRUE, sizeof (ls_sweep_entry));
      g_array_set_clear_func (opened->sweeps, entry_clear);
    }
  else if (store)
    opened = ls_sweep_open (store, j->sweep_id, &error);
  if (g_task_return_error_if_cancelled (task))
    {
      ls_sweep_opened_free (opened);
      return;
    }
  if (opened)
    g_task_return_pointer (task, opened, (GDestroyNotify) ls_sweep_opened_free);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

void
ls_sweep_open_async (const char *db, gint64 sweep_id, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  open_job *j = g_new0 (open_job, 1);
  j->db = g_strdup (db);
  j->sweep_id = sweep_id;
  g_task_set_source_tag (task, ls_sweep_open_async);
  g_task_set_task_data (task, j, open_job_free);
  g_task_run_in_thread (task, open_thread);
}

ls_sweep_opened *
ls_sweep_open_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

char *
ls_sweep_entry_label (const ls_sweep_entry *entry)
{
  g_autofree char *when = ls_chart_time_text (entry->started_at);
  g_autofree char *runs = g_strdup_printf (g_dngettext (NULL, "%u run", "%u runs", entry->n_runs), entry->n_runs);
  g_autofree char *sweep = g_strdup_printf (_("Sweep %lld"), (long long) entry->sweep_id);
  if (entry->n_failed == 0)
    return g_strdup_printf ("%s · %s · %s", sweep, when, runs);
  g_autofree char *failed = g_strdup_printf (g_dngettext (NULL, "%u failed", "%u failed", entry->n_failed),
                                             entry->n_failed);
  return g_strdup_printf ("%s · %s · %s, %s", sweep, when, runs, failed);
}

char *
ls_sweep_failures_text (JsonArray *summaries)
{
  guint n = json_array_get_length (summaries), failed = 0;
  const char *reason = NULL;
  for (guint i = 0; i < n; i++)
    {
      JsonObject *s = json_array_get_object_element (summaries, i);
      if (g_strcmp0 (json_object_get_string_member_with_default (s, "status", ""), "failed") != 0)
        continue;
      failed++;
      if (!reason)
        reason = json_object_get_string_member_with_default (s, "error", NULL);
    }
  if (failed == 0)
    return NULL;
  return g_strdup_printf (_("%u of %u failed: %s"), failed, n, reason && reason[0] ? reason : _("no reason was recorded"));
}
