/* The pieces the chart renderer is drawn with (private to chart-*.c): a
 * painter for text and marks in the theme, and the map from data to the
 * plot's pixels. */
#pragma once

#include <cairo.h>
#include <pango/pangocairo.h>

#include "app/chart/chart-render.h"
#include "app/chart/chart-theme.h"

/* Text sizes, in units of the base size (font_px). */
#define TITLE_SIZE 1.25
#define SUBTITLE_SIZE 0.85
#define LEGEND_SIZE 0.9
#define TICK_SIZE 0.85
#define AXIS_TITLE_SIZE 0.9
#define NOTE_SIZE 0.8
#define BADGE_SIZE 0.8
#define VALUE_SIZE 0.75

typedef struct {
  cairo_t *cr;
  PangoLayout *layout;
  PangoFontDescription *font;
  const ls_chart_theme *theme;
  double f; /* base text size, pixels */
} ls_painter;

void ls_painter_init (ls_painter *p, cairo_t *cr, const ls_chart_theme *theme, double f);
void ls_painter_clear (ls_painter *p);

/* Prepares the layout: text at size (x f), bold or not, wrapped or
 * ellipsized to width (<= 0: neither). */
void ls_painter_set_text (ls_painter *p, const char *text, double size, gboolean bold, double width, gboolean wrap);
/* Wraps the prepared layout (set with a width) to at most n lines, the
 * last one ellipsized. */
void ls_painter_max_lines (ls_painter *p, int n);
/* The prepared layout's size in pixels. */
void ls_painter_size (ls_painter *p, double *w, double *h);
void ls_painter_text_size (ls_painter *p, const char *text, double size, gboolean bold, double *w, double *h);
/* Shows the prepared layout with its box anchored at (x, y): ax, ay are
 * 0 (left/top), 0.5 (centre) or 1 (right/bottom). */
void ls_painter_show (ls_painter *p, double x, double y, double ax, double ay, ls_rgb color);
void ls_painter_text (ls_painter *p, const char *text, double size, gboolean bold, double x, double y, double ax,
                      double ay, ls_rgb color);
/* A marker, its shape by colour (circle, square, triangle, diamond) so
 * series stay apart without colour; hollow for dashed and dotted series. */
void ls_painter_marker (ls_painter *p, double x, double y, double r, int color, gboolean hollow);

void ls_painter_color (cairo_t *cr, ls_rgb c, double alpha);
/* Crisp one-pixel lines on image surfaces. */
double ls_chart_snap (double v);
double ls_chart_line_width (double f);
void ls_chart_set_dash (cairo_t *cr, ls_chart_dash dash, double lw);

/* The plot's layers (chart-layers.c): grid and reference lines under the
 * series, then the series, clipped to the plot. */
void ls_chart_draw_series (const ls_chart *chart, ls_painter *p, const ls_chart_layout *l);

static inline const ls_chart_axis *
ls_chart_axis_of (const ls_chart *chart, ls_chart_axis_id id)
{
  return id == LS_CHART_X ? &chart->x : id == LS_CHART_Y2 ? &chart->y2 : &chart->y;
}

static inline double
ls_chart_px_x (const ls_chart_layout *l, double v)
{
  return l->plot_x + ls_chart_ticks_norm (&l->x, v) * l->plot_w;
}

static inline double
ls_chart_px_y (const ls_chart_layout *l, const ls_chart_ticks *t, double v)
{
  return l->plot_y + (1 - ls_chart_ticks_norm (t, v)) * l->plot_h;
}

static inline const ls_chart_ticks *
ls_chart_y_ticks (const ls_chart_layout *l, ls_chart_axis_id id)
{
  return id == LS_CHART_Y2 ? &l->y2 : &l->y;
}
