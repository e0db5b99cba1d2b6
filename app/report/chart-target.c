/* Loadscope's own loader against the user's PyTorch pipeline: throughput
 * against workers, one series per target, dataset and batch size, over
 * every done run in the store (chart-store.h). The gap between the lines
 * at a worker count is what a C loader would gain there. */
#include "app/report/chart-store.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"

#include <math.h>
#include <string.h>

/* One line of the chart: the runs of one target over one dataset at one
 * batch size, by worker count. */
typedef struct {
  char *label;
  gboolean script;
  GTree *by_workers; /* workers (pointer-sized) -> GArray of double throughput */
} line;

static gint
compare_workers (gconstpointer a, gconstpointer b, gpointer unused)
{
  gintptr x = GPOINTER_TO_SIZE (a), y = GPOINTER_TO_SIZE (b);
  return x < y ? -1 : x > y;
}

static void
line_free (gpointer data)
{
  line *l = data;
  g_free (l->label);
  g_tree_unref (l->by_workers);
  g_free (l);
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/'), *back = strrchr (path, '\\');
  const char *last = slash > back ? slash : back;
  return last && last[1] ? last + 1 : path;
}

typedef struct {
  ls_chart_series *series;
  double best, best_workers;
} fill;

static gboolean
add_point (gpointer key, gpointer value, gpointer data)
{
  fill *f = data;
  GArray *sps = value;
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < sps->len; i++)
    {
      double v = g_array_index (sps, double, i);
      sum += v;
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  double mean = sum / sps->len, workers = (double) GPOINTER_TO_SIZE (key);
  if (sps->len > 1)
    ls_chart_series_add_band (f->series, workers, mean, lo, hi);
  else
    ls_chart_series_add (f->series, workers, mean);
  if (mean > f->best)
    {
      f->best = mean;
      f->best_workers = workers;
    }
  return FALSE;
}

ls_chart *
ls_chart_target (ls_store *store, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  GError *local = NULL;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_THROUGHPUTS, NULL, 0, error);
  if (!st)
    return NULL;
  g_autoptr (GHashTable) lines = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func (line_free);
  while (ls_store_rows_next (st, &local))
    {
      const char *format = ls_store_rows_get_text (st, 0), *dataset = ls_store_rows_get_text (st, 1);
      gboolean script = g_strcmp0 (format, "pytorch") == 0;
      g_autofree char *label
          = script ? g_strdup_printf (_("your PyTorch script: %s, batch %lld"), base_name (dataset),
                                      (long long) ls_store_rows_get_int (st, 2))
                   : g_strdup_printf (_("Loadscope's loader: %s (%s), batch %lld"), base_name (dataset),
                                      format, (long long) ls_store_rows_get_int (st, 2));
      line *l = g_hash_table_lookup (lines, label);
      if (!l)
        {
          l = g_new0 (line, 1);
          l->label = g_steal_pointer (&label);
          l->script = script;
          l->by_workers = g_tree_new_full (compare_workers, NULL, NULL, (GDestroyNotify) g_array_unref);
          g_hash_table_insert (lines, l->label, l);
          g_ptr_array_add (order, l);
        }
      gpointer workers = GSIZE_TO_POINTER ((gsize) ls_store_rows_get_int (st, 3));
      GArray *sps = g_tree_lookup (l->by_workers, workers);
      if (!sps)
        {
          sps = g_array_new (FALSE, FALSE, sizeof (double));
          g_tree_insert (l->by_workers, workers, sps);
        }
      double v = ls_store_rows_get_double (st, 4);
      if (isfinite (v))
        g_array_append_val (sps, v);
    }
  ls_store_rows_free (st);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }

  ls_chart *chart = ls_chart_new (_("Loadscope's loader vs your PyTorch pipeline: throughput by workers"));
  ls_chart_set_subtitle (chart, _("Every finished run in the store, one line per target, dataset and batch size; "
                                  "repeats as their mean with a min–max band"));
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("workers"), LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  x->integer = TRUE;
  x->pad = TRUE;
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("throughput"), LS_CHART_UNIT_SPS, LS_CHART_LINEAR);
  y->include_zero = TRUE;

  double best[2] = { 0, 0 }, best_workers[2] = { 0, 0 };
  for (guint i = 0; i < order->len; i++)
    {
      line *l = order->pdata[i];
      ls_chart_series *s = ls_chart_add_series (chart, l->label, LS_CHART_LINE, (int) i, LS_CHART_Y);
      s->dash = l->script ? LS_CHART_DASHED : LS_CHART_SOLID;
      fill f = { s, 0, 0 };
      g_tree_foreach (l->by_workers, add_point, &f);
      if (f.best > best[l->script])
        {
          best[l->script] = f.best;
          best_workers[l->script] = f.best_workers;
        }
    }
  if (best[0] > 0 && best[1] > 0)
    ls_chart_add_note (chart,
                       _("Best: Loadscope's loader %.0f img/s (%.0f workers), the script %.0f img/s (%.0f "
                         "workers): the loader is %.2f× the script's pipeline; the gap at a worker count is what a "
                         "C loader would gain there."),
                       best[0], best_workers[0], best[1], best_workers[1], best[0] / best[1]);
  else if (best[1] == 0)
    ls_chart_add_note (chart, _("No finished run of a PyTorch script is in the store yet: "
                                "loadscope sweep --target pytorch --script train.py --workers 0,1,2,4 records one."));
  else
    ls_chart_add_note (chart, _("No finished run of Loadscope's loader is in the store yet: "
                                "loadscope sweep --dataset IMAGES --workers 0,1,2,4 records one."));
  ls_chart_add_note (chart, _("The script's runs include its own step between batches (its model, on its device); "
                              "Loadscope's include --model-ms. Compare runs over the same images and batch size."));
  return chart;
}
