/* The runs' batch waits overlaid as CDFs, and their memory over time
 * (chart-compare.h). */
#include "app/report/chart-compare.h"

#include <math.h>

#include "app/core/i18n.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"
#include "loader/stats.h"

/* The run's measured waits (after its warm-up), sorted; NULL with the error. */
static GArray *
measured_waits (ls_store *store, gint64 run_id, GError **error)
{
  g_autoptr (JsonObject) run = ls_store_run_object (store, run_id, error);
  if (!run)
    return NULL;
  gint64 warmup = json_object_get_int_member_with_default (run, "warmup", 0);
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_WAITS, &run_id, 1, error);
  if (!st)
    return NULL;
  GArray *waits = g_array_new (FALSE, FALSE, sizeof (double));
  GError *local = NULL;
  while (ls_store_rows_next (st, &local))
    {
      double w = ls_store_rows_get_double (st, 2);
      if (ls_store_rows_get_int (st, 0) >= warmup && isfinite (w))
        g_array_append_val (waits, w);
    }
  ls_store_rows_free (st);
  if (local)
    {
      g_array_unref (waits);
      g_propagate_error (error, local);
      return NULL;
    }
  g_array_sort (waits, ls_cmp_double);
  return waits;
}

/* Run ids[i]'s line, without markers, labelled as Compare's columns are
 * (the first the baseline). */
static ls_chart_series *
run_line (ls_chart *chart, const gint64 *ids, guint i)
{
  g_autofree char *label = i == 0 ? g_strdup_printf (_("run %lld (baseline)"), (long long) ids[i])
                                   : g_strdup_printf (_("run %lld"), (long long) ids[i]);
  ls_chart_series *s = ls_chart_add_series (chart, label, LS_CHART_LINE, (int) i, LS_CHART_Y);
  s->markers = FALSE;
  return s;
}

ls_chart *
ls_chart_runs_wait_cdf (ls_store *store, const gint64 *ids, guint n, GError **error)
{
  g_return_val_if_fail (store != NULL && (ids != NULL || n == 0), NULL);
  ls_chart *chart = ls_chart_new (_("Batch wait, all the measured batches of each run"));
  ls_chart_set_subtitle (chart, _("The share of a run's batches that waited at most so long: a line further left "
                                  "waits less. The first run is the baseline."));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GArray) waits = measured_waits (store, ids[i], error);
      if (!waits)
        {
          ls_chart_free (chart);
          return NULL;
        }
      ls_chart_series *s = run_line (chart, ids, i);
      /* A step a batch: at most ~400 points, so that a long run stays light. */
      guint stride = MAX (waits->len / 400, 1u);
      for (guint k = 0; k < waits->len; k += stride)
        ls_chart_series_add (s, g_array_index (waits, double, k), (k + 1.0) / waits->len);
      if (waits->len)
        ls_chart_series_add (s, g_array_index (waits, double, waits->len - 1), 1.0);
    }
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("batch wait"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  x->include_zero = TRUE;
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("share of batches"), LS_CHART_UNIT_FRACTION, LS_CHART_LINEAR);
  y->include_zero = TRUE;
  return chart;
}

/* One run's memory samples into s: PSS, else (Windows) private bytes.
 * *pss is set when any sample had PSS. */
static gboolean
add_memory (ls_store *store, gint64 run_id, ls_chart_series *s, gboolean *pss, GError **error)
{
  g_autoptr (JsonObject) run = ls_store_run_object (store, run_id, error); /* names a run that is not there */
  if (!run)
    return FALSE;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_MEMORY_SAMPLES, &run_id, 1, error);
  if (!st)
    return FALSE;
  GError *local = NULL;
  /* At most ~400 points a run, as for the waits. */
  g_autoptr (GArray) t = g_array_new (FALSE, FALSE, sizeof (double)), v = g_array_new (FALSE, FALSE, sizeof (double));
  while (ls_store_rows_next (st, &local))
    {
      double when = ls_store_rows_get_double (st, 0), all = ls_store_rows_get_double (st, 1);
      if (isfinite (all))
        *pss = TRUE;
      else
        all = ls_store_rows_get_double (st, 3);
      if (isfinite (when) && isfinite (all))
        {
          g_array_append_val (t, when);
          g_array_append_val (v, all);
        }
    }
  ls_store_rows_free (st);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  guint stride = MAX (t->len / 400, 1u);
  for (guint k = 0; k < t->len; k += stride)
    ls_chart_series_add (s, g_array_index (t, double, k), g_array_index (v, double, k));
  if (t->len > 1 && (t->len - 1) % stride != 0)
    ls_chart_series_add (s, g_array_index (t, double, t->len - 1), g_array_index (v, double, t->len - 1));
  return TRUE;
}

ls_chart *
ls_chart_runs_memory (ls_store *store, const gint64 *ids, guint n, GError **error)
{
  g_return_val_if_fail (store != NULL && (ids != NULL || n == 0), NULL);
  ls_chart *chart = ls_chart_new (_("Memory over each run"));
  ls_chart_set_subtitle (chart, _("The runner and its workers together, from the loader's start: a lower line "
                                  "needs less memory. The first run is the baseline."));
  gboolean pss = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (!add_memory (store, ids[i], run_line (chart, ids, i), &pss, error))
        {
          ls_chart_free (chart);
          return NULL;
        }
    }
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("time since the loader started"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  x->include_zero = TRUE;
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, pss || ls_chart_n_points (chart) == 0 ? "PSS" : _("private bytes"), LS_CHART_UNIT_BYTES,
                     LS_CHART_LINEAR);
  y->include_zero = TRUE;
  return chart;
}
