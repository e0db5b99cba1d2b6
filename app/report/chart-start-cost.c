/* Worker start cost by platform and start method, over every run of every
 * machine in the store (imported ones included): what spawning costs on
 * Windows next to forking on Linux, and beside it what the first batch
 * waited on. */
#include "app/report/chart-store.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"
#include "loader/stats.h"

#include <math.h>
#include <string.h>

static const char *const categories[] = { "Linux fork", "Linux spawn", "Windows spawn", "Windows fork" };
#define N_CATEGORIES 4

typedef struct {
  GArray *ms;         /* double */
  GHashTable *machines; /* machine id (as a pointer-sized key) */
  char *wine;         /* "Windows (Wine 8.0)" while every run in it was under that Wine */
  gboolean not_wine;  /* one was not */
} category;

/* The same percentile as every run figure (loader/stats.c). */
static double
percentile (const GArray *sorted, double q)
{
  return sorted->len ? ls_percentile_sorted ((const double *) (const void *) sorted->data, sorted->len, q * 100) : NAN;
}

/* Beside each category's start-up: one stacked bar of what its runs'
 * first batch waited on (medians of each part, issue 38). x[c] is
 * category c's place on the axis, or -1 when it is not shown. */
static gboolean
add_first_batch_parts (ls_store *store, ls_chart *chart, const int *x, GError **error)
{
  static const char *const parts[] = { N_ ("worker start"), N_ ("arena populate"), N_ ("first task in flight"),
                                       N_ ("first build"), N_ ("hand-off") };
  GArray *ms[N_CATEGORIES][5];
  GError *local = NULL;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_FIRST_BATCH_PARTS, NULL, 0, error);
  if (!st)
    return FALSE;
  for (int c = 0; c < N_CATEGORIES; c++)
    for (int k = 0; k < 5; k++)
      ms[c][k] = g_array_new (FALSE, FALSE, sizeof (double));
  guint runs = 0;
  while (ls_store_rows_next (st, &local))
    {
      gboolean windows = ls_store_rows_get_int (st, 0) != 0;
      gboolean spawn = g_strcmp0 (ls_store_rows_get_text (st, 1), "spawn") == 0;
      int c = windows ? (spawn ? 2 : 3) : (spawn ? 1 : 0);
      if (x[c] < 0)
        continue;
      for (int k = 0; k < 5; k++)
        {
          double v = ls_store_rows_get_double (st, 2 + k);
          if (isfinite (v))
            g_array_append_val (ms[c][k], v);
        }
      runs++;
    }
  ls_store_rows_free (st);
  if (!local && runs > 0)
    for (int k = 0; k < 5; k++)
      {
        g_autofree char *label = g_strdup_printf (_("first batch (median): %s"), _(parts[k]));
        ls_chart_series *s = ls_chart_add_series (chart, label, LS_CHART_BARS, 1 + k, LS_CHART_Y);
        s->stacked = TRUE;
        s->value_labels = k == 4;
        for (int c = 0; c < N_CATEGORIES; c++)
          if (x[c] >= 0 && ms[c][k]->len > 0)
            {
              g_array_sort (ms[c][k], ls_cmp_double);
              ls_chart_series_add (s, x[c], percentile (ms[c][k], 0.5));
            }
      }
  if (!local && runs > 0)
    ls_chart_add_note (chart, ngettext ("First batch: the wait for a run's first batch, along the worker that finished "
                                 "it last (%u run): its start, populating the arena's pages in its page table, its "
                                 "first task in flight, its build, and the hand-off to the consumer.",
                                 "First batch: the wait for a run's first batch, along the worker that finished "
                                 "it last (%u runs): its start, populating the arena's pages in its page table, its "
                                 "first task in flight, its build, and the hand-off to the consumer.",
                                 runs),
                       runs);
  for (int c = 0; c < N_CATEGORIES; c++)
    for (int k = 0; k < 5; k++)
      g_array_unref (ms[c][k]);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

