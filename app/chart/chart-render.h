/* Draws a chart with cairo and pango: into an image, SVG or PDF surface for
 * exports, and into a widget's cairo context in the window. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "app/chart/chart-axis.h"
#include "app/chart/chart.h"

/* Where things go in a chart of a given size (the rectangle's origin is
 * 0,0). The window uses it to map the pointer to data. */
typedef struct {
  double font_px;     /* the text size everything else is measured in */
  gboolean has_plot;  /* FALSE: too small for a plot; only the title and notes */
  double plot_x, plot_y, plot_w, plot_h;
  ls_chart_ticks x, y, y2;
  gboolean has_y2;
  /* FALSE when an axis title had to be cut short (it wraps to two lines
   * first); the window's tests check it. */
  gboolean titles_whole;
  /* How the x labels are set: side by side, wrapped under each other, or
   * turned upright (then only every x_label_every-th is shown). They never
   * overlap. */
  enum { LS_CHART_X_LABELS_FLAT, LS_CHART_X_LABELS_WRAPPED, LS_CHART_X_LABELS_UPRIGHT } x_labels;
  guint x_label_every;
} ls_chart_layout;

/* Measures with cr's font machinery; draws nothing. */
void ls_chart_layout_compute (const ls_chart *chart, cairo_t *cr, double width, double height, ls_chart_layout *out);

typedef struct {
  double x, y, w, h;
} ls_chart_box;

/* Where the x axis's labels go at that size (ls_chart_box, as drawn: an
 * upright one's box is turned with it), for the tests that check none
 * overlaps another. Empty without a plot, and for a lanes chart. */
GArray *ls_chart_x_label_boxes (const ls_chart *chart, cairo_t *cr, double width, double height);

/* Draws the chart into the rectangle (x, y, width, height) of cr, in the
 * light or the dark theme. Text scales with the rectangle; any size works
 * (parts that cannot be read at that size are left out, not overlapped). */
void ls_chart_render (const ls_chart *chart, cairo_t *cr, double x, double y, double width, double height,
                      gboolean dark);
