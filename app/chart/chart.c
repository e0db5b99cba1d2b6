#include "app/chart/chart.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "app/chart/chart-lanes.h"
#include "app/core/text-controls.h"

G_DEFINE_QUARK (loadscope-chart-error-quark, ls_chart_error)

static void
axis_init (ls_chart_axis *axis)
{
  axis->label = g_strdup ("");
  axis->unit = LS_CHART_UNIT_COUNT;
  axis->scale = LS_CHART_LINEAR;
  axis->min = NAN;
  axis->max = NAN;
  axis->categories = g_ptr_array_new_with_free_func (g_free);
}

static void
axis_clear (ls_chart_axis *axis)
{
  g_clear_pointer (&axis->label, g_free);
  g_clear_pointer (&axis->categories, g_ptr_array_unref);
}

static void
series_free (gpointer p)
{
  ls_chart_series *s = p;
  g_free (s->label);
  g_array_unref (s->points);
  g_free (s);
}

static void
legend_entry_clear (gpointer p)
{
  g_free (((ls_chart_legend_entry *) p)->label);
}

static void
rule_clear (gpointer p)
{
  g_free (((ls_chart_rule *) p)->label);
}

ls_chart *
ls_chart_new (const char *title)
{
  ls_chart *chart = g_new0 (ls_chart, 1);
  chart->title = ls_text_clean (title ? title : "", FALSE);
  axis_init (&chart->x);
  axis_init (&chart->y);
  axis_init (&chart->y2);
  chart->series = g_ptr_array_new_with_free_func (series_free);
  chart->legend = g_array_new (FALSE, TRUE, sizeof (ls_chart_legend_entry));
  g_array_set_clear_func (chart->legend, legend_entry_clear);
  chart->notes = g_ptr_array_new_with_free_func (g_free);
  chart->rules = g_array_new (FALSE, TRUE, sizeof (ls_chart_rule));
  g_array_set_clear_func (chart->rules, rule_clear);
  return chart;
}

void
ls_chart_free (ls_chart *chart)
{
  if (!chart)
    return;
  g_free (chart->title);
  g_free (chart->subtitle);
  axis_clear (&chart->x);
  axis_clear (&chart->y);
  axis_clear (&chart->y2);
  g_ptr_array_unref (chart->series);
  g_array_unref (chart->legend);
  g_ptr_array_unref (chart->notes);
  g_array_unref (chart->rules);
  ls_chart_lanes_free (chart->lanes);
  g_free (chart);
}

void
ls_chart_set_subtitle (ls_chart *chart, const char *subtitle)
{
  g_return_if_fail (chart != NULL);
  g_free (chart->subtitle);
  chart->subtitle = ls_text_clean (subtitle, FALSE);
}

ls_chart_axis *
ls_chart_axis_get (ls_chart *chart, ls_chart_axis_id id)
{
  g_return_val_if_fail (chart != NULL, NULL);
  switch (id)
    {
    case LS_CHART_X:
      return &chart->x;
    case LS_CHART_Y2:
      return &chart->y2;
    case LS_CHART_Y:
    default:
      return &chart->y;
    }
}

void
ls_chart_axis_set (ls_chart_axis *axis, const char *label, ls_chart_unit unit, ls_chart_scale scale)
{
  g_return_if_fail (axis != NULL);
  g_free (axis->label);
  axis->label = ls_text_clean (label ? label : "", FALSE);
  axis->unit = unit;
  axis->scale = scale;
}

void
ls_chart_axis_add_category (ls_chart_axis *axis, const char *label)
{
  g_return_if_fail (axis != NULL && label != NULL);
  g_ptr_array_add (axis->categories, ls_text_clean (label, FALSE));
}

