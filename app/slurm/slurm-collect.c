/* Collecting a run folder: each task's store merged into the local
 * history through the checked import (ls_import_file_runs: every field
 * checked, runs by uuid, so collecting twice adds nothing), then a word on
 * every task that did not end well: its Slurm state, node and the tail of
 * its log. */
#include "app/slurm/slurm.h"

#include <string.h>

#include "app/store/import.h"
#include "app/store/store-query.h"

#define LOG_TAIL_LINES 8

/* The last lines of a task's log, indented; NULL when there is none. */
static char *
log_tail (const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return NULL;
  while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
    text[--len] = '\0';
  if (len == 0)
    return g_strdup ("    (empty)\n");
  const char *start = text + len;
  for (int n = 0; start > text && n < LOG_TAIL_LINES; n++)
    {
      start--;
      while (start > text && start[-1] != '\n')
        start--;
    }
  GString *s = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (start, "\n", -1);
  for (char **l = lines; *l; l++)
    g_string_append_printf (s, "    | %s\n", *l);
  return g_string_free (s, FALSE);
}

static void
report_task (FILE *out, const ls_slurm_run *run, guint t)
{
  const ls_task_info *info = ls_slurm_run_task (run, t);
  g_autofree char *log_name = g_strdup_printf ("task-%u.log", t);
  g_autofree char *log = g_build_filename (ls_slurm_run_dir (run), "logs", log_name, NULL);
  g_autofree char *tail = log_tail (log);
  const char *word = info->state == LS_TASK_UNKNOWN ? (tail ? "lost" : "never started") : ls_task_state_word (info->state);

  fprintf (out, "task %u (%s): %s", t, ls_slurm_run_label (run, t), word);
  if (info->slurm_state)
    fprintf (out, " [Slurm: %s]", info->slurm_state);
  if (info->exit_code >= 0 && tail) /* Slurm says 0:0 for a task that never started */
    fprintf (out, ", exit status %d", info->exit_code);
  if (info->node)
    fprintf (out, ", on %s", info->node);
  fprintf (out, "\n");
  if (tail)
    fprintf (out, "  %s, last lines:\n%s", log, tail);
  else
    fprintf (out, "  no log (%s): it never started\n", log);
}

/* The runs imported from the run folder, counted by the node they ran on. */
static char *
runs_by_node (ls_store *store, const char *sweep_uuid)
{
  g_autoptr (GError) error = NULL;
  gint64 sweep_id = sweep_uuid ? ls_store_find_sweep (store, sweep_uuid, &error) : -1;
  if (sweep_id < 0)
    return NULL;
  g_autoptr (ls_store_rows) rows
      = ls_store_rows_new (store,
                           "SELECT m.hostname, count (*) FROM run r JOIN machine m ON m.id = r.machine_id "
                           "WHERE r.sweep_id = ? GROUP BY m.hostname ORDER BY m.hostname",
                           &sweep_id, 1, "reading the sweep's runs", &error);
  GString *s = g_string_new (NULL);
  while (rows && ls_store_rows_next (rows, &error))
    g_string_append_printf (s, "%s%s %" G_GINT64_FORMAT, s->len ? ", " : "", ls_store_rows_get_text (rows, 0),
                            ls_store_rows_get_int (rows, 1));
  return g_string_free (s, s->len == 0);
}

int
ls_slurm_collect (ls_slurm_run *run, const char *db, FILE *out)
{
  g_autoptr (GError) error = NULL;
  const char *dir = ls_slurm_run_dir (run);
  guint n = ls_slurm_run_n_tasks (run), n_active = 0, stores = 0, bad = 0, unfinished = 0;
  ls_import_counts total = { 0 };
  int rc = 0;

  ls_slurm_run_refresh (run);
  g_autofree char *progress = ls_slurm_run_progress_text (run, &n_active);

  g_autoptr (ls_store) store = ls_store_open (db, &error);
  if (!store)
    {
      fprintf (out, "loadscope sweep: %s\n", error->message);
      return 1;
    }

  /* The sweep row first (seed.sqlite: the sweep and the submitting
   * machine), so the sweep exists even when no task left a store. */
  g_autofree char *seed = g_build_filename (dir, "seed.sqlite", NULL);
  ls_import_counts seed_counts = { 0 };
  if (g_file_test (seed, G_FILE_TEST_EXISTS) && !ls_import_file (store, seed, &seed_counts, &error))
    {
      fprintf (out, "loadscope sweep: %s\n", error->message);
      g_clear_error (&error);
      rc = 1;
    }

  for (guint t = 0; t < n; t++)
    {
      g_autofree char *name = g_strdup_printf ("task-%u.sqlite", t);
      g_autofree char *path = g_build_filename (dir, "tasks", name, NULL);
      ls_import_counts counts = { 0 };
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      stores++;
      if (!ls_import_file (store, path, &counts, &error))
        {
          fprintf (out, "task %u: its store could not be merged: %s\n", t, error->message);
          g_clear_error (&error);
          rc = 1;
          continue;
        }
      total.runs_imported += counts.runs_imported;
      total.runs_present += counts.runs_present;
    }

  for (guint t = 0; t < n; t++)
    {
      ls_task_state st = ls_slurm_run_task (run, t)->state;
      if (st == LS_TASK_DONE || st == LS_TASK_PENDING || st == LS_TASK_RUNNING)
        continue;
      report_task (out, run, t);
      bad++;
      if (st != LS_TASK_FAILED)
        unfinished++; /* cancelled, timed out, lost or never started */
    }

  /* The sweep ends once nothing is queued: done when every task ran
   * (whatever its outcome), else interrupted. */
  const char *uuid = ls_slurm_run_sweep_uuid (run);
  gint64 sweep_id = uuid ? ls_store_find_sweep (store, uuid, NULL) : -1;
  const char *sweep_status = n_active ? "running" : unfinished ? "interrupted" : "done";
  if (sweep_id > 0 && n_active == 0)
    {
      g_autofree char *reason = unfinished ? g_strdup_printf ("%u of %u Slurm tasks were cancelled, timed out or never ran",
                                                             unfinished, n)
                                           : NULL;
      if (!ls_store_sweep_end (store, sweep_id, unfinished ? "interrupted" : "done", reason, &error))
        {
          fprintf (out, "loadscope sweep: %s\n", error->message);
          g_clear_error (&error);
          rc = 1;
        }
    }

  g_autofree char *nodes = runs_by_node (store, uuid);
  fprintf (out, "%s\n", progress);
  fprintf (out, "collected %s: %u new run%s (%u already present) from %u task store%s into %s\n", dir,
           total.runs_imported, total.runs_imported == 1 ? "" : "s", total.runs_present, stores,
           stores == 1 ? "" : "s", ls_store_path (store));
  if (sweep_id > 0)
    fprintf (out, "sweep %" G_GINT64_FORMAT ": %s; runs by node: %s\n", sweep_id,
             n_active ? "running (tasks still queued or running: collect again when they end)" : sweep_status,
             nodes ? nodes : "none");
  if (n_active)
    rc = 1;
  return rc || bad ? 1 : 0;
}
