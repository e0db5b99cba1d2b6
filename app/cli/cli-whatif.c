/* `loadscope whatif --run ID [changes]`: the what-if model (app/analysis/)
 * fitted to a run and its sweep, predicting the run with other knobs; with
 * --ranks N, a node of N ranks on --cores C (whatif-ranks.h). */
#include "app/cli/cli-whatif.h"
#include "app/core/i18n.h"
#include "app/cli/cli-args.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/analysis/whatif-basis.h"
#include "app/analysis/whatif-ranks.h"
#include "app/store/store-query.h"
#include "app/core/terminal-text.h"

/* --ranks N: the node's prediction. cores <= 0: the run's machine's. */
static int
whatif_ranks (const char *db, const char *run, int ranks, double cores, double background, int workers,
              gboolean siblings, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  gint64 id = store ? ls_store_find_run (store, run, &error) : -1;
  g_autoptr (ls_whatif_ranks_basis) basis
      = id > 0 ? ls_whatif_ranks_basis_load (store, id, siblings, workers, &error) : NULL;
  if (!basis)
    {
      fprintf (stderr, _("loadscope whatif: %s\n"), error->message);
      return error->domain == LS_STORE_ERROR && error->code == LS_STORE_ERROR_NOT_FOUND ? 2 : 1;
    }
  const ls_whatif_ranks_run *measured = &g_array_index (basis->runs, ls_whatif_ranks_run, 0);
  ls_whatif_ranks_prediction pred;
  ls_whatif_ranks_predict (basis, (guint) ranks, cores > 0 ? cores : measured->cores, background, &pred);
  if (json)
    {
      g_autoptr (JsonNode) node = ls_whatif_ranks_to_json (basis, &pred);
      g_autofree char *text = json_to_string (node, TRUE);
      g_autofree char *shown = ls_terminal_json (text);
      printf ("%s\n", shown);
      return 0;
    }
  g_autofree char *words = ls_whatif_ranks_explain (basis, &pred);
  printf ("%s\n%s", words, ngettext ("Basis: run", "Basis: runs", basis->runs->len));
  for (guint i = 0; i < basis->runs->len; i++)
    printf (" %" G_GINT64_FORMAT, g_array_index (basis->runs, ls_whatif_ranks_run, i).id);
  printf ("\n");
  return 0;
}

