#include "app/report/compare-table.h"

#include <math.h>

#include "app/store/store-query.h"

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

static void
row_free (gpointer data)
{
  ls_compare_row *row = data;
  g_free (row->label);
  g_ptr_array_unref (row->cells);
  g_free (row->delta);
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

  for (guint k = 0; k < ls_n_run_knobs; k++)
    {
      const ls_run_knob *knob = &ls_run_knobs[k];
      ls_compare_row *row = row_new (LS_COMPARE_KNOB, knob->column, g_strdup (knob->label), runs->len);
      row->differs = knob_differs (runs, knob->column);
      for (guint r = 0; r < runs->len; r++)
        g_ptr_array_add (row->cells, ls_run_knob_text (runs->pdata[r], knob));
      g_ptr_array_add (table->rows, row);
    }
  JsonObject *first = runs->pdata[0];
  for (guint f = 0; f < ls_n_run_figures; f++)
    {
      const ls_run_figure *fig = &ls_run_figures[f];
      ls_compare_row *row = row_new (LS_COMPARE_FIGURE, fig->column, ls_run_figure_heading (fig), runs->len);
      row->delta = g_new (double, runs->len);
      for (guint r = 0; r < runs->len; r++)
        {
          g_ptr_array_add (row->cells, ls_run_figure_text (runs->pdata[r], fig));
          if (!ls_compare_delta_percent (first, runs->pdata[r], fig->column, &row->delta[r]))
            row->delta[r] = NAN;
        }
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
  return ls_compare_table_new (runs);
}

void
ls_compare_table_free (ls_compare_table *table)
{
  if (!table)
    return;
  g_ptr_array_unref (table->rows);
  g_ptr_array_unref (table->runs);
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
