/* What-if model against measurement: fits the model to a sweep of workers
 * 1 and 2 (prefetch 2), predicts configurations it did not see (workers 0,
 * 3, 4 at prefetch 2; workers 1, 2 at prefetch 1 and 4), measures them
 * and prints the throughput error of each prediction, the median and the
 * worst. Goal: median <= 10 %, worst <= 25 %. Simulated GPU, a synthetic
 * dataset whose samples cost calibrated CPU; a few minutes at most.
 *
 *   meson compile -C build bench-whatif
 *   build/bench/bench-whatif build/app/loadscope [SAMPLE_COST_US] [MODEL_MS] [REPEAT] [ROUNDS]
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/analysis/whatif-basis.h"
#include "app/store/store-query.h"

static const char *exe;

static gboolean
sweep (const char *db, const char *workers, const char *prefetch, const char *cost, const char *model, const char *repeat)
{
  const char *argv[] = { exe, "sweep", "--dataset", "synthetic", "--count", "1024", "--size", "64x64",
                         "--sample-cost-us", cost, "--batch-size", "16", "--batches", "64", "--sink", "sim",
                         "--model-ms", model, "--workers", workers, "--prefetch", prefetch, "--persistent", "on",
                         "--repeat", repeat, "--db", db, "--quiet", NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                     NULL, NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      fprintf (stderr, "bench-whatif: sweep --workers %s --prefetch %s: %s\n", workers, prefetch, error->message);
      return FALSE;
    }
  return TRUE;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-whatif LOADSCOPE [SAMPLE_COST_US] [MODEL_MS] [REPEAT] [ROUNDS]\n");
      return 2;
    }
  exe = argv[1];
  const char *cost = argc > 2 ? argv[2] : "1000";
  const char *model = argc > 3 ? argv[3] : "6";
  const char *repeat = argc > 4 ? argv[4] : "1";
  g_autofree char *dir = g_dir_make_tmp ("bench-whatif-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "runs.sqlite", NULL);
  gint64 t0 = g_get_monotonic_time ();

  /* Rounds, so that the machine's drift (other processes come and go)
   * falls on every configuration alike: each round measures the basis
   * (workers 1, 2 at prefetch 2) and what the model will not see. */
  const int rounds = argc > 5 ? atoi (argv[5]) : 3;
  for (int r = 0; r < rounds; r++)
    if (!sweep (db, "0,3,4", "2", cost, model, repeat) || !sweep (db, "1,2", "1,2,4", cost, model, repeat))
      return 1;

  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_autoptr (GArray) all = store ? ls_store_select_runs (store, NULL, NULL, &error) : NULL;
  if (!all)
    {
      fprintf (stderr, "bench-whatif: %s\n", error->message);
      return 1;
    }
  GPtrArray *fit_runs = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_whatif_run_free);
  g_autoptr (GArray) test_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < all->len; i++)
    {
      ls_whatif_run *r = ls_whatif_run_load (store, g_array_index (all, gint64, i), NULL);
      if (!r)
        continue;
      if ((r->workers == 1 || r->workers == 2) && r->prefetch == 2)
        g_ptr_array_add (fit_runs, r);
      else
        {
          g_array_append_val (test_ids, r->id);
          ls_whatif_run_free (r);
        }
    }
  g_autoptr (ls_whatif_basis) basis = ls_whatif_basis_new (fit_runs, &error);
  if (!basis)
    {
      fprintf (stderr, "bench-whatif: %s\n", error->message);
      return 1;
    }
  printf ("model fitted to runs");
  for (guint i = 0; i < basis->runs->len; i++)
    printf (" %" G_GINT64_FORMAT, ((ls_whatif_run *) g_ptr_array_index (basis->runs, i))->id);
  printf (" (workers 1, 2; prefetch 2): build %.2f ms per batch (%s), host %.2f ms, %.0f cores\n", basis->t_build_ms,
          basis->source, basis->host_ms, ((ls_whatif_run *) g_ptr_array_index (basis->runs, 0))->cores);
  printf ("dataset synthetic 1024 x 64x64, sample cost %s us, batch 16, 64 batches, sim sink, model %s ms, "
          "%d rounds x repeat %s\n\n", cost, model, rounds, repeat);
  printf ("%-22s %10s %10s %7s %8s   %7s %7s   %7s %7s\n", "configuration", "measured", "predicted", "error",
          "(as fit)", "GPU m", "GPU p", "p50 m", "p50 p");

  /* Every run of the other sweeps, averaged over its repeats. */
  g_autoptr (GArray) errors = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) errors_basis = g_array_new (FALSE, FALSE, sizeof (double));
  {
    GArray *ids = test_ids;
    /* Repeats and rounds grouped: same workers and prefetch. */
      for (guint i = 0; i < ids->len; i++)
        {
          g_autoptr (ls_whatif_run) r = ls_whatif_run_load (store, g_array_index (ids, gint64, i), NULL);
          if (!r)
            continue;
          double sps = 0, util = 0, p50 = 0, load = 0;
          guint n = 0;
          gboolean first = TRUE;
          for (guint j = 0; j < ids->len; j++)
            {
              g_autoptr (ls_whatif_run) o = ls_whatif_run_load (store, g_array_index (ids, gint64, j), NULL);
              if (!o || o->workers != r->workers || o->prefetch != r->prefetch)
                continue;
              if (j < i)
                first = FALSE;
              sps += o->throughput_sps, util += o->gpu_util_exact, p50 += o->wait_p50_ms, n++;
              load += o->background;
            }
          if (!first || n == 0)
            continue;
          sps /= n, util /= n, p50 /= n, load /= n;
          ls_whatif_change change;
          ls_whatif_prediction pred;
          ls_whatif_change_init (&change);
          change.workers = (int) r->workers;
          change.prefetch = (int) r->prefetch;
          ls_whatif_predict (basis, &change, &pred);
          double err_basis = (pred.throughput_sps - sps) / sps;
          double abs_basis = fabs (err_basis);
          g_array_append_val (errors_basis, abs_basis);
          /* The same, told the other processes' load this run measured (an
           * input, as the cores are): the model, without the machine's drift. */
          change.background = load;
          ls_whatif_predict (basis, &change, &pred);
          double err = (pred.throughput_sps - sps) / sps;
          double abs_err = fabs (err);
          g_array_append_val (errors, abs_err);
          char label[64];
          g_snprintf (label, sizeof label, "workers=%u prefetch=%u", r->workers, r->prefetch);
          printf ("%-22s %10.0f %10.0f %+6.1f%% %+7.1f%%   %6.0f%% %6.0f%%   %7.2f %7.2f   (other load %.2f cores)\n",
                  label, sps, pred.throughput_sps, err * 100, err_basis * 100, util * 100, pred.gpu_util_exact * 100,
                  p50, pred.wait_p50_ms, load);
        }
    }
  for (int pass = 0; pass < 2; pass++)
    {
      GArray *e = pass == 0 ? errors : errors_basis;
      qsort (e->data, e->len, sizeof (double), compare_double);
      double median = e->len % 2 ? g_array_index (e, double, e->len / 2)
                                 : (g_array_index (e, double, e->len / 2 - 1) + g_array_index (e, double, e->len / 2)) / 2;
      double worst = g_array_index (e, double, e->len - 1);
      printf ("%sthroughput error over %u unseen configurations%s: median %.1f %% (goal <= 10 %%), worst %.1f %% "
              "(goal <= 25 %%)  [%s, %s]\n", pass == 0 ? "\n" : "", e->len,
              pass == 0 ? ", each told its run's other load" : ", with the basis's other load",
              median * 100, worst * 100, median <= 0.10 ? "met" : "MISSED", worst <= 0.25 ? "met" : "MISSED");
    }
  printf ("took %.0f s\n", (g_get_monotonic_time () - t0) / 1e6);
  g_autofree char *wal = g_strconcat (db, "-wal", NULL);
  g_autofree char *shm = g_strconcat (db, "-shm", NULL);
  g_remove (db), g_remove (wal), g_remove (shm), g_rmdir (dir);
  return 0;
}
