#include "ui/ls-timeline-view.h"

#include <adwaita.h>
#include <math.h>

#include "app/core/i18n.h"
#include "app/chart/chart-lanes.h"
#include "app/chart/chart-render.h"
#include "ui/ls-chart-view.h"

/* The narrowest time the view zooms to, ms across. */
#define MIN_SPAN_MS 0.05

struct _LsTimelineView {
  GtkWidget parent_instance;
  ls_chart *chart;
  char *hovered;       /* the span under the pointer, in words; NULL: none */
  int hovered_index;   /* its index in the lanes' spans; -1: none */
  double drag_lo;      /* view_lo when a drag began */
  double pinch_span;   /* the time shown when a pinch began */
  double pointer_x;    /* where the pointer is (NAN: not over the view), for zooming around it */
  /* The lanes as last drawn, redrawn only when the size, theme or time
   * shown changes: hovering draws the outline over them. */
  GskRenderNode *cache;
  int cache_w, cache_h;
  gboolean cache_dark;
  double cache_lo, cache_hi;
};

G_DEFINE_FINAL_TYPE (LsTimelineView, ls_timeline_view, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_HOVERED, PROP_RANGE_TEXT, N_PROPS };
static GParamSpec *props[N_PROPS];

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
layout_now (LsTimelineView *self, ls_lanes_layout *l)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  ls_chart_lanes_layout (self->chart, cr, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), l);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

void
ls_timeline_view_get_range (LsTimelineView *self, double *lo, double *hi)
{
  g_return_if_fail (LS_IS_TIMELINE_VIEW (self));
  *lo = 0;
  *hi = 0;
  if (!self->chart)
    return;
  const ls_chart_lanes *lanes = self->chart->lanes;
  *lo = isfinite (lanes->view_lo) ? lanes->view_lo : 0;
  *hi = isfinite (lanes->view_hi) ? lanes->view_hi : lanes->t_end;
}

/* Moves the view to [lo, hi], kept inside the run. */
static void
set_range (LsTimelineView *self, double lo, double hi)
{
  ls_chart_lanes *lanes = self->chart->lanes;
  double end = MAX (lanes->t_end, MIN_SPAN_MS), span = CLAMP (hi - lo, MIN_SPAN_MS, end);
  lo = CLAMP (lo, 0, end - span);
  lanes->view_lo = lo;
  lanes->view_hi = lo + span;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_TEXT]);
}

void
ls_timeline_view_zoom_by (LsTimelineView *self, double factor, double at)
{
  g_return_if_fail (LS_IS_TIMELINE_VIEW (self) && factor > 0);
  if (!self->chart)
    return;
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  double pivot = lo + CLAMP (at, 0, 1) * (hi - lo), span = (hi - lo) / factor;
  set_range (self, pivot - CLAMP (at, 0, 1) * span, pivot + (1 - CLAMP (at, 0, 1)) * span);
}

void
ls_timeline_view_zoom_reset (LsTimelineView *self)
{
  g_return_if_fail (LS_IS_TIMELINE_VIEW (self));
  if (self->chart)
    set_range (self, 0, self->chart->lanes->t_end);
}

char *
ls_timeline_view_describe_at (LsTimelineView *self, double x, double y)
{
  g_return_val_if_fail (LS_IS_TIMELINE_VIEW (self), NULL);
  if (!self->chart)
    return NULL;
  ls_lanes_layout l;
  layout_now (self, &l);
  int i = ls_chart_lanes_span_at (self->chart, &l, x, y);
  if (i < 0)
    return NULL;
  const ls_chart_lanes *lanes = self->chart->lanes;
  const ls_lane_span *s = &g_array_index (lanes->spans, ls_lane_span, i);
  return g_strdup_printf (_("batch %lld (epoch %u, batch %lld) · %s on %s · from "
                            "%.2f ms for %.2f ms"),
                          (long long) s->seq, s->epoch, (long long) s->batch, ls_span_kind_label (s->kind),
                          (const char *) lanes->labels->pdata[s->lane], s->start_ms, s->end_ms - s->start_ms);
}

static void
set_hovered (LsTimelineView *self, char *text)
{
  if (g_strcmp0 (text, self->hovered) == 0)
    {
      g_free (text);
      return;
    }
  g_free (self->hovered);
  self->hovered = text;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HOVERED]);
}

