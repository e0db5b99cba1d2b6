/* Collecting a run folder: each task's store merged into the local
 * history through the checked import (ls_import_file_runs: every field
 * checked, runs by uuid, so collecting twice adds nothing), then a word on
 * every task that did not end well: its Slurm state, node and the tail of
 * its log. */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"

#include <string.h>

#include "app/core/terminal-text.h"
#include "app/store/import.h"
#include "app/store/store-query.h"

#define LOG_TAIL_LINES 8
/* The most of one log line shown (a 64 KiB line would fill the screen). */
#define LOG_LINE_MAX_BYTES 1024
/* Tasks reported one by one; the rest are counted (a folder may claim
 * 100,000 tasks that never started). */
#define REPORT_MAX_TASKS 50

/* One line of a log for the terminal: escapes (ESC]0;...BEL, ESC[2J) and
 * NUL bytes written out, never passed on. */
static void
append_line (GString *s, const char *p, gsize n)
{
  gsize more = n > LOG_LINE_MAX_BYTES ? n - LOG_LINE_MAX_BYTES : 0;
  n -= more;
  g_string_append (s, "    | ");
  while (n > 0)
    {
      const char *nul = memchr (p, '\0', n);
      gsize k = nul ? (gsize) (nul - p) : n;
      g_autofree char *part = g_strndup (p, k);
      g_autofree char *safe = ls_terminal_text (part);
      g_string_append (s, safe);
      if (k < n)
        {
          g_string_append (s, "\\x00");
          k++;
        }
      p += k;
      n -= k;
    }
  if (more)
    g_string_append_printf (s, _(" ... (%zu bytes more)"), more);
  g_string_append_c (s, '\n');
}

/* The last lines of a task's log (its last LS_SLURM_LOG_TAIL_BYTES only),
 * indented and escaped; NULL with *missing when there is none, NULL with
 * *refused (the reason) for a FIFO, a device, a link. */
static char *
log_tail (const char *path, gboolean *missing, char **refused)
{
  g_autoptr (GError) error = NULL;
  gsize len = 0;
  g_autofree char *text = ls_slurm_folder_read (path, LS_SLURM_LOG_TAIL_BYTES, TRUE, &len, missing, &error);
  if (!text)
    {
      if (!*missing)
        *refused = ls_terminal_text (error->message);
      return NULL;
    }
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
  const char *end = text + len;
  for (const char *p = start; p <= end;)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *stop = nl ? nl : end;
      append_line (s, p, (gsize) (stop - p));
      p = stop + 1;
    }
  return g_string_free (s, FALSE);
}

static void
report_task (FILE *out, const ls_slurm_run *run, guint t)
{
  const ls_task_info *info = ls_slurm_run_task (run, t);
  g_autofree char *log_name = g_strdup_printf ("task-%u.log", t);
  g_autofree char *log = g_build_filename (ls_slurm_run_dir (run), "logs", log_name, NULL);
  gboolean missing = FALSE;
  g_autofree char *refused = NULL;
  g_autofree char *tail = log_tail (log, &missing, &refused);
  const char *word = info->state == LS_TASK_UNKNOWN ? (missing ? "never started" : "lost") : ls_task_state_word (info->state);
  g_autofree char *label = ls_terminal_text (ls_slurm_run_label (run, t));
  g_autofree char *slurm_state = ls_terminal_text (info->slurm_state);
  g_autofree char *node = ls_terminal_text (info->node);
  g_autofree char *shown_log = ls_terminal_text (log);

  fprintf (out, "task %u (%s): %s", t, label, word);
  if (slurm_state)
    fprintf (out, " [Slurm: %s]", slurm_state);
  if (info->exit_code >= 0 && !missing) /* Slurm says 0:0 for a task that never started */
    fprintf (out, _(", exit status %d"), info->exit_code);
  if (node)
    fprintf (out, ", on %s", node);
  fprintf (out, "\n");
  if (tail)
    fprintf (out, _("  %s, last lines:\n%s"), shown_log, tail);
  else if (refused)
    fprintf (out, _("  its log is not read: %s\n"), refused);
  else
    fprintf (out, _("  no log (%s): it never started\n"), shown_log);
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
      = ls_store_query_rows (store, LS_QUERY_SWEEP_RUNS_BY_NODE, &sweep_id, 1, &error);
  GString *s = g_string_new (NULL);
  while (rows && ls_store_rows_next (rows, &error))
    g_string_append_printf (s, "%s%s %" G_GINT64_FORMAT, s->len ? ", " : "", ls_store_rows_get_text (rows, 0),
                            ls_store_rows_get_int (rows, 1));
  return g_string_free (s, s->len == 0);
}

/* A store of the folder is imported only from a regular file: a FIFO would
 * block the import, a link could bring in a store of someone else's.
 * FALSE (said on out) for anything else at path; TRUE when nothing is there. */
