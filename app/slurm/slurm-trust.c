/* A run folder's manifest against what the home store submitted. The
 * folder sits on a shared file system: anyone who can write there can
 * write slurm.json, so its sweep_uuid, job ids and labels are claims. */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"

#include <string.h>

#include "app/store/slurm-submission.h"
#include "app/store/store-query.h"

static void
from_manifest (const ls_slurm_run *run, ls_slurm_submission *out)
{
  out->run_dir = g_canonicalize_filename (ls_slurm_run_dir (run), NULL);
  out->jobs = ls_slurm_run_jobs_text (run);
  out->labels = ls_slurm_run_labels_text (run);
  out->configurations = ls_slurm_run_n_configurations (run);
  out->tasks = ls_slurm_run_n_tasks (run);
}

gboolean
ls_slurm_record_submission (const ls_slurm_run *run, const char *db, GError **error)
{
  const char *uuid = ls_slurm_run_sweep_uuid (run);
  if (!uuid)
    return TRUE;
  g_autoptr (ls_store) store = ls_store_open (db, error);
  if (!store)
    return FALSE;
  g_auto (ls_slurm_submission) mine = { 0 };
  from_manifest (run, &mine);
  return ls_store_slurm_submission_put (store, uuid, &mine, error);
}

static gboolean
refuse (GError **error, const ls_slurm_run *run, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
refuse (GError **error, const ls_slurm_run *run, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *why = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_autofree char *path = g_build_filename (ls_slurm_run_dir (run), "slurm.json", NULL);
  g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, _("%s: %s; nothing is collected"), path, why);
  return FALSE;
}

gboolean
ls_slurm_check_manifest (ls_store *store, const ls_slurm_run *run, GError **error)
{
  const char *uuid = ls_slurm_run_sweep_uuid (run);
  if (!uuid)
    return TRUE; /* no sweep named: its stores may hold none (ls_import_file_in_sweep) */
  g_auto (ls_slurm_submission) mine = { 0 }, home = { 0 };
  from_manifest (run, &mine);
  int found = ls_store_slurm_submission_get (store, uuid, &home, error);
  if (found < 0)
    return FALSE;
  if (found == 1)
    {
      if (g_strcmp0 (mine.jobs, home.jobs) != 0)
        return refuse (error, run,
                       "its jobs (%s) are not those this store submitted for sweep %s (%s, from %s)",
                       *mine.jobs ? mine.jobs : "none", uuid, *home.jobs ? home.jobs : "none", home.run_dir);
      if (mine.configurations != home.configurations || mine.tasks != home.tasks)
        return refuse (error, run,
                       "it claims %" G_GINT64_FORMAT " configurations in %" G_GINT64_FORMAT " tasks; this store "
                       "submitted %" G_GINT64_FORMAT " in %" G_GINT64_FORMAT " for sweep %s",
                       mine.configurations, mine.tasks, home.configurations, home.tasks, uuid);
      if (g_strcmp0 (mine.labels, home.labels) != 0)
        return refuse (error, run,
                       "its configurations' knobs (labels) are not those this store submitted for sweep %s", uuid);
      return TRUE;
    }
  g_autoptr (GError) local = NULL;
  gint64 sweep_id = ls_store_find_sweep (store, uuid, &local);
  if (sweep_id > 0)
    return refuse (error, run,
                   "its sweep_uuid %s is sweep %" G_GINT64_FORMAT " of this store, which was not submitted to Slurm "
                   "from it (a sweep run here, or imported)",
                   uuid, sweep_id);
  if (local && !g_error_matches (local, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* A folder submitted elsewhere, collected here first: what it says now is
   * what later collects must match. */
  return ls_store_slurm_submission_put (store, uuid, &mine, error);
}