void
ls_timeline_view_point_at (LsTimelineView *self, double x, double y)
{
  g_return_if_fail (LS_IS_TIMELINE_VIEW (self));
  int before = self->hovered_index;
  self->pointer_x = x;
  self->hovered_index = -1;
  if (self->chart)
    {
      ls_lanes_layout l;
      layout_now (self, &l);
      self->hovered_index = ls_chart_lanes_span_at (self->chart, &l, x, y);
    }
  set_hovered (self, ls_timeline_view_describe_at (self, x, y));
  if (self->hovered_index != before)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *c, double x, double y, LsTimelineView *self)
{
  ls_timeline_view_point_at (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *c, LsTimelineView *self)
{
  self->pointer_x = NAN;
  self->hovered_index = -1;
  set_hovered (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The pointer's place across the plot, 0..1 (the middle without one). */
static double
pointer_fraction (LsTimelineView *self)
{
  if (!self->chart || !isfinite (self->pointer_x))
    return 0.5;
  ls_lanes_layout l;
  layout_now (self, &l);
  return l.plot_w > 0 ? CLAMP ((self->pointer_x - l.plot_x) / l.plot_w, 0, 1) : 0.5;
}

/* Ctrl + scroll zooms around the pointer; a plain scroll pans. */
static gboolean
on_scroll (GtkEventControllerScroll *c, double dx, double dy, LsTimelineView *self)
{
  if (!self->chart)
    return FALSE;
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (c));
  if (mods & GDK_CONTROL_MASK)
    {
      ls_timeline_view_zoom_by (self, pow (1.25, -dy), pointer_fraction (self));
      return TRUE;
    }
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  double step = (fabs (dx) > fabs (dy) ? dx : dy) * (hi - lo) * 0.1;
  set_range (self, lo + step, hi + step);
  return TRUE;
}

static void
on_drag_begin (GtkGestureDrag *g, double x, double y, LsTimelineView *self)
{
  double hi;
  ls_timeline_view_get_range (self, &self->drag_lo, &hi);
}

static void
on_drag_update (GtkGestureDrag *g, double dx, double dy, LsTimelineView *self)
{
  if (!self->chart)
    return;
  ls_lanes_layout l;
  layout_now (self, &l);
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  if (l.plot_w <= 0)
    return;
  double shift = -dx / l.plot_w * (hi - lo);
  set_range (self, self->drag_lo + shift, self->drag_lo + shift + (hi - lo));
}

static void
on_pinch_begin (GtkGesture *g, GdkEventSequence *seq, LsTimelineView *self)
{
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  self->pinch_span = hi - lo;
}

static void
on_pinch (GtkGestureZoom *g, double scale, LsTimelineView *self)
{
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  if (scale > 0 && hi > lo)
    ls_timeline_view_zoom_by (self, (hi - lo) / (self->pinch_span / scale), 0.5);
}

static void
ls_timeline_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  LsTimelineView *self = LS_TIMELINE_VIEW (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  if (!self->chart || w < 2 || h < 2)
    return;
  double lo, hi;
  gboolean dark = is_dark ();
  ls_timeline_view_get_range (self, &lo, &hi);
  if (!self->cache || self->cache_w != w || self->cache_h != h || self->cache_dark != dark || self->cache_lo != lo
      || self->cache_hi != hi)
    {
      g_clear_pointer (&self->cache, gsk_render_node_unref);
      GtkSnapshot *lanes = gtk_snapshot_new ();
      cairo_t *lcr = gtk_snapshot_append_cairo (lanes, &GRAPHENE_RECT_INIT (0, 0, w, h));
      ls_chart_render (self->chart, lcr, 0, 0, w, h, dark);
      cairo_destroy (lcr);
      self->cache = gtk_snapshot_free_to_node (lanes);
      self->cache_w = w, self->cache_h = h, self->cache_dark = dark, self->cache_lo = lo, self->cache_hi = hi;
    }
  if (self->cache)
    gtk_snapshot_append_node (snapshot, self->cache);
  /* The span under the pointer, outlined. */
  if (self->hovered_index >= 0 && (guint) self->hovered_index < self->chart->lanes->spans->len)
    {
      cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
      ls_lanes_layout l;
      ls_chart_lanes_layout (self->chart, cr, w, h, &l);
      double x, y, bw, bh;
      ls_chart_lanes_span_box (self->chart, &l, (guint) self->hovered_index, &x, &y, &bw, &bh);
      double ink = is_dark () ? 1 : 0;
      cairo_set_source_rgb (cr, ink, ink, ink);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, x - 1, y - 1, MAX (bw, 1) + 2, bh + 2);
      cairo_stroke (cr);
      cairo_destroy (cr);
    }
}

static void
ls_timeline_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *min, int *nat, int *min_b,
                          int *nat_b)
{
  *min = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 260;
  *nat = orientation == GTK_ORIENTATION_HORIZONTAL ? 900 : 520;
  *min_b = *nat_b = -1;
}

