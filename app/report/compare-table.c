#include "app/report/compare-table.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/chart/chart-axis.h"
#include "app/core/summary-keys.h"
#include "app/store/store-query.h"

gboolean
ls_compare_higher_is_better (const char *column)
{
  return strcmp (column, LS_KEY_THROUGHPUT) == 0 || strcmp (column, LS_KEY_GPU_UTIL_EXACT) == 0
         || strcmp (column, LS_KEY_GPU_UTIL_NVML) == 0;
}

char *
ls_compare_change_text (const ls_compare_row *row, guint r)
{
  if (row->kind != LS_COMPARE_FIGURE || r == 0 || r >= row->cells->len || isnan (row->delta[r]))
    return NULL;
  return g_strdup_printf ("%+.1f %%%s", row->delta[r],
                          row->better[r] > 0 ? _(", better") : row->better[r] < 0 ? _(", worse") : "");
}

/* A figure as the charts show it: the chart's unit and decimals. */
static char *
figure_cell (JsonObject *run, const ls_run_figure *fig)
{
  double v;
  if (!ls_json_number (run, fig->column, &v))
    return g_strdup ("-");
  if (strcmp (fig->unit, "samples/s") == 0)
    return ls_chart_format_value (LS_CHART_UNIT_SPS, v);
  if (strcmp (fig->unit, "ms") == 0)
    return ls_chart_format_value (LS_CHART_UNIT_MS, v);
  if (strcmp (fig->unit, "%") == 0)
    return ls_chart_format_value (LS_CHART_UNIT_FRACTION, v);
  if (strcmp (fig->unit, "MB") == 0)
    return ls_chart_format_value (LS_CHART_UNIT_BYTES, v);
  return g_strdup_printf ("%.*f %s", fig->decimals, v * fig->scale, _(fig->unit));
}

gboolean
ls_compare_delta_percent (JsonObject *first, JsonObject *run, const char *column, double *delta)
{
  double a, b;
  if (!ls_json_number (first, column, &a) || !ls_json_number (run, column, &b) || a == 0)
    return FALSE;
  *delta = (b - a) / fabs (a) * 100.0;
  return TRUE;
}

/* Whether the stored value of column is not the same in every run (an
 * absent member differs from a present one, null included). */
static gboolean
knob_differs (GPtrArray *runs, const char *column)
{
  JsonNode *first = json_object_get_member (g_ptr_array_index (runs, 0), column);
  for (guint i = 1; i < runs->len; i++)
    {
      JsonNode *n = json_object_get_member (g_ptr_array_index (runs, i), column);
      if (!first || !n ? first != n : !json_node_equal (first, n))
        return TRUE;
    }
  return FALSE;
}

/* Whether a run has a value in column (not absent, not null). */
static gboolean
any_has (GPtrArray *runs, const char *column)
{
  for (guint i = 0; i < runs->len; i++)
    {
      JsonNode *n = json_object_get_member (g_ptr_array_index (runs, i), column);
      if (n && !json_node_is_null (n))
        return TRUE;
    }
  return FALSE;
}

static void
row_free (gpointer data)
{
  ls_compare_row *row = data;
  g_free (row->label);
  g_ptr_array_unref (row->cells);
  g_free (row->delta);
  g_free (row->better);
  g_free (row);
}

static ls_compare_row *
row_new (ls_compare_row_kind kind, const char *column, char *label, guint n_runs)
{
  ls_compare_row *row = g_new0 (ls_compare_row, 1);
  row->kind = kind;
  row->column = column;
  row->label = label;
  row->cells = g_ptr_array_new_full (n_runs, g_free);
  return row;
}

ls_compare_table *
ls_compare_table_new (GPtrArray *runs)
{
  g_return_val_if_fail (runs != NULL && runs->len >= 1, NULL);
  ls_compare_table *table = g_new0 (ls_compare_table, 1);
  table->runs = g_ptr_array_new_full (runs->len, (GDestroyNotify) json_object_unref);
  for (guint r = 0; r < runs->len; r++)
    g_ptr_array_add (table->runs, json_object_ref (runs->pdata[r]));
  table->rows = g_ptr_array_new_full (ls_n_run_knobs + ls_n_run_figures, row_free);

  /* The figures first: they are what a comparison is for. */
  JsonObject *first = runs->pdata[0];
  for (guint f = 0; f < ls_n_run_figures; f++)
    {
      const ls_run_figure *fig = &ls_run_figures[f];
      ls_compare_row *row = row_new (LS_COMPARE_FIGURE, fig->column, g_strdup (_(fig->label)), runs->len);
      row->delta = g_new (double, runs->len);
      row->better = g_new0 (int, runs->len);
      int sign = ls_compare_higher_is_better (fig->column) ? 1 : -1;
      for (guint r = 0; r < runs->len; r++)
        {
          g_ptr_array_add (row->cells, figure_cell (runs->pdata[r], fig));
          if (!ls_compare_delta_percent (first, runs->pdata[r], fig->column, &row->delta[r]))
            row->delta[r] = NAN;
          else if (r > 0 && fabs (row->delta[r]) >= LS_COMPARE_SAME_PERCENT)
            row->better[r] = row->delta[r] > 0 ? sign : -sign;
        }
      g_ptr_array_add (table->rows, row);
    }
  for (guint k = 0; k < ls_n_run_knobs; k++)
    {
      const ls_run_knob *knob = &ls_run_knobs[k];
      if (knob->script && !any_has (runs, knob->column))
        continue; /* ranks and threads: the loader's runs have none */
      ls_compare_row *row = row_new (LS_COMPARE_KNOB, knob->column, g_strdup (_(knob->label)), runs->len);
      row->differs = knob_differs (runs, knob->column);
      for (guint r = 0; r < runs->len; r++)
        g_ptr_array_add (row->cells, ls_run_knob_text (runs->pdata[r], knob));
      g_ptr_array_add (table->rows, row);
    }
  return table;
}

ls_compare_table *
ls_compare_table_load (ls_store *store, const gint64 *ids, guint n_ids, GError **error)
{
  g_return_val_if_fail (store != NULL && ids != NULL && n_ids >= 1, NULL);
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  for (guint i = 0; i < n_ids; i++)
    {
      JsonObject *o = ls_store_run_object (store, ids[i], error);
      if (!o)
        return NULL;
      g_ptr_array_add (runs, o);
    }
  ls_compare_table *table = ls_compare_table_new (runs);
  table->db = g_strdup (ls_store_path (store));
  return table;
}

void
ls_compare_table_free (ls_compare_table *table)
{
  if (!table)
    return;
  g_ptr_array_unref (table->rows);
  g_ptr_array_unref (table->runs);
  g_free (table->db);
  g_free (table);
}

guint
ls_compare_table_n_runs (const ls_compare_table *table)
{
  return table->runs->len;
}

const ls_compare_row *
ls_compare_table_find (const ls_compare_table *table, const char *column)
{
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (g_str_equal (row->column, column))
        return row;
    }
  return NULL;
}

GPtrArray *
ls_compare_table_differing_knobs (const ls_compare_table *table)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind == LS_COMPARE_KNOB && row->differs)
        g_ptr_array_add (labels, g_strdup (row->label));
    }
  return labels;
}
