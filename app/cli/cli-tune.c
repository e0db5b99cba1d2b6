/* `loadscope tune`: the best configuration within budgets (app/analysis/
 * tune.h), measured through the sweep engine and recorded as one sweep. */
#include "app/cli/cli-tune.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/analysis/tune.h"
#include "app/core/run-options.h"
#include "app/core/terminal-text.h"
#include "platform/interrupt.h"

/* Ctrl-C, or the Tune window's Cancel: the run in progress ends
 * interrupted and tune answers from what it measured. */
static volatile sig_atomic_t stops;

/* The budgets a tune takes: below, nothing runs; above, a typo. */
#define TUNE_MIN_MEMORY (1024.0 * 1024)
#define TUNE_MAX_MEMORY (1024.0 * 1024 * 1024 * 1024 * 1024)
#define TUNE_MIN_TIME_S 1.0
#define TUNE_MAX_TIME_S (7 * 24 * 3600.0)

static void
on_progress (const char *line, gpointer quiet)
{
  if (!GPOINTER_TO_INT (quiet))
    fprintf (stderr, "%s\n", line);
}

int
ls_cli_tune (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- find the best loader configuration within budgets"));
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();
  char *values[LS_SWEEP_N_KNOBS] = { 0 };
  GOptionEntry entries[LS_SWEEP_N_KNOBS + 11]; /* + the NULL entry */
  char *memory = NULL, *time_budget = NULL, *db = NULL, *cpu_text = NULL, *on = NULL;
  gint64 cpu_budget = 0, max_runs = 0;
  char *max_runs_text = NULL;
  gboolean json = FALSE, no_db = FALSE, drop_last = FALSE, quiet = FALSE;
  int exit_code = 2;
  ls_tune_options options = { 0 };

  memset (entries, 0, sizeof entries);
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    entries[k] = (GOptionEntry){ ls_sweep_knobs[k].name, 0, 0, G_OPTION_ARG_STRING, &values[k], ls_sweep_knobs[k].help,
                                 "VALUE" };
  guint e = LS_SWEEP_N_KNOBS;
  entries[e++] = (GOptionEntry){ "memory-budget", 0, 0, G_OPTION_ARG_STRING, &memory,
                                 N_("Largest PSS peak of the loader (runner + workers): 4G, 512M"), N_("SIZE") };
  entries[e++] = (GOptionEntry){ "cpu-budget", 0, 0, G_OPTION_ARG_STRING, &cpu_text,
                                 N_("Cores the loader may use, 1 to 256 (workers at most N; default: 2 x the machine's)"),
                                 "N" };
  entries[e++] = (GOptionEntry){ "time-budget", 0, 0, G_OPTION_ARG_STRING, &time_budget,
                                 N_("How long to measure: 120s, 5m (default 120s)"), "T" };
  entries[e++] = (GOptionEntry){ "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the result as JSON"), NULL };
  entries[e++] = (GOptionEntry){ "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store"), N_("PATH") };
  entries[e++] = (GOptionEntry){ "no-db", 0, 0, G_OPTION_ARG_NONE, &no_db, N_("Do not record the runs"), NULL };
  entries[e++] = (GOptionEntry){ "drop-last", 0, 0, G_OPTION_ARG_NONE, &drop_last, N_("Drop each epoch's last partial batch"), NULL };
  entries[e++] = (GOptionEntry){ "max-runs", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &max_runs_text, N_("At most N runs"), "N" };
  entries[e++] = (GOptionEntry){ "quiet", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &quiet, N_("No progress"), NULL };
  entries[e++] = (GOptionEntry){ "on", 0, 0, G_OPTION_ARG_STRING, &on, N_("Measure on a target machine: ssh:HOST or exec:COMMAND (see `loadscope remote --help`)"), N_("TARGET") };
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_autofree char *defaults = ls_run_defaults_text ();
  g_autofree char *summary = g_strdup_printf (
      _("Finds the workers, prefetch, pin mode and persistence that give the most\n"
        "samples/s within the budgets, without running the whole grid: it measures a\n"
        "few points, fits a model of the workers feeding the GPU, measures where the\n"
        "model points, and stops when the predicted gain is inside the noise. Any other\n"
        "run knob holds its value for every run (one value each; give --workers,\n"
        "--prefetch, --pin or --persistent to hold them too). Example:\n"
        "  loadscope tune --dataset D --memory-budget 4G --time-budget 120s --batches 40\n"
        "A script with --ranks N is tuned for the node: workers and threads per rank,\n"
        "only where N x (workers + threads) fits --cpu-budget (default: the machine's\n"
        "cores) and N x rank 0's PSS fits --memory-budget:\n"
        "  loadscope tune --target pytorch --script train_ddp.py --ranks 2 --cpu-budget 8\n"
        "\n"
        "The runs are recorded as one sweep. Knobs not given take the defaults of\n"
        "every run: %s."),
      defaults);
  g_option_context_set_summary (context, summary);

  char **args = argv;
  gboolean parsed = ls_cli_parse_args (context, &argc, &args, &error);
  if (parsed && argc > 1)
    {
      fprintf (stderr, _("loadscope tune: unexpected argument '%s'\n"), args[1]);
      goto out;
    }
  if (!parsed)
    {
      fprintf (stderr, _("loadscope tune: %s\n"), error->message);
      goto out;
    }
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (values[k] && !ls_sweep_request_set_text (request, ls_sweep_knobs[k].name, values[k], &error))
      {
        fprintf (stderr, _("loadscope tune: %s\n"), error->message);
        goto out;
      }
  if (!request->dataset && !ls_sweep_request_is_script (request))
    {
      fprintf (stderr, _("loadscope tune: --dataset is required (a folder, an HDF5 file or \"synthetic\"), or "
                         "--target pytorch --script S\n"));
      goto out;
    }
  if (memory && !ls_tune_parse_size (memory, &options.memory_budget_bytes))
    {
      fprintf (stderr, _("loadscope tune: --memory-budget '%s': not a size (examples: 4G, 512M, 2000000000)\n"), memory);
      goto out;
    }
  /* A number that parses is not yet a budget: 1e30G or 100000h is a typo. */
  if (memory && (options.memory_budget_bytes < TUNE_MIN_MEMORY || options.memory_budget_bytes > TUNE_MAX_MEMORY))
    {
      fprintf (stderr, _("loadscope tune: --memory-budget '%s': must be between 1M and 1P (1024T)\n"), memory);
      goto out;
    }
  if (time_budget && !ls_tune_parse_duration (time_budget, &options.time_budget_s))
    {
      fprintf (stderr, _("loadscope tune: --time-budget '%s': not a duration (examples: 120s, 5m)\n"), time_budget);
      goto out;
    }
  if (time_budget && (options.time_budget_s < TUNE_MIN_TIME_S || options.time_budget_s > TUNE_MAX_TIME_S))
    {
      fprintf (stderr, _("loadscope tune: --time-budget '%s': must be between 1s and 7 days (168h)\n"), time_budget);
      goto out;
    }
  if (cpu_text && !ls_cli_int_in ("--cpu-budget", cpu_text, 1, 256, &cpu_budget, &error))
    {
      fprintf (stderr, _("loadscope tune: %s\n"), error->message);
      goto out;
    }
  if (max_runs_text && !ls_cli_int_in ("--max-runs", max_runs_text, 3, 1000, &max_runs, &error))
    {
      fprintf (stderr, _("loadscope tune: %s\n"), error->message);
      goto out;
    }
  request->no_db = no_db;
  request->db = g_strdup (db);
  request->on = g_strdup (on);
  request->drop_last = drop_last;
  options.base = request;
  options.cpu_budget = (guint) cpu_budget;
  options.max_runs = (guint) max_runs;

  {
    ls_tune_result result;
    stops = 0;
    options.stops = &stops;
    ls_interrupt_listen (&stops, LS_INTERRUPT_COUNT, NULL);
    gboolean ok = ls_tune_run (&options, on_progress, GINT_TO_POINTER (quiet), &result, &error);
    ls_interrupt_stop ();
    if (!ok)
      {
        fprintf (stderr, _("loadscope tune: %s\n"), error->message);
        exit_code = error->domain == LS_TUNE_ERROR && error->code == LS_TUNE_ERROR_FAILED ? 1 : 2;
        if (error->domain == LS_TUNE_ERROR && error->code == LS_TUNE_ERROR_BUDGET)
          exit_code = 1;
        ls_tune_result_clear (&result);
        goto out;
      }
    if (json)
      {
        g_autoptr (JsonNode) node = ls_tune_result_to_json (&result);
        g_autofree char *text = json_to_string (node, TRUE);
        g_autofree char *shown = ls_terminal_json (text);
        printf ("%s\n", shown);
      }
    else
      {
        /* The sweep's recommendation and verdict (its DataLoader line in it), as `sweep` prints them. */
        printf ("%s\n", result.verdict ? result.verdict : _("no configuration finished: nothing to recommend"));
      }
    if (!json && result.store_path)
      fprintf (stderr, ngettext ("sweep %lld: %u run; recorded in %s\n", "sweep %lld: %u runs; recorded in %s\n", result.runs),
               (long long) result.sweep_id, result.runs,
               result.store_path);
    ls_tune_result_clear (&result);
    exit_code = 0;
  }

out:
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    g_free (values[k]);
  g_free (memory);
  g_free (time_budget);
  g_free (cpu_text);
  g_free (max_runs_text);
  g_free (db);
  g_free (on);
  return exit_code;
}