ls_chart_series *
ls_chart_add_series (ls_chart *chart, const char *label, ls_chart_kind kind, int color, ls_chart_axis_id y_axis)
{
  g_return_val_if_fail (chart != NULL, NULL);
  g_return_val_if_fail (y_axis == LS_CHART_Y || y_axis == LS_CHART_Y2, NULL);
  ls_chart_series *s = g_new0 (ls_chart_series, 1);
  s->label = ls_text_clean (label ? label : "", FALSE);
  s->kind = kind;
  s->dash = LS_CHART_SOLID;
  s->color = color;
  s->y_axis = y_axis;
  s->markers = kind == LS_CHART_LINE;
  s->in_legend = label != NULL && label[0] != '\0';
  s->points = g_array_new (FALSE, FALSE, sizeof (ls_chart_point));
  g_ptr_array_add (chart->series, s);
  return s;
}

void
ls_chart_series_add (ls_chart_series *series, double x, double y)
{
  ls_chart_series_add_band (series, x, y, NAN, NAN);
}

void
ls_chart_series_add_band (ls_chart_series *series, double x, double y, double lo, double hi)
{
  g_return_if_fail (series != NULL);
  ls_chart_point p = { x, y, lo, hi };
  g_array_append_val (series->points, p);
}

gboolean
ls_chart_series_has_band (const ls_chart_series *series)
{
  for (guint i = 0; i < series->points->len; i++)
    {
      const ls_chart_point *p = &g_array_index (series->points, ls_chart_point, i);
      if (isfinite (p->lo) && isfinite (p->hi))
        return TRUE;
    }
  return FALSE;
}

void
ls_chart_add_legend (ls_chart *chart, const char *label, int color, ls_chart_kind kind, ls_chart_dash dash,
                     gboolean markers, gboolean band)
{
  g_return_if_fail (chart != NULL && label != NULL);
  ls_chart_legend_entry e = { ls_text_clean (label, FALSE), color, kind, dash, markers, band };
  g_array_append_val (chart->legend, e);
}

void
ls_chart_add_note (ls_chart *chart, const char *format, ...)
{
  g_return_if_fail (chart != NULL && format != NULL);
  va_list ap;
  va_start (ap, format);
  g_autofree char *note = g_strdup_vprintf (format, ap);
  g_ptr_array_add (chart->notes, ls_text_clean (note, FALSE));
  va_end (ap);
}

void
ls_chart_add_rule (ls_chart *chart, ls_chart_axis_id axis, double value, const char *label)
{
  g_return_if_fail (chart != NULL);
  ls_chart_rule r = { axis, value, ls_text_clean (label ? label : "", FALSE) };
  g_array_append_val (chart->rules, r);
}

gboolean
ls_chart_has_y2 (const ls_chart *chart)
{
  for (guint i = 0; i < chart->series->len; i++)
    if (((const ls_chart_series *) chart->series->pdata[i])->y_axis == LS_CHART_Y2)
      return TRUE;
  return FALSE;
}

guint
ls_chart_n_points (const ls_chart *chart)
{
  guint n = 0;
  for (guint i = 0; i < chart->series->len; i++)
    n += ((const ls_chart_series *) chart->series->pdata[i])->points->len;
  return n;
}

static gboolean
is_stacked (const ls_chart_series *s)
{
  return s->kind == LS_CHART_BARS && s->stacked;
}

double
ls_chart_stack_base (const ls_chart *chart, guint series_index, double x)
{
  const ls_chart_series *me = chart->series->pdata[series_index];
  double base = 0;

  if (!is_stacked (me))
    return 0;
  for (guint i = 0; i < series_index; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (!is_stacked (s) || s->y_axis != me->y_axis)
        continue;
      for (guint k = 0; k < s->points->len; k++)
        {
          const ls_chart_point *p = &g_array_index (s->points, ls_chart_point, k);
          if (p->x == x && isfinite (p->y))
            base += p->y;
        }
    }
  return base;
}

static void
extend (double v, gboolean log_scale, double *lo, double *hi, gboolean *any)
{
  if (!isfinite (v) || (log_scale && v <= 0))
    return;
  if (!*any || v < *lo)
    *lo = v;
  if (!*any || v > *hi)
    *hi = v;
  *any = TRUE;
}

