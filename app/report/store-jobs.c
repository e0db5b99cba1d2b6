/* The History's store work off the GTK thread (store-jobs.h). */
#include "app/report/store-jobs.h"

#include "app/report/export-file.h"
#include "app/report/report.h"
#include "app/store/store-query.h"

typedef enum { JOB_COMPARE, JOB_DELETE, JOB_EXPORT, JOB_REPORT, JOB_IMPORT } job_kind;

typedef struct {
  job_kind kind;
  char *db, *path;
  GArray *ids;
  gboolean dark;
  ls_import_counts counts;
} job;

static void
job_free (gpointer data)
{
  job *j = data;
  g_free (j->db);
  g_free (j->path);
  if (j->ids)
    g_array_unref (j->ids);
  g_free (j);
}

static GArray *
copy_ids (GArray *ids)
{
  GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (gint64), ids ? ids->len : 0);
  if (ids)
    g_array_append_vals (copy, ids->data, ids->len);
  return copy;
}

static gboolean
do_job (job *j, ls_compare_table **table, GError **error)
{
  gboolean writes = j->kind == JOB_DELETE || j->kind == JOB_IMPORT;
  g_autoptr (ls_store) store = writes ? ls_store_open (j->db, error) : ls_store_open_to_read (j->db, error);
  if (!store)
    return FALSE;
  const gint64 *ids = j->ids ? (const gint64 *) (const void *) j->ids->data : NULL;
  guint n = j->ids ? j->ids->len : 0;
  switch (j->kind)
    {
    case JOB_COMPARE:
      *table = ls_compare_table_load (store, ids, n, error);
      return *table != NULL;
    case JOB_DELETE:
      return ls_store_delete_runs (store, ids, n, error);
    case JOB_EXPORT:
      return ls_export_by_extension (store, j->ids, j->path, j->dark, error);
    case JOB_REPORT:
      {
        ls_report_format format = g_str_has_suffix (j->path, ".md") ? LS_REPORT_MARKDOWN : LS_REPORT_HTML;
        ls_report_selection selection = { .ids = ids, .n_ids = n };
        g_autoptr (ls_report) report = ls_report_write (store, &selection, format, j->path, error);
        return report != NULL;
      }
    case JOB_IMPORT:
      return ls_import_file (store, j->path, &j->counts, error);
    }
  g_assert_not_reached ();
}

static void
in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  job *j = data;
  GError *error = NULL;
  ls_compare_table *table = NULL;
  if (!do_job (j, &table, &error))
    g_task_return_error (task, error);
  else if (j->kind == JOB_COMPARE)
    g_task_return_pointer (task, table, (GDestroyNotify) ls_compare_table_free);
  else
    g_task_return_boolean (task, TRUE);
}

static void
start (job_kind kind, const char *db, GArray *ids, const char *path, gboolean dark, GCancellable *cancellable,
       GAsyncReadyCallback callback, gpointer user_data)
{
  job *j = g_new0 (job, 1);
  j->kind = kind;
  j->db = g_strdup (db);
  j->path = g_strdup (path);
  j->ids = kind == JOB_IMPORT ? NULL : copy_ids (ids);
  j->dark = dark;
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, start);
  g_task_set_task_data (task, j, job_free);
  g_task_run_in_thread (task, in_thread);
}

void
ls_store_job_compare (const char *db, GArray *ids, GCancellable *cancellable, GAsyncReadyCallback callback,
                      gpointer user_data)
{
  start (JOB_COMPARE, db, ids, NULL, FALSE, cancellable, callback, user_data);
}

ls_compare_table *
ls_store_job_compare_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ls_store_job_delete (const char *db, GArray *ids, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  start (JOB_DELETE, db, ids, NULL, FALSE, cancellable, callback, user_data);
}

void
ls_store_job_export (const char *db, GArray *ids, const char *path, gboolean dark, GCancellable *cancellable,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  start (JOB_EXPORT, db, ids, path, dark, cancellable, callback, user_data);
}

void
ls_store_job_report (const char *db, GArray *ids, const char *path, GCancellable *cancellable,
                     GAsyncReadyCallback callback, gpointer user_data)
{
  start (JOB_REPORT, db, ids, path, FALSE, cancellable, callback, user_data);
}

gboolean
ls_store_job_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
ls_store_job_import (const char *db, const char *path, GCancellable *cancellable, GAsyncReadyCallback callback,
                     gpointer user_data)
{
  start (JOB_IMPORT, db, NULL, path, FALSE, cancellable, callback, user_data);
}

gboolean
ls_store_job_import_finish (GAsyncResult *result, ls_import_counts *counts, GError **error)
{
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  const job *j = g_task_get_task_data (G_TASK (result));
  *counts = j->counts;
  return TRUE;
}
