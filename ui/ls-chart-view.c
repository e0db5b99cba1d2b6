#include "ui/ls-chart-view.h"

#include <adwaita.h>
#include <math.h>

#include "app/core/i18n.h"
#include "app/chart/chart-render.h"

struct _LsChartView {
  GtkWidget parent_instance;
  ls_chart *chart;
  char *title, *x_label, *y_label;
  gboolean simulated_note_elsewhere;
};

G_DEFINE_FINAL_TYPE (LsChartView, ls_chart_view, GTK_TYPE_WIDGET)

/* For .ui templates: what ls_chart_view_new takes, and the note's place. */
enum { PROP_0, PROP_TITLE, PROP_X_LABEL, PROP_Y_LABEL, PROP_SIMULATED_NOTE_ELSEWHERE, N_PROPS };
static GParamSpec *props[N_PROPS];

static ls_chart_unit
unit_from_label (const char *label)
{
  if (!label)
    return LS_CHART_UNIT_COUNT;
  if (g_str_equal (label, "ms"))
    return LS_CHART_UNIT_MS;
  if (g_str_equal (label, "MB"))
    return LS_CHART_UNIT_BYTES;
  return LS_CHART_UNIT_COUNT;
}

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
ls_chart_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  LsChartView *self = LS_CHART_VIEW (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  if (!self->chart || w < 2 || h < 2)
    return;
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  ls_chart_render (self->chart, cr, 0, 0, w, h, is_dark ());
  cairo_destroy (cr);
}

/* The renderer's layout at the widget's size (FALSE: no chart). */
static gboolean
compute_layout (LsChartView *self, ls_chart_layout *layout)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  if (!self->chart || w < 2 || h < 2)
    return FALSE;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  ls_chart_layout_compute (self->chart, cr, w, h, layout);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  return TRUE;
}

/* The point nearest the pointer, in the renderer's own layout. */
static gboolean
ls_chart_view_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  LsChartView *self = LS_CHART_VIEW (widget);
  ls_chart_layout layout;

  if (keyboard || !compute_layout (self, &layout) || !layout.has_plot)
    return FALSE;

  double best = 14 * 14;
  const ls_chart_series *best_series = NULL;
  const ls_chart_point *best_point = NULL;
  for (guint i = 0; i < self->chart->series->len; i++)
    {
      const ls_chart_series *series = self->chart->series->pdata[i];
      const ls_chart_ticks *ty = series->y_axis == LS_CHART_Y2 ? &layout.y2 : &layout.y;
      for (guint k = 0; k < series->points->len; k++)
        {
          const ls_chart_point *p = &g_array_index (series->points, ls_chart_point, k);
          double nx = ls_chart_ticks_norm (&layout.x, p->x), ny = ls_chart_ticks_norm (ty, p->y);
          if (isnan (nx) || isnan (ny))
            continue;
          double px = layout.plot_x + nx * layout.plot_w, py = layout.plot_y + (1 - ny) * layout.plot_h;
          double d = (px - x) * (px - x) + (py - y) * (py - y);
          if (d < best)
            {
              best = d;
              best_series = series;
              best_point = p;
            }
        }
    }
  if (!best_point)
    return FALSE;
  const ls_chart_axis *yaxis = best_series->y_axis == LS_CHART_Y2 ? &self->chart->y2 : &self->chart->y;
  g_autofree char *xv = self->chart->x.unit == LS_CHART_UNIT_CATEGORY && self->chart->x.categories
                                && best_point->x >= 0 && best_point->x < self->chart->x.categories->len
                            ? g_strdup (self->chart->x.categories->pdata[(guint) best_point->x])
                            : ls_chart_format_value (self->chart->x.unit, best_point->x);
  g_autofree char *yv = ls_chart_format_value (yaxis->unit, best_point->y);
  g_autofree char *band = NULL;
  if (!isnan (best_point->lo) && !isnan (best_point->hi))
    {
      g_autofree char *lo = ls_chart_format_value (yaxis->unit, best_point->lo);
      g_autofree char *hi = ls_chart_format_value (yaxis->unit, best_point->hi);
      band = g_strdup_printf (_("\nrange %s to %s"), lo, hi);
    }
  g_autofree char *text = g_strdup_printf ("%s\n%s: %s\n%s: %s%s", best_series->label ? best_series->label : "",
                                           self->chart->x.label ? self->chart->x.label : "x", xv,
                                           yaxis->label ? yaxis->label : "y", yv, band ? band : "");
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* The least height at `width` that leaves the plot LS_CHART_VIEW_MIN_PLOT_H
 * (title, legend and notes take what they need above and below it). */
static int
height_for_plot (LsChartView *self, int width)
{
  int h = 300;
  if (!self->chart || width < 2)
    return h;
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  for (; h < 1200; h += 10)
    {
      ls_chart_layout layout;
      ls_chart_layout_compute (self->chart, cr, width, h, &layout);
      if (layout.has_plot && layout.plot_h >= LS_CHART_VIEW_MIN_PLOT_H)
        break;
    }
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  return h;
}

static GtkSizeRequestMode
ls_chart_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
ls_chart_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *min, int *nat, int *min_b,
                       int *nat_b)
{
  /* Text keeps its size, so a chart needs room for it: taller, not smaller. */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *min = 320;
      *nat = 560;
    }
  else
    {
      *min = height_for_plot (LS_CHART_VIEW (widget), for_size > 0 ? for_size : 320);
      *nat = MAX (*min, 380);
    }
  *min_b = *nat_b = -1;
}