gboolean
ls_chart_data_range (const ls_chart *chart, ls_chart_axis_id axis, double *lo, double *hi)
{
  const ls_chart_axis *a = axis == LS_CHART_X ? &chart->x : axis == LS_CHART_Y2 ? &chart->y2 : &chart->y;
  gboolean log_scale = a->scale == LS_CHART_LOG, any = FALSE;

  *lo = *hi = NAN;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (axis != LS_CHART_X && s->y_axis != axis)
        continue;
      for (guint k = 0; k < s->points->len; k++)
        {
          const ls_chart_point *p = &g_array_index (s->points, ls_chart_point, k);
          if (!isfinite (p->x) || !isfinite (p->y))
            continue;
          if (axis == LS_CHART_X)
            extend (p->x, log_scale, lo, hi, &any);
          else if (is_stacked (s))
            {
              double base = ls_chart_stack_base (chart, i, p->x);
              extend (base, log_scale, lo, hi, &any);
              extend (base + p->y, log_scale, lo, hi, &any);
            }
          else
            {
              extend (p->y, log_scale, lo, hi, &any);
              extend (p->lo, log_scale, lo, hi, &any);
              extend (p->hi, log_scale, lo, hi, &any);
            }
        }
    }
  for (guint i = 0; i < chart->rules->len; i++)
    {
      const ls_chart_rule *r = &g_array_index (chart->rules, ls_chart_rule, i);
      if (r->axis == axis)
        extend (r->value, log_scale, lo, hi, &any);
    }
  return any;
}

GArray *
ls_chart_legend_entries (const ls_chart *chart)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (ls_chart_legend_entry));
  if (chart->legend->len > 0)
    {
      g_array_append_vals (out, chart->legend->data, chart->legend->len);
      return out;
    }
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (!s->in_legend)
        continue;
      ls_chart_legend_entry e = { s->label, s->color, s->kind, s->dash, s->markers, ls_chart_series_has_band (s) };
      g_array_append_val (out, e);
    }
  return out;
}

char *
ls_chart_describe (const ls_chart *chart)
{
  GString *s = g_string_new (chart->title);
  g_autoptr (GArray) legend = ls_chart_legend_entries (chart);

  if (chart->subtitle)
    g_string_append_printf (s, "\n%s", chart->subtitle);
  for (guint i = 0; i < legend->len; i++)
    g_string_append_printf (s, "\n%s %s", i == 0 ? _("Legend:") : "-",
                            g_array_index (legend, ls_chart_legend_entry, i).label);
  for (guint i = 0; chart->lanes && i < chart->lanes->labels->len; i++)
    g_string_append_printf (s, "\n%s %s", i == 0 ? _("Lanes:") : "-", (const char *) chart->lanes->labels->pdata[i]);
  for (guint i = 0; i < chart->notes->len; i++)
    g_string_append_printf (s, "\n%s", (const char *) chart->notes->pdata[i]);
  if (chart->simulated)
    g_string_append_printf (s, "\n%s", ls_chart_simulated_note ());
  return g_string_free (s, FALSE);
}

const char *
ls_chart_simulated_note (void)
{
  /* the same words as LS_CHART_SIMULATED_NOTE */
  return _("SIMULATED GPU: no device was used. The copy to the GPU and the model step were modelled on the CPU, "
           "not measured.");
}

const char *
ls_chart_simulated_badge (void)
{
  /* the same words as LS_CHART_SIMULATED_BADGE */
  return _("SIMULATED GPU");
}

char *
ls_chart_time_text (const char *iso)
{
  if (!iso || strlen (iso) < 16)
    return g_strdup (iso ? iso : "?");
  return g_strdup_printf ("%.10s\u00a0%.5s\u00a0UTC", iso, iso + 11);
}
