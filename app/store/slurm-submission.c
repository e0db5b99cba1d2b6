#include "app/store/slurm-submission.h"

#include "app/store/store-private.h"

void
ls_slurm_submission_clear (ls_slurm_submission *s)
{
  g_clear_pointer (&s->run_dir, g_free);
  g_clear_pointer (&s->jobs, g_free);
  g_clear_pointer (&s->labels, g_free);
}

gboolean
ls_store_slurm_submission_put (ls_store *store, const char *sweep_uuid, const ls_slurm_submission *s,
                               GError **error)
{
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  g_autofree char *now = ls_store_now ();
  int rc = sqlite3_prepare_v2 (db,
                               "INSERT INTO slurm_submission (sweep_uuid, run_dir, jobs, labels, configurations, "
                               "tasks, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sweep_uuid) DO NOTHING",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "recording a Slurm submission", error);
  sqlite3_bind_text (st, 1, sweep_uuid, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 2, s->run_dir, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 3, s->jobs, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (st, 4, s->labels, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (st, 5, s->configurations);
  sqlite3_bind_int64 (st, 6, s->tasks);
  sqlite3_bind_text (st, 7, now, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  sqlite3_finalize (st);
  return rc == SQLITE_DONE ? TRUE : ls_store_set_error (store, rc, "recording a Slurm submission", error);
}

int
ls_store_slurm_submission_get (ls_store *store, const char *sweep_uuid, ls_slurm_submission *out, GError **error)
{
  sqlite3 *db = ls_store_db (store);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2 (db,
                               "SELECT run_dir, jobs, labels, configurations, tasks FROM slurm_submission "
                               "WHERE sweep_uuid = ?",
                               -1, &st, NULL);
  if (rc != SQLITE_OK)
    return ls_store_set_error (store, rc, "reading the Slurm submissions", error), -1;
  sqlite3_bind_text (st, 1, sweep_uuid, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (st);
  int found = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
  if (found == 1)
    {
      out->run_dir = g_strdup ((const char *) sqlite3_column_text (st, 0));
      out->jobs = g_strdup ((const char *) sqlite3_column_text (st, 1));
      out->labels = g_strdup ((const char *) sqlite3_column_text (st, 2));
      out->configurations = sqlite3_column_int64 (st, 3);
      out->tasks = sqlite3_column_int64 (st, 4);
    }
  else if (found < 0)
    ls_store_set_error (store, rc, "reading the Slurm submissions", error);
  sqlite3_finalize (st);
  return found;
}