static void
on_style_changed (AdwStyleManager *m, GParamSpec *p, GtkWidget *widget)
{
  gtk_widget_queue_draw (widget);
}

static char *
range_text (LsTimelineView *self)
{
  if (!self->chart || self->chart->lanes->spans->len == 0)
    return g_strdup ("");
  double lo, hi;
  ls_timeline_view_get_range (self, &lo, &hi);
  double end = self->chart->lanes->t_end;
  return g_strdup_printf (_("%.1f – %.1f ms of %.1f ms (%.0f×)"), lo, hi, end, hi > lo ? end / (hi - lo) : 1);
}

static void
ls_timeline_view_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  LsTimelineView *self = LS_TIMELINE_VIEW (object);
  switch (id)
    {
    case PROP_HOVERED:
      g_value_set_string (value, self->hovered);
      break;
    case PROP_RANGE_TEXT:
      g_value_take_string (value, range_text (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ls_timeline_view_dispose (GObject *object)
{
  LsTimelineView *self = LS_TIMELINE_VIEW (object);
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  g_clear_pointer (&self->chart, ls_chart_free);
  g_clear_pointer (&self->hovered, g_free);
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  G_OBJECT_CLASS (ls_timeline_view_parent_class)->dispose (object);
}

static void
ls_timeline_view_class_init (LsTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->dispose = ls_timeline_view_dispose;
  object_class->get_property = ls_timeline_view_get_property;
  widget_class->snapshot = ls_timeline_view_snapshot;
  widget_class->measure = ls_timeline_view_measure;
  props[PROP_HOVERED] = g_param_spec_string ("hovered", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_RANGE_TEXT]
      = g_param_spec_string ("range-text", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ls_timeline_view_init (LsTimelineView *self)
{
  GtkWidget *w = GTK_WIDGET (self);
  self->pointer_x = NAN;
  self->hovered_index = -1;
  gtk_widget_set_hexpand (w, TRUE);
  gtk_widget_set_vexpand (w, TRUE);
  gtk_widget_set_focusable (w, TRUE);

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (w, motion);

  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (w, scroll);

  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (w, GTK_EVENT_CONTROLLER (drag));

  GtkGesture *pinch = gtk_gesture_zoom_new ();
  g_signal_connect (pinch, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (pinch, "scale-changed", G_CALLBACK (on_pinch), self);
  gtk_widget_add_controller (w, GTK_EVENT_CONTROLLER (pinch));

  g_signal_connect (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (on_style_changed), self);
}

LsTimelineView *
ls_timeline_view_new (void)
{
  return g_object_new (LS_TYPE_TIMELINE_VIEW, NULL);
}

void
ls_timeline_view_set_chart (LsTimelineView *self, ls_chart *chart)
{
  g_return_if_fail (LS_IS_TIMELINE_VIEW (self));
  g_clear_pointer (&self->chart, ls_chart_free);
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  self->chart = chart;
  if (chart)
    {
      g_return_if_fail (chart->lanes != NULL);
      chart->min_text_px = LS_CHART_VIEW_MIN_TEXT_PX;
      chart->lanes->view_lo = chart->lanes->view_hi = NAN;
      /* Screen readers get the chart's texts: title, legend, lanes, notes. */
      g_autofree char *text = ls_chart_describe (chart);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
    }
  self->hovered_index = -1;
  set_hovered (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RANGE_TEXT]);
}

const ls_chart *
ls_timeline_view_get_chart (LsTimelineView *self)
{
  g_return_val_if_fail (LS_IS_TIMELINE_VIEW (self), NULL);
  return self->chart;
}
