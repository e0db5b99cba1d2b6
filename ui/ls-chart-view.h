/* A chart in the window: the same chart model and cairo renderer as the
 * exported images, drawn in snapshot(), with the exact value of the
 * nearest point in a tooltip. */
#pragma once

#include <gtk/gtk.h>

#include "app/chart/chart.h"

G_BEGIN_DECLS

/* The smallest text a chart in the window shows, in pixels. */
#define LS_CHART_VIEW_MIN_TEXT_PX 11.0
/* The plot's least height: a chart asks for the height that leaves it this
 * much (and scrolls in a small window rather than lose its plot). */
#define LS_CHART_VIEW_MIN_PLOT_H 150

#define LS_TYPE_CHART_VIEW (ls_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (LsChartView, ls_chart_view, LS, CHART_VIEW, GtkWidget)

/* An empty view that set_series fills (live views): title and the axis
 * labels; units are taken from the label ("ms", "MB", "batch", "seconds"). */
LsChartView *ls_chart_view_new (const char *title, const char *x_label, const char *y_label);

/* Takes ownership of chart (NULL: empty). */
void ls_chart_view_set_chart (LsChartView *self, ls_chart *chart);

/* One or two line series over the same x values (live views); n = 0 clears. */
void ls_chart_view_set_series (LsChartView *self, const char *label, const double *x, guint n, const double *y,
                               const char *label2, const double *y2);

/* A vertical mark at x on the chart shown (an epoch's start), until the
 * next set_series. */
void ls_chart_view_add_x_mark (LsChartView *self, double x, const char *label);

/* The chart shown, or NULL (the tests read it). */
const ls_chart *ls_chart_view_get_chart (LsChartView *self);

/* Points shown (the GUI test checks charts have data). */
guint ls_chart_view_n_points (LsChartView *self);

/* The plot's rectangle as the chart is laid out at the widget's size now,
 * and whether every axis title is shown whole (the window's tests check
 * both). FALSE with neither set when there is no chart or no plot. */
gboolean ls_chart_view_get_plot_area (LsChartView *self, graphene_rect_t *plot, gboolean *titles_whole);

/* The page around the chart says the simulated-GPU note itself; the chart
 * keeps only its badge. */
void ls_chart_view_set_simulated_note_elsewhere (LsChartView *self, gboolean elsewhere);

G_END_DECLS
