/* The headless default: generate a sample JPEG dataset once (in the cache
 * folder), sweep workers 0,1,2,4 x pin off,staging over it into the store,
 * and print the comparison, the recommendation and verdict and where the history is;
 * write the sweep's headline charts as PNG files and print their paths. */
#include "app/cli/cli-demo.h"
#include "app/cli/cli-args.h"
#include "app/cli/cli-sweep.h"
#include "app/core/i18n.h"

#include <stdio.h>
#include <unistd.h>

#include "app/chart/chart-render.h"
#include "app/report/chart-store.h"
#include "app/maker/dataset-maker.h"
#include "app/core/verdict.h"
#include "app/core/run-options.h"
#include "app/maker/sample-dataset.h"
#include "app/store/store.h"
#include "app/sweep/sweep-text.h"

/* 12 batches of 64: 768 of the 800 sample images, one epoch, as many
 * images per run as the demo loaded before the defaults were one set. */
#define DEMO_BATCHES "12"

static void
show_generation (uint64_t done, uint64_t total, uint64_t bytes, void *user)
{
  static gint64 last;
  gint64 now = g_get_monotonic_time ();
  (void) user;
  if (done != total && now - last < 200000)
    return;
  last = now;
  fputs ("\r  ", stderr);
  fprintf (stderr, _("%llu of %llu images, %.1f MB"), (unsigned long long) done, (unsigned long long) total, bytes / 1e6);
  if (done == total)
    fprintf (stderr, "\n");
}

static char *
sample_dataset (GError **error)
{
  g_autofree char *path = ls_sample_dataset_path ();
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    fprintf (stderr, _("Generating the sample dataset (%d JPEG images like ImageNet's, once) in %s\n"), LS_SAMPLE_IMAGES,
             path);
  return ls_sample_dataset_ensure (isatty (STDERR_FILENO) ? show_generation : NULL, NULL, NULL, error);
}

int
ls_cli_demo (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- the headless default: a sample dataset and a sweep"));
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  g_autofree char *dataset = NULL;
  g_autofree char *charts_dir = NULL;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store"), N_("PATH") },
    { "dataset", 0, 0, G_OPTION_ARG_FILENAME, &dataset, N_("Use this dataset instead of the sample one"), N_("PATH") },
    { "charts-dir", 0, 0, G_OPTION_ARG_FILENAME, &charts_dir,
      N_("Write the charts here (default: $XDG_DATA_HOME/loadscope/charts)"), N_("DIR") },
    { NULL },
  };
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  /* The option texts through the catalogue (N_ above); the knobs' names
   * and defaults (run-options.h) stay as typed. */
  g_autofree char *defaults = ls_run_defaults_text ();
  g_autofree char *each_run = g_strdup_printf (_("Each run: %s batches, the first 2 not measured; every other knob as\n"
                                                  "`loadscope run` has it: %s."),
                                                DEMO_BATCHES, defaults);
  g_autofree char *summary = g_strdup_printf (
    "%s\n\n%s",
    _("Generates a sample dataset of JPEG images (once), runs workers 0,1,2,4 x pin\n"
      "off,staging over it into the run store, and prints the comparison, a\n"
      "recommendation and the verdict (the limiting stage and the knob to turn),\n"
      "and writes the sweep's charts (GPU utilization and\n"
      "throughput, batch wait, peak memory against workers) as PNG files.\n"
      "Without a GPU the consumer is the simulated one, and says so."),
    each_run);
  g_option_context_set_summary (context, summary);
  if (!ls_cli_parse_args (context, &argc, &argv, &error))
    {
      fprintf (stderr, "loadscope demo: %s\n", error->message);
      return 2;
    }
  if (!dataset && !(dataset = sample_dataset (&error)))
    {
      fprintf (stderr, "loadscope demo: %s\n", error->message);
      return 1;
    }

  g_autofree char *store_path = db ? g_strdup (db) : ls_store_default_path ();
  /* The knobs not swept are the defaults of every run (run-options.h). */
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();
  static const int workers[] = { 0, 1, 2, 4 };
  ls_sweep_request_add (request, LS_SWEEP_KNOB_DATASET, dataset);
  for (guint i = 0; i < G_N_ELEMENTS (workers); i++)
    ls_sweep_request_add_int (request, LS_SWEEP_KNOB_WORKERS, workers[i]);
  ls_sweep_request_add (request, LS_SWEEP_KNOB_PIN, "off");
  ls_sweep_request_add (request, LS_SWEEP_KNOB_PIN, "staging");
  ls_sweep_request_add (request, LS_SWEEP_KNOB_BATCHES, DEMO_BATCHES);
  ls_sweep_request_add_int (request, LS_SWEEP_KNOB_WARMUP, 2);
  ls_sweep_request_add (request, LS_SWEEP_KNOB_SINK, "auto");
  request->db = g_strdup (store_path);
  ls_cli_sweep_result result;
  printf (_("Loadscope demo: %s, workers 0,1,2,4 x pin off,staging, %s batches each;\n"
            "the other knobs as every run has them: %s\n\n"),
          dataset, DEMO_BATCHES, defaults);
  fflush (stdout);
  int rc = ls_cli_sweep_run (request, LS_CLI_SWEEP_QUIET, &result);
  if (rc == 2 || !result.summaries)
    {
      ls_cli_sweep_result_clear (&result);
      return rc ? rc : 1;
    }
  ls_sweep_print_table (stdout, result.summaries);
  printf ("\n");
  ls_verdict verdict;
  ls_verdict_for_sweep (result.summaries, 0, &verdict);
  ls_verdict_print (stdout, &verdict);
  ls_verdict_clear (&verdict);
  printf (_("\nThe runs are recorded in %s (sweep %lld).\n"), result.store_path ? result.store_path : store_path,
          (long long) result.sweep_id);
  printf ("%s\n", _("See them with `loadscope history`, one run with `loadscope show RUN`."));
  if (result.sweep_id > 0)
    {
      g_autoptr (ls_store) store = ls_store_open (result.store_path ? result.store_path : store_path, &error);
      g_auto (GStrv) pngs = store ? ls_chart_sweep_write_pngs (store, result.sweep_id, charts_dir, 0, 0, &error) : NULL;
      if (pngs)
        {
          printf ("\n%s\n", _("Charts of the sweep:"));
          for (guint i = 0; pngs[i]; i++)
            printf ("  %s\n", pngs[i]);
        }
      else
        {
          fprintf (stderr, _("loadscope demo: the charts were not written: %s\n"), error->message);
          rc = rc ? rc : 1;
        }
    }
  ls_cli_sweep_result_clear (&result);
  return rc;
}
