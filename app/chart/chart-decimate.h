/* What a pixel column can show of many points: a line keeps, per column,
 * its first, lowest, highest and last point; a band keeps the lowest lo and
 * the highest hi. 100,000 points become a few per column, and the picture
 * is the same. Coordinates are in pixels; NAN breaks a line or band. */
#pragma once

#include <glib.h>

typedef struct {
  double x, y;
} ls_chart_xy;

typedef struct {
  double x, lo, hi;
} ls_chart_span;

/* Consecutive points in one pixel column (same floor (x)) become at most
 * four, in drawing order. A point with a NAN coordinate is kept as a break.
 * out holds at least n points; returns how many were written. */
guint ls_chart_decimate_line (const ls_chart_xy *in, guint n, ls_chart_xy *out);

/* The ink of a dense line (points closer than a pixel or two): per pixel
 * column, the lowest and highest y the line reaches there, including its
 * segments to the neighbouring columns up to their middle. Filled as one
 * ribbon, it looks like the stroked line and costs a fraction of it. A
 * point with a NAN coordinate is kept as a break. out holds at least n
 * spans; returns how many were written. */
guint ls_chart_line_ribbon (const ls_chart_xy *in, guint n, ls_chart_span *out);

/* Consecutive spans in one pixel column become one (the column's first x,
 * lowest lo, highest hi). A span with a NAN is kept as a break. */
guint ls_chart_decimate_spans (const ls_chart_span *in, guint n, ls_chart_span *out);
