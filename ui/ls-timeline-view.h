/* A run's timeline in the window: the lanes chart (app/chart/chart-lanes.h)
 * drawn by the same renderer as the exported images, zoomed with Ctrl +
 * scroll, a pinch or zoom_by (the window's + and - buttons), panned with a
 * plain scroll or a drag, and the span under the pointer described in
 * exact figures (the "hovered" property and a tooltip). */
#pragma once

#include <gtk/gtk.h>

#include "app/chart/chart.h"

G_BEGIN_DECLS

#define LS_TYPE_TIMELINE_VIEW (ls_timeline_view_get_type ())
G_DECLARE_FINAL_TYPE (LsTimelineView, ls_timeline_view, LS, TIMELINE_VIEW, GtkWidget)

LsTimelineView *ls_timeline_view_new (void);

/* Takes ownership of chart (one made by ls_chart_run_lanes; NULL: empty)
 * and shows all of it. */
void ls_timeline_view_set_chart (LsTimelineView *self, ls_chart *chart);
const ls_chart *ls_timeline_view_get_chart (LsTimelineView *self);

/* Zooms by factor (> 1: in) around the fraction `at` (0..1) of the time
 * shown; never beyond the run, nor closer than 0.05 ms across. */
void ls_timeline_view_zoom_by (LsTimelineView *self, double factor, double at);
/* Shows the whole run again. */
void ls_timeline_view_zoom_reset (LsTimelineView *self);
/* The time shown, ms since the loop's first next(). */
void ls_timeline_view_get_range (LsTimelineView *self, double *lo, double *hi);

/* The span at (x, y) in the widget's coordinates, in words ("batch 12
 * (epoch 1, batch 4) · decode on worker 1 · from 812.40 ms for 23.10 ms"),
 * or NULL where there is none; newly allocated. The hover label shows it. */
char *ls_timeline_view_describe_at (LsTimelineView *self, double x, double y);

/* What the pointer's motion does: the span at (x, y) outlined and
 * described in "hovered" (and the tooltip). */
void ls_timeline_view_point_at (LsTimelineView *self, double x, double y);

G_END_DECLS
