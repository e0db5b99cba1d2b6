/* libFuzzer: a Slurm run folder's manifest (slurm.json) of any bytes, read
 * by `loadscope sweep --slurm-collect` (ls_slurm_run_load, app/slurm/): a
 * refusal names the file and why; what loads gives a label for every task
 * and a progress line. The same bytes as a task's exit file. GLib
 * criticals and warnings abort: a typed getter on the wrong type (a label
 * that is a number) is a finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "app/slurm/slurm.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
abort_on_warning (const char *domain, GLogLevelFlags level, const char *message, gpointer user)
{
  fprintf (stderr, "%s: %s\n", domain ? domain : "GLib", message);
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static gboolean started;
  if (!started)
    {
      g_log_set_default_handler (abort_on_warning, NULL);
      started = TRUE;
    }
  /* fuzz_write_input writes into the temporary folder itself: the folder
   * is that one, the manifest its slurm.json. */
  fuzz_write_input ("slurm.json", data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_slurm_run) run = ls_slurm_run_load (fuzz_tmp_dir (), &error);
  if (!run)
    fuzz_require_message ("refusing slurm.json", error ? error->message : NULL);
  else
    {
      guint n = ls_slurm_run_n_tasks (run);
      if (n == 0 || n > LS_SLURM_MAX_TASKS)
        abort ();
      for (guint t = 0; t < n; t++)
        if (!ls_slurm_run_label (run, t) || ls_slurm_run_task (run, t)->exit_code != -1)
          abort ();
      g_autofree char *progress = ls_slurm_run_progress_text (run, NULL);
      g_autofree char *ids = ls_slurm_run_job_ids (run);
      const char *uuid = ls_slurm_run_sweep_uuid (run);
      if (!progress || !ids || (uuid && !g_uuid_string_is_valid (uuid)))
        abort ();
    }

  /* The bytes as an exit file's text: a status 0..255 or nothing. */
  g_autofree char *text = g_strndup ((const char *) data, size);
  int code = -1;
  if (ls_slurm_exit_status_parse (text, &code) && (code < 0 || code > 255))
    abort ();
  return 0;
}