static gboolean
store_file_ok (const char *path, FILE *out, const char *name)
{
  if (!g_file_test (path, G_FILE_TEST_EXISTS) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    return TRUE;
  if (ls_slurm_folder_has_file (path))
    return TRUE;
  g_autofree char *shown = ls_terminal_text (path);
  fprintf (out, _("loadscope sweep: %s: %s is not a regular file (a link, a FIFO or a device); not imported\n"), shown,
           name ? name : _("the task's store"));
  return FALSE;
}

int
ls_slurm_collect (ls_slurm_run *run, const char *db, FILE *out)
{
  g_autoptr (GError) error = NULL;
  const char *dir = ls_slurm_run_dir (run);
  guint n = ls_slurm_run_n_tasks (run), n_active = 0, stores = 0, bad = 0, unfinished = 0;
  guint n_stores_read = n;
  ls_import_counts total = { 0 };
  int rc = 0;

  ls_slurm_run_refresh (run);
  g_autofree char *progress = ls_slurm_run_progress_text (run, &n_active);

  g_autoptr (ls_store) store = ls_store_open (db, &error);
  if (!store)
    {
      g_autofree char *why = ls_terminal_text (error->message);
      fprintf (out, "loadscope sweep: %s\n", why);
      return 1;
    }

  /* The manifest is a claim: checked against what this store submitted
   * before anything of the folder is merged. */
  const char *uuid = ls_slurm_run_sweep_uuid (run);
  if (!ls_slurm_check_manifest (store, run, &error))
    {
      g_autofree char *why = ls_terminal_text (error->message);
      fprintf (out, "loadscope sweep: %s\n", why);
      return 2;
    }

  /* The sweep row first (seed.sqlite: the sweep and the submitting
   * machine), so the sweep exists even when no task left a store. */
  g_autofree char *seed = g_build_filename (dir, "seed.sqlite", NULL);
  ls_import_counts seed_counts = { 0 };
  if (!store_file_ok (seed, out, "seed.sqlite"))
    rc = 1;
  else if (g_file_test (seed, G_FILE_TEST_EXISTS) && !ls_import_file_in_sweep (store, seed, uuid, &seed_counts, &error))
    {
      g_autofree char *why = ls_terminal_text (error->message);
      fprintf (out, "loadscope sweep: %s\n", why);
      g_clear_error (&error);
      rc = 1;
    }

  /* tasks/ is read only where it is the run folder's own: a link to a
   * folder elsewhere would bring in stores that are not this sweep's. */
  g_autofree char *tasks_dir = g_build_filename (dir, "tasks", NULL);
  if (g_file_test (tasks_dir, G_FILE_TEST_IS_SYMLINK))
    {
      g_autofree char *shown = ls_terminal_text (tasks_dir);
      fprintf (out, _("loadscope sweep: %s is a link, not the run folder's own folder; its stores are not imported\n"),
               shown);
      rc = 1;
      n_stores_read = 0;
    }
  for (guint t = 0; t < n_stores_read; t++)
    {
      g_autofree char *name = g_strdup_printf ("task-%u.sqlite", t);
      g_autofree char *path = g_build_filename (dir, "tasks", name, NULL);
      ls_import_counts counts = { 0 };
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      if (!store_file_ok (path, out, NULL))
        {
          rc = 1;
          continue;
        }
      stores++;
      if (!ls_import_file_in_sweep (store, path, uuid, &counts, &error))
        {
          g_autofree char *why = ls_terminal_text (error->message);
          fprintf (out, _("task %u: its store could not be merged: %s\n"), t, why);
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
      if (bad < REPORT_MAX_TASKS)
        report_task (out, run, t);
      bad++;
      if (st != LS_TASK_FAILED)
        unfinished++; /* cancelled, timed out, lost or never started */
    }

  if (bad > REPORT_MAX_TASKS)
    fprintf (out, _("... and %u more tasks that did not end well (the first %d are shown)\n"), bad - REPORT_MAX_TASKS,
             REPORT_MAX_TASKS);

  /* The sweep ends once nothing is queued: done when every task ran
   * (whatever its outcome), else interrupted. */
  gint64 sweep_id = uuid ? ls_store_find_sweep (store, uuid, NULL) : -1;
  const char *sweep_status = n_active ? "running" : unfinished ? "interrupted" : "done";
  if (sweep_id > 0 && n_active == 0)
    {
      /* untranslated: kept in the store as the sweep's reason */
      g_autofree char *reason = unfinished ? g_strdup_printf ("%u of %u Slurm tasks were cancelled, timed out or never ran",
                                                             unfinished, n)
                                           : NULL;
      gboolean ended = FALSE;
      if (!ls_store_sweep_end_unowned (store, sweep_id, unfinished ? "interrupted" : "done", reason, &ended, &error))
        {
          g_autofree char *why = ls_terminal_text (error->message);
          fprintf (out, "loadscope sweep: %s\n", why);
          g_clear_error (&error);
          rc = 1;
        }
    }

  g_autofree char *nodes_raw = runs_by_node (store, uuid);
  g_autofree char *nodes = ls_terminal_text (nodes_raw);
  g_autofree char *shown_dir = ls_terminal_text (dir);
  g_autofree char *shown_store = ls_terminal_text (ls_store_path (store));
  fprintf (out, "%s\n", progress);
  fprintf (out, _("collected %s: %u new run%s (%u already present) from %u task store%s into %s\n"), shown_dir,
           total.runs_imported, total.runs_imported == 1 ? "" : "s", total.runs_present, stores,
           stores == 1 ? "" : "s", shown_store);
  if (sweep_id > 0)
    fprintf (out, _("sweep %lld: %s; runs by node: %s\n"), (long long) sweep_id,
             n_active ? _("running (tasks still queued or running: collect again when they end)") : sweep_status,
             nodes ? nodes : "none");
  if (n_active)
    rc = 1;
  return rc || bad ? 1 : 0;
}
