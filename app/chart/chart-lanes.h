/* A run's timeline as lanes: one lane per worker and one for the training
 * loop, each batch's build drawn as its stage spans on the lane of the
 * worker that built it, the loop's waits and steps, and epoch boundaries.
 * The lanes are data (ls_chart_lanes), drawn by the same renderer into
 * files, reports and the window; the window maps the pointer to a span
 * with ls_chart_lanes_span_at. A chart with lanes (ls_chart.lanes) is drawn
 * as lanes, not as series. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "app/chart/chart.h"

typedef enum {
  LS_SPAN_READ, /* the loader's stages of a batch, in build order */
  LS_SPAN_DECODE,
  LS_SPAN_TRANSFORM,
  LS_SPAN_WRITE,
  LS_SPAN_SAMPLER, /* a script's DataLoader: its sampler's indices, */
  LS_SPAN_GETITEM, /* Dataset.__getitem__ over the batch's samples, */
  LS_SPAN_COLLATE, /* collate_fn, */
  LS_SPAN_HANDOFF, /* and its way from the worker to the training loop (the end of the loop's wait, on its lane) */
  LS_SPAN_BUILD,   /* a build whose stages were not recorded */
  LS_SPAN_WAIT,    /* the loop blocked in next(): the data stall */
  LS_SPAN_STEP,    /* the loop's work on a batch until its next next() */
  LS_N_SPAN_KINDS
} ls_span_kind;

/* "read", "__getitem__", "wait for data", "training step" ... */
const char *ls_span_kind_label (ls_span_kind kind);
/* Its palette index (chart-theme.h; -1: the text colour). */
int ls_span_kind_color (ls_span_kind kind);

typedef struct {
  guint lane;     /* index into ls_chart_lanes.labels */
  ls_span_kind kind;
  double start_ms, end_ms; /* since the iteration started (the store's ready_ms clock) */
  gint64 seq;     /* the batch's delivery order */
  guint epoch;
  gint64 batch;   /* within its epoch */
} ls_lane_span;

typedef struct {
  double t_ms; /* where the loop began waiting for the epoch's first batch */
  guint epoch;
} ls_lane_mark;

typedef struct ls_chart_lanes {
  GPtrArray *labels; /* lane names, top to bottom: "worker 0" ... "training loop" (last) */
  GArray *spans;     /* ls_lane_span */
  GArray *epochs;    /* ls_lane_mark: each epoch after the first */
  double t_end;      /* the last span's end (ms) */
  double view_lo, view_hi; /* the time shown (ms); NAN: all of it */
} ls_chart_lanes;

/* New empty lanes, attached to chart (which frees them). */
ls_chart_lanes *ls_chart_set_lanes (ls_chart *chart);
guint ls_chart_lanes_add_lane (ls_chart_lanes *lanes, const char *label);
void ls_chart_lanes_add_span (ls_chart_lanes *lanes, const ls_lane_span *span);
void ls_chart_lanes_free (ls_chart_lanes *lanes);

/* Where the lanes go in a chart of width x height. */
typedef struct {
  double font_px;
  gboolean has_plot;
  double plot_x, plot_y, plot_w, plot_h;
  double lane_h;    /* each lane's height; lane i's top is plot_y + i * lane_h */
  double t_lo, t_hi; /* the time across the plot, ms */
} ls_lanes_layout;

void ls_chart_lanes_layout (const ls_chart *chart, cairo_t *cr, double width, double height, ls_lanes_layout *out);

/* The span under (x, y) of a chart drawn at 0,0 with layout l: its index
 * in lanes->spans, or -1. Of spans too thin to point at, the nearest one
 * within 3 px. */
int ls_chart_lanes_span_at (const ls_chart *chart, const ls_lanes_layout *l, double x, double y);

/* Where span `index` is drawn (clipped to the plot sideways), for the
 * window's hover mark. */
void ls_chart_lanes_span_box (const ls_chart *chart, const ls_lanes_layout *l, guint index, double *x, double *y,
                              double *w, double *h);

/* Draws a chart that has lanes (called by ls_chart_render). */
void ls_chart_lanes_render (const ls_chart *chart, cairo_t *cr, double width, double height, gboolean dark);