static void
on_dark_changed (LsChartView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
ls_chart_view_dispose (GObject *object)
{
  LsChartView *self = LS_CHART_VIEW (object);
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  g_clear_pointer (&self->chart, ls_chart_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->x_label, g_free);
  g_clear_pointer (&self->y_label, g_free);
  G_OBJECT_CLASS (ls_chart_view_parent_class)->dispose (object);
}

static void
ls_chart_view_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  LsChartView *self = LS_CHART_VIEW (object);
  switch (id)
    {
    case PROP_TITLE:
      g_free (self->title);
      self->title = g_value_dup_string (value);
      break;
    case PROP_X_LABEL:
      g_free (self->x_label);
      self->x_label = g_value_dup_string (value);
      break;
    case PROP_Y_LABEL:
      g_free (self->y_label);
      self->y_label = g_value_dup_string (value);
      break;
    case PROP_SIMULATED_NOTE_ELSEWHERE:
      ls_chart_view_set_simulated_note_elsewhere (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ls_chart_view_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  LsChartView *self = LS_CHART_VIEW (object);
  switch (id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_X_LABEL:
      g_value_set_string (value, self->x_label);
      break;
    case PROP_Y_LABEL:
      g_value_set_string (value, self->y_label);
      break;
    case PROP_SIMULATED_NOTE_ELSEWHERE:
      g_value_set_boolean (value, self->simulated_note_elsewhere);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ls_chart_view_class_init (LsChartViewClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = ls_chart_view_dispose;
  object_class->set_property = ls_chart_view_set_property;
  object_class->get_property = ls_chart_view_get_property;
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;
  props[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  props[PROP_X_LABEL] = g_param_spec_string ("x-label", NULL, NULL, NULL, flags);
  props[PROP_Y_LABEL] = g_param_spec_string ("y-label", NULL, NULL, NULL, flags);
  props[PROP_SIMULATED_NOTE_ELSEWHERE] = g_param_spec_boolean ("simulated-note-elsewhere", NULL, NULL, FALSE,
                                                               G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  widget_class->snapshot = ls_chart_view_snapshot;
  widget_class->query_tooltip = ls_chart_view_query_tooltip;
  widget_class->measure = ls_chart_view_measure;
  widget_class->get_request_mode = ls_chart_view_get_request_mode;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ls_chart_view_init (LsChartView *self)
{
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (on_dark_changed), self);
}

LsChartView *
ls_chart_view_new (const char *title, const char *x_label, const char *y_label)
{
  return g_object_new (LS_TYPE_CHART_VIEW, "title", title, "x-label", x_label, "y-label", y_label, NULL);
}

void
ls_chart_view_set_chart (LsChartView *self, ls_chart *chart)
{
  g_clear_pointer (&self->chart, ls_chart_free);
  self->chart = chart;
  if (chart)
    {
      /* Readable at any window size: never smaller than the UI's small print. */
      chart->min_text_px = LS_CHART_VIEW_MIN_TEXT_PX;
      chart->simulated_note_elsewhere = self->simulated_note_elsewhere;
      g_autofree char *text = ls_chart_describe (chart);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self)); /* its legend and notes decide the height it needs */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ls_chart_view_set_series (LsChartView *self, const char *label, const double *x, guint n, const double *y,
                          const char *label2, const double *y2)
{
  ls_chart *chart = ls_chart_new (self->title);
  ls_chart_axis *xa = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (xa, self->x_label, LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  xa->include_zero = TRUE;
  xa->integer = self->x_label && g_str_equal (self->x_label, "batch");
  ls_chart_axis *ya = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (ya, self->y_label && g_str_equal (self->y_label, "MB") ? "memory" : "wait",
                     unit_from_label (self->y_label), LS_CHART_LINEAR);
  ya->include_zero = TRUE;
  if (n > 0)
    {
      double scale = unit_from_label (self->y_label) == LS_CHART_UNIT_BYTES ? 1e6 : 1;
      ls_chart_series *s = ls_chart_add_series (chart, label, LS_CHART_LINE, 0, LS_CHART_Y);
      s->markers = n < 60;
      for (guint i = 0; i < n; i++)
        ls_chart_series_add (s, x[i], y[i] * scale);
      if (label2 && y2)
        {
          ls_chart_series *s2 = ls_chart_add_series (chart, label2, LS_CHART_LINE, 1, LS_CHART_Y);
          s2->markers = FALSE;
          for (guint i = 0; i < n; i++)
            ls_chart_series_add (s2, x[i], y2[i] * scale);
        }
    }
  ls_chart_view_set_chart (self, chart);
}

void
ls_chart_view_add_x_mark (LsChartView *self, double x, const char *label)
{
  g_return_if_fail (LS_IS_CHART_VIEW (self));
  if (!self->chart)
    return;
  ls_chart_add_rule (self->chart, LS_CHART_X, x, label);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const ls_chart *
ls_chart_view_get_chart (LsChartView *self)
{
  return self->chart;
}

guint
ls_chart_view_n_points (LsChartView *self)
{
  return self->chart ? ls_chart_n_points (self->chart) : 0;
}

gboolean
ls_chart_view_get_plot_area (LsChartView *self, graphene_rect_t *plot, gboolean *titles_whole)
{
  ls_chart_layout layout;
  g_return_val_if_fail (LS_IS_CHART_VIEW (self), FALSE);
  if (!compute_layout (self, &layout) || !layout.has_plot)
    return FALSE;
  if (plot)
    graphene_rect_init (plot, (float) layout.plot_x, (float) layout.plot_y, (float) layout.plot_w,
                        (float) layout.plot_h);
  if (titles_whole)
    *titles_whole = layout.titles_whole;
  return TRUE;
}

void
ls_chart_view_set_simulated_note_elsewhere (LsChartView *self, gboolean elsewhere)
{
  self->simulated_note_elsewhere = elsewhere;
  if (self->chart)
    self->chart->simulated_note_elsewhere = elsewhere;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