int
ls_cli_whatif (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (_("- predict a run with other knobs"));
  g_autoptr (GError) error = NULL;
  char *run = NULL, *db = NULL;
  /* Text, checked below: a number option of GOption cannot say "not given". */
  char *workers_text = NULL, *prefetch_text = NULL, *model_text = NULL, *speed_text = NULL, *cores_text = NULL,
       *storage_text = NULL, *step_text = NULL, *ranks_text = NULL, *background_text = NULL;
  gint64 workers = -1, prefetch = -1, ranks = -1;
  double model_ms = -1, gpu_speed = -1, cores = -1, storage = -1, background = -1;
  gboolean json = FALSE, alone = FALSE;
  int exit_code = 2;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_STRING, &run, N_("The measured run (id or uuid prefix)"), N_("ID") },
    { "workers", 0, 0, G_OPTION_ARG_STRING, &workers_text, N_("Predict with N workers (0 to 256)"), "N" },
    { "prefetch", 0, 0, G_OPTION_ARG_STRING, &prefetch_text, N_("Predict with prefetch P (1 to 64)"), "P" },
    { "model-ms", 0, 0, G_OPTION_ARG_STRING, &model_text, N_("Predict with a model step of X ms (0 to 60000)"), "X" },
    { "step-ms", 0, 0, G_OPTION_ARG_STRING, &step_text,
      N_("Predict with a training step of X ms (a script's, on the CPU or a GPU; 0 to 60000)"), "X" },
    { "gpu-speed", 0, 0, G_OPTION_ARG_STRING, &speed_text, N_("Predict with a GPU K times as fast (step x 1/K; K up to 1000)"),
      "K" },
    { "cores", 0, 0, G_OPTION_ARG_STRING, &cores_text, N_("Predict with C CPU cores (up to 4096)"), "C" },
    { "storage-speed", 0, 0, G_OPTION_ARG_STRING, &storage_text,
      N_("Predict with storage S times as fast (the read stage; S up to 1000)"), "S" },
    { "ranks", 0, 0, G_OPTION_ARG_STRING, &ranks_text,
      N_("Predict a node of N ranks (one DataLoader each; from a script's runs with --ranks; 1 to 64)"), "N" },
    { "background", 0, 0, G_OPTION_ARG_STRING, &background_text,
      N_("With --ranks: other processes' load in cores (default: as measured in the runs; 0: a node running nothing "
      "else)"), "B" },
    { "alone", 0, 0, G_OPTION_ARG_NONE, &alone, N_("Fit to the run alone, not its sweep"), NULL },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, N_("The run store"), N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the prediction as JSON"), NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Predicts throughput, the consumer's busy time and batch wait of a recorded\n"
                                  "run with other knobs, from a queueing model of the workers feeding the\n"
                                  "consumer (a GPU, or a script's training step on the CPU) fitted to the\n"
                                  "run and the other runs of its sweep. --gpu-speed needs a GPU consumer;\n"
                                  "--step-ms sets the step's time either way. With --ranks N (a script's\n"
                                  "run with ranks), a node of N ranks on --cores C, from the CPU per sample,\n"
                                  "memory and slowdown over the cores measured in the run's sweep. Examples:\n"
                                  "  loadscope whatif --run 12 --workers 4 --gpu-speed 2\n"
                                  "  loadscope whatif --run 14 --ranks 8 --cores 32"));
  char **args = argv;
  gboolean parsed = ls_cli_parse_args (context, &argc, &args, &error);
  if (parsed && argc > 1)
    {
      fprintf (stderr, _("loadscope whatif: unexpected argument '%s'\n"), args[1]);
      goto out;
    }
  if (!parsed)
    {
      fprintf (stderr, _("loadscope whatif: %s\n"), error->message);
      goto out;
    }
  if (!run)
    {
      fprintf (stderr, _("loadscope whatif: --run is required (a run id from `loadscope history`)\n"));
      goto out;
    }
  if (model_text && step_text)
    {
      fprintf (stderr, _("loadscope whatif: --model-ms and --step-ms both set the step's time: give one\n"));
      goto out;
    }
  if (step_text)
    model_text = g_steal_pointer (&step_text);
  /* Every value given is checked, out of range or not a number alike. */
  if ((workers_text && !ls_cli_int_in ("--workers", workers_text, 0, 256, &workers, &error))
      || (prefetch_text && !ls_cli_int_in ("--prefetch", prefetch_text, 1, 64, &prefetch, &error))
      || (model_text && !ls_cli_double_in ("--model-ms", model_text, 0, FALSE, 60000, NULL, &model_ms, &error))
      || (speed_text
          && !ls_cli_double_in ("--gpu-speed", speed_text, 0, TRUE, 1000, "2: twice as fast", &gpu_speed, &error))
      || (cores_text && !ls_cli_double_in ("--cores", cores_text, 0, TRUE, 4096, NULL, &cores, &error))
      || (storage_text
          && !ls_cli_double_in ("--storage-speed", storage_text, 0, TRUE, 1000, "2: twice as fast", &storage, &error)))
    {
      fprintf (stderr, _("loadscope whatif: %s\n"), error->message);
      goto out;
    }

  if (background_text && !ranks_text)
    {
      fprintf (stderr, _("loadscope whatif: --background is for --ranks (the model of one loader measures the "
                         "machine's other load itself)\n"));
      goto out;
    }
  if (ranks_text)
    {
      if (!ls_cli_int_in ("--ranks", ranks_text, 1, 64, &ranks, &error)
          || (background_text
              && !ls_cli_double_in ("--background", background_text, 0, FALSE, 4096, NULL, &background, &error)))
        {
          fprintf (stderr, _("loadscope whatif: %s\n"), error->message);
          goto out;
        }
      const char *other = prefetch_text ? "--prefetch" : model_text ? "--model-ms or --step-ms" : speed_text ? "--gpu-speed"
                          : storage_text ? "--storage-speed" : NULL;
      if (other)
        {
          fprintf (stderr, _("loadscope whatif: %s cannot go with --ranks: a node is predicted for --ranks, --cores "
                             "and --workers (per rank) only\n"), other);
          goto out;
        }
      exit_code = whatif_ranks (db, run, (int) ranks, cores, background, (int) workers, !alone, json);
      goto out;
    }

  {
    g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
    gint64 id = store ? ls_store_find_run (store, run, &error) : -1;
    g_autoptr (ls_whatif_basis) basis = id > 0 ? ls_whatif_basis_load (store, id, !alone, &error) : NULL;
    if (!basis)
      {
        fprintf (stderr, _("loadscope whatif: %s\n"), error->message);
        exit_code = error->domain == LS_STORE_ERROR && error->code == LS_STORE_ERROR_NOT_FOUND ? 2 : 1;
        goto out;
      }
    /* Without a GPU consumer (sink none: a script's step on the CPU) there
     * is no GPU to make faster: the step's own time is the knob. */
    const ls_whatif_run *measured = g_ptr_array_index (basis->runs, 0);
    if (speed_text && g_strcmp0 (measured->sink, "none") == 0)
      {
        fprintf (stderr,
                 _("loadscope whatif: --gpu-speed: run %lld has no GPU consumer (sink none%s), so "
                   "there is no GPU to make faster; give the step's time with --step-ms X, or --workers, --cores\n"),
                 (long long) measured->id, measured->script ? _(": the script's training step runs on the CPU") : "");
        goto out;
      }
    ls_whatif_change change;
    ls_whatif_prediction pred;
    ls_whatif_change_init (&change);
    change.workers = (int) workers;
    change.prefetch = (int) prefetch;
    change.model_ms = model_ms;
    change.gpu_speed = gpu_speed;
    change.cores = cores;
    change.storage_speed = storage;
    ls_whatif_predict (basis, &change, &pred);
    if (json)
      {
        g_autoptr (JsonNode) node = ls_whatif_to_json (basis, &change, &pred);
        g_autofree char *text = json_to_string (node, TRUE);
        g_autofree char *shown = ls_terminal_json (text);
        printf ("%s\n", shown);
      }
    else
      {
        g_autofree char *words = ls_whatif_explain (basis, &change, &pred);
        printf ("%s\n", words);
        fputs (ngettext ("Basis: run", "Basis: runs", basis->runs->len), stdout);
        for (guint i = 0; i < basis->runs->len; i++)
          printf (" %" G_GINT64_FORMAT, ((ls_whatif_run *) g_ptr_array_index (basis->runs, i))->id);
        printf ("\n");
      }
    exit_code = 0;
  }

out:
  g_free (run);
  g_free (db);
  g_free (workers_text);
  g_free (prefetch_text);
  g_free (model_text);
  g_free (speed_text);
  g_free (cores_text);
  g_free (storage_text);
  g_free (step_text);
  g_free (ranks_text);
  g_free (background_text);
  return exit_code;
}