ls_chart *
ls_chart_start_cost (ls_store *store, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  category cats[N_CATEGORIES];
  GError *local = NULL;
  ls_store_rows *st
      = ls_store_query_rows (store, LS_QUERY_WORKER_STARTUPS, NULL, 0, error);
  if (!st)
    return NULL;
  for (int i = 0; i < N_CATEGORIES; i++)
    {
      cats[i].ms = g_array_new (FALSE, FALSE, sizeof (double));
      cats[i].machines = g_hash_table_new (g_direct_hash, g_direct_equal);
      cats[i].wine = NULL;
      cats[i].not_wine = FALSE;
    }
  while (ls_store_rows_next (st, &local))
    {
      gboolean windows = ls_store_rows_get_int (st, 0) != 0;
      gboolean spawn = g_strcmp0 (ls_store_rows_get_text (st, 1), "spawn") == 0;
      double ms = ls_store_rows_get_double (st, 2);
      gint64 machine = ls_store_rows_get_int (st, 3);
      int c = windows ? (spawn ? 2 : 3) : (spawn ? 1 : 0);
      if (!isfinite (ms))
        continue;
      g_array_append_val (cats[c].ms, ms);
      g_hash_table_add (cats[c].machines, GSIZE_TO_POINTER ((gsize) machine));
      /* Wine's timings are not Windows': such a category is named after it */
      const char *os = ls_store_rows_get_text (st, 4);
      if (windows && os && g_str_has_prefix (os, "Windows (Wine ") && !cats[c].not_wine
          && (!cats[c].wine || strcmp (cats[c].wine, os) == 0))
        {
          if (!cats[c].wine)
            cats[c].wine = g_strdup (os);
        }
      else
        {
          cats[c].not_wine = TRUE;
          g_clear_pointer (&cats[c].wine, g_free);
        }
    }
  ls_store_rows_free (st);
  if (local)
    {
      for (int i = 0; i < N_CATEGORIES; i++)
        {
          g_array_unref (cats[i].ms);
          g_hash_table_unref (cats[i].machines);
          g_free (cats[i].wine);
        }
      g_propagate_error (error, local);
      return NULL;
    }

  ls_chart *chart = ls_chart_new (_("Worker start cost by platform and start method"));
  ls_chart_set_subtitle (chart, _("All runs in the store, from every machine (imported ones included)"));
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, "", LS_CHART_UNIT_CATEGORY, LS_CHART_LINEAR);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("worker start-up"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  y->include_zero = TRUE;
  ls_chart_series *bars = ls_chart_add_series (chart, _("median start-up; whisker: its 95th percentile"), LS_CHART_BARS,
                                               0, LS_CHART_Y);
  bars->value_labels = TRUE;

  guint shown = 0, total = 0;
  int x_of[N_CATEGORIES] = { -1, -1, -1, -1 };
  g_autoptr (GString) counts = g_string_new (_("Start-ups counted: "));
  g_autoptr (GString) missing = g_string_new (NULL);
  for (int i = 0; i < N_CATEGORIES; i++)
    {
      category *c = &cats[i];
      if (c->ms->len == 0)
        {
          if (i < 2)
            g_string_append_printf (missing, "%s%s", missing->len ? _(" and ") : "", categories[i]);
          continue;
        }
      g_autofree char *wine_label = c->wine ? g_strdup_printf ("%s %s", c->wine, i == 2 ? "spawn" : "fork") : NULL;
      const char *label = wine_label ? wine_label : categories[i];
      ls_chart_axis_add_category (x, label);
      g_array_sort (c->ms, ls_cmp_double);
      ls_chart_series_add_band (bars, shown, percentile (c->ms, 0.5), percentile (c->ms, 0.5),
                                percentile (c->ms, 0.95));
      x_of[i] = (int) shown;
      guint machines = g_hash_table_size (c->machines);
      g_string_append_printf (counts, ngettext ("%s%s %u on %u machine", "%s%s %u on %u machines", machines),
                              total > 0 ? _("; ") : "", label, c->ms->len, machines);
      total += c->ms->len;
      shown++;
    }
  if (total > 0)
    {
      ls_chart_add_note (chart, _("Worker start-up: from the pool's start to the worker's ready message. Fork copies "
                                  "the runner; spawn starts the worker program afresh and reopens the dataset."));
      ls_chart_add_note (chart, "%s.", counts->str);
      if (missing->len > 0)
        ls_chart_add_note (chart, _("No %s start-up is recorded yet (a sweep with --start fork,spawn records both)."),
                           missing->str);
    }
  else
    ls_chart_add_note (chart, _("No worker start-up is recorded yet: runs with 1 or more workers record them."));

  for (int i = 0; i < N_CATEGORIES; i++)
    {
      g_array_unref (cats[i].ms);
      g_free (cats[i].wine);
      g_hash_table_unref (cats[i].machines);
    }
  if (total > 0 && !add_first_batch_parts (store, chart, x_of, error))
    {
      ls_chart_free (chart);
      return NULL;
    }
  return chart;
}
