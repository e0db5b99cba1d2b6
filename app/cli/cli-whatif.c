/* `loadscope whatif --run ID [changes]`: the what-if model (app/analysis/)
 * fitted to a run and its sweep, predicting the run with other knobs. */
#include "app/cli/cli-whatif.h"
#include "app/cli/cli-args.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/analysis/whatif-basis.h"
#include "app/store/store-query.h"

int
ls_cli_whatif (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("- predict a run with other knobs");
  g_autoptr (GError) error = NULL;
  char *run = NULL, *db = NULL;
  int workers = -1, prefetch = -1;
  double model_ms = -1, gpu_speed = -1, cores = -1, storage = -1;
  gboolean json = FALSE, alone = FALSE;
  int exit_code = 2;
  GOptionEntry entries[] = {
    { "run", 0, 0, G_OPTION_ARG_STRING, &run, "The measured run (id or uuid prefix)", "ID" },
    { "workers", 0, 0, G_OPTION_ARG_INT, &workers, "Predict with N workers", "N" },
    { "prefetch", 0, 0, G_OPTION_ARG_INT, &prefetch, "Predict with prefetch P", "P" },
    { "model-ms", 0, 0, G_OPTION_ARG_DOUBLE, &model_ms, "Predict with a model step of X ms", "X" },
    { "gpu-speed", 0, 0, G_OPTION_ARG_DOUBLE, &gpu_speed, "Predict with a GPU K times as fast (step x 1/K)", "K" },
    { "cores", 0, 0, G_OPTION_ARG_DOUBLE, &cores, "Predict with C CPU cores", "C" },
    { "storage-speed", 0, 0, G_OPTION_ARG_DOUBLE, &storage, "Predict with storage S times as fast (the read stage)", "S" },
    { "alone", 0, 0, G_OPTION_ARG_NONE, &alone, "Fit to the run alone, not its sweep", NULL },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, "The run store", "PATH" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the prediction as JSON", NULL },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
                                "Predicts throughput, GPU busy time and batch wait of a recorded run with\n"
                                "other knobs, from a queueing model of the workers feeding the GPU fitted\n"
                                "to the run and the other runs of its sweep. Example:\n"
                                "  loadscope whatif --run 12 --workers 4 --gpu-speed 2");
  char **args = argv;
  gboolean parsed = ls_cli_parse_args (context, &argc, &args, &error);
  if (parsed && argc > 1)
    {
      fprintf (stderr, "loadscope whatif: unexpected argument '%s'\n", args[1]);
      goto out;
    }
  if (!parsed)
    {
      fprintf (stderr, "loadscope whatif: %s\n", error->message);
      goto out;
    }
  if (!run)
    {
      fprintf (stderr, "loadscope whatif: --run is required (a run id from `loadscope history`)\n");
      goto out;
    }
#define CHECK(cond, ...)                                                                                              \
  if (!(cond))                                                                                                        \
    {                                                                                                                 \
      fprintf (stderr, "loadscope whatif: " __VA_ARGS__);                                                             \
      goto out;                                                                                                       \
    }
  CHECK (workers >= -1 && workers <= 256, "--workers %d: must be between 0 and 256\n", workers);
  CHECK (prefetch == -1 || (prefetch >= 1 && prefetch <= 64), "--prefetch %d: must be between 1 and 64\n", prefetch);
  CHECK (model_ms == -1 || (model_ms >= 0 && model_ms <= 60000), "--model-ms %g: must be between 0 and 60000\n",
         model_ms);
  CHECK (gpu_speed == -1 || (gpu_speed > 0 && gpu_speed <= 1000), "--gpu-speed %g: must be above 0 (2: twice as fast)\n",
         gpu_speed);
  CHECK (cores == -1 || (cores > 0 && cores <= 4096), "--cores %g: must be above 0\n", cores);
  CHECK (storage == -1 || (storage > 0 && storage <= 1000), "--storage-speed %g: must be above 0\n", storage);
#undef CHECK

  {
    g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
    gint64 id = store ? ls_store_find_run (store, run, &error) : -1;
    g_autoptr (ls_whatif_basis) basis = id > 0 ? ls_whatif_basis_load (store, id, !alone, &error) : NULL;
    if (!basis)
      {
        fprintf (stderr, "loadscope whatif: %s\n", error->message);
        exit_code = error->domain == LS_STORE_ERROR && error->code == LS_STORE_ERROR_NOT_FOUND ? 2 : 1;
        goto out;
      }
    ls_whatif_change change;
    ls_whatif_prediction pred;
    ls_whatif_change_init (&change);
    change.workers = workers;
    change.prefetch = prefetch;
    change.model_ms = model_ms;
    change.gpu_speed = gpu_speed;
    change.cores = cores;
    change.storage_speed = storage;
    ls_whatif_predict (basis, &change, &pred);
    if (json)
      {
        g_autoptr (JsonNode) node = ls_whatif_to_json (basis, &change, &pred);
        g_autofree char *text = json_to_string (node, TRUE);
        printf ("%s\n", text);
      }
    else
      {
        g_autofree char *words = ls_whatif_explain (basis, &change, &pred);
        printf ("%s\n", words);
        printf ("Basis: run%s", basis->runs->len == 1 ? "" : "s");
        for (guint i = 0; i < basis->runs->len; i++)
          printf (" %" G_GINT64_FORMAT, ((ls_whatif_run *) g_ptr_array_index (basis->runs, i))->id);
        printf ("\n");
      }
    exit_code = 0;
  }

out:
  g_free (run);
  g_free (db);
  return exit_code;
}
