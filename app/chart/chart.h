/* A chart as data: series of points on axes, a legend, notes and the
 * simulated-GPU mark. The cairo renderer (chart-render.h) draws it into
 * an image, SVG or PDF page, and the window draws the same model into a
 * widget. The builders in chart-store.h make the charts of a sweep or a
 * run from the store. */
#pragma once

#include <glib.h>

#define LS_CHART_ERROR (ls_chart_error_quark ())
GQuark ls_chart_error_quark (void);

typedef enum {
  LS_CHART_ERROR_UNKNOWN, /* no chart of that name */
  LS_CHART_ERROR_FORMAT,  /* not png, svg or pdf */
  LS_CHART_ERROR_SIZE,    /* outside 1..LS_CHART_MAX_SIZE */
  LS_CHART_ERROR_DRAW,    /* cairo could not draw (out of memory) */
  LS_CHART_ERROR_WRITE,   /* the file could not be written */
} ls_chart_error;

typedef enum {
  LS_CHART_UNIT_COUNT,    /* plain numbers (workers, batches) */
  LS_CHART_UNIT_MS,       /* milliseconds: shown in µs, ms or s as the range needs */
  LS_CHART_UNIT_BYTES,    /* bytes: shown in kB, MB or GB (powers of 1000, as the tables print) */
  LS_CHART_UNIT_FRACTION, /* 0..1: shown in per cent */
  LS_CHART_UNIT_SPS,      /* samples per second: shown as img/s */
  LS_CHART_UNIT_CATEGORY, /* 0..n-1, each labelled by the axis's categories */
} ls_chart_unit;

typedef enum {
  LS_CHART_LINEAR,
  LS_CHART_LOG, /* positive values only; the others are left out */
} ls_chart_scale;

typedef enum {
  LS_CHART_X,
  LS_CHART_Y,  /* left */
  LS_CHART_Y2, /* right: drawn when a series uses it */
} ls_chart_axis_id;

typedef struct {
  char *label;          /* "batch wait": the unit is added when drawn, "batch wait (ms)" */
  ls_chart_unit unit;
  ls_chart_scale scale;
  gboolean include_zero; /* linear: the range reaches 0 */
  gboolean integer;      /* ticks on whole numbers only (workers) */
  gboolean pad;          /* room at both ends, so points at the extremes clear the frame */
  double min, max;       /* NAN: from the data */
  GPtrArray *categories; /* LS_CHART_UNIT_CATEGORY: the labels of 0..n-1 */
} ls_chart_axis;

typedef enum {
  LS_CHART_LINE,
  LS_CHART_SCATTER, /* markers only */
  LS_CHART_BARS,    /* from 0 (or the axis's bottom); a band is drawn as a whisker */
} ls_chart_kind;

typedef enum {
  LS_CHART_SOLID,
  LS_CHART_DASHED,
  LS_CHART_DOTTED,
} ls_chart_dash;

/* lo and hi: a band around y (p50..p95, min..max of repeats); NAN without. */
typedef struct {
  double x, y, lo, hi;
} ls_chart_point;

typedef struct {
  char *label;
  ls_chart_kind kind;
  ls_chart_dash dash;
  int color;               /* palette index; -1: the text colour */
  ls_chart_axis_id y_axis; /* LS_CHART_Y or LS_CHART_Y2 */
  gboolean markers;        /* line: a marker on each point (while they are far enough apart) */
  gboolean value_labels;   /* bars: the value above each bar (stacked: the stack's total, on its last series) */
  gboolean stacked;        /* bars: on top of the earlier stacked bar series of its axis at the same x (one
                            * stacked bar per x, its segments in series order), not beside them */
  gboolean in_legend;      /* used when the chart has no legend entries of its own */
  GArray *points;          /* ls_chart_point */
} ls_chart_series;

typedef struct {
  char *label;
  int color;
  ls_chart_kind kind;
  ls_chart_dash dash;
  gboolean markers;
  gboolean band;
} ls_chart_legend_entry;

/* A horizontal reference line across the plot, labelled at its right end. */
typedef struct {
  ls_chart_axis_id axis;
  double value;
  char *label;
} ls_chart_rule;

struct ls_chart_lanes; /* chart-lanes.h */

typedef struct ls_chart {
  char *title;
  char *subtitle; /* NULL: none */
  ls_chart_axis x, y, y2;
  GPtrArray *series; /* ls_chart_series */
  GArray *legend;    /* ls_chart_legend_entry; empty: one entry per series in_legend */
  GPtrArray *notes;  /* lines of text under the plot */
  GArray *rules;     /* ls_chart_rule */
  gboolean simulated; /* a run in the chart used the simulated GPU: badge and note */
  /* The smallest text may not be smaller than this many pixels (0: text
   * scales freely with the size). On screen the layout then shows fewer
   * ticks and wraps the legend instead of shrinking the letters. */
  double min_text_px;
  /* The window says LS_CHART_SIMULATED_NOTE once for all its charts: the
   * badge stays on each, the note is left out. */
  gboolean simulated_note_elsewhere;
  /* A run's timeline (chart-lanes.h): drawn as lanes instead of the
   * series and axes; NULL for every other chart. Owned. */
  struct ls_chart_lanes *lanes;
} ls_chart;

/* The note drawn (and written into SVG/PDF metadata) on simulated charts. */
#define LS_CHART_SIMULATED_BADGE "SIMULATED GPU"
#define LS_CHART_SIMULATED_NOTE                                                                      \
  "SIMULATED GPU: no device was used. The copy to the GPU and the model step were modelled on the CPU, " \
  "not measured."

/* LS_CHART_SIMULATED_NOTE in the user's language, as charts and the
 * window show it. */
const char *ls_chart_simulated_note (void);

/* LS_CHART_SIMULATED_BADGE in the user's language, as charts draw it. */
const char *ls_chart_simulated_badge (void);

ls_chart *ls_chart_new (const char *title);
void ls_chart_free (ls_chart *chart);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_chart, ls_chart_free)

void ls_chart_set_subtitle (ls_chart *chart, const char *subtitle);

/* The axis to fill in (label, unit, scale and the flags above). */
ls_chart_axis *ls_chart_axis_get (ls_chart *chart, ls_chart_axis_id id);
void ls_chart_axis_set (ls_chart_axis *axis, const char *label, ls_chart_unit unit, ls_chart_scale scale);
void ls_chart_axis_add_category (ls_chart_axis *axis, const char *label);

/* A new series, owned by the chart; line series have markers by default. */
ls_chart_series *ls_chart_add_series (ls_chart *chart, const char *label, ls_chart_kind kind, int color,
                                      ls_chart_axis_id y_axis);
void ls_chart_series_add (ls_chart_series *series, double x, double y);
void ls_chart_series_add_band (ls_chart_series *series, double x, double y, double lo, double hi);
gboolean ls_chart_series_has_band (const ls_chart_series *series);

void ls_chart_add_legend (ls_chart *chart, const char *label, int color, ls_chart_kind kind, ls_chart_dash dash,
                          gboolean markers, gboolean band);
void ls_chart_add_note (ls_chart *chart, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* A reference line: on Y or Y2 a horizontal one labelled beside the plot;
 * on X a vertical one (a mark in time, an epoch's start) labelled at the
 * top inside the plot. */
void ls_chart_add_rule (ls_chart *chart, ls_chart_axis_id axis, double value, const char *label);

/* TRUE when a series uses the right axis. */
gboolean ls_chart_has_y2 (const ls_chart *chart);

/* Points shown in the chart, over all series. */
guint ls_chart_n_points (const ls_chart *chart);

/* A stacked bar series' bottom at x: the sum of the earlier stacked bar
 * series' values of the same axis there (0 for the first, or unstacked). */
double ls_chart_stack_base (const ls_chart *chart, guint series_index, double x);

/* The extent of the data on an axis (points, bands and rules; log: positive
 * values only). FALSE when there is none. */
gboolean ls_chart_data_range (const ls_chart *chart, ls_chart_axis_id axis, double *lo, double *hi);

/* The legend as drawn: the chart's own entries, or one per series in_legend
 * (newly allocated array of borrowed labels). */
GArray *ls_chart_legend_entries (const ls_chart *chart);

/* "2026-11-30 08:51 UTC" from the store's ISO 8601 time, with no-break
 * spaces so a subtitle never wraps inside it ("?" for NULL). */
char *ls_chart_time_text (const char *iso);

/* Every text of the chart in reading order (title, subtitle, legend,
 * notes, the simulated note), one per line: for SVG/PDF metadata and
 * screen readers. */
char *ls_chart_describe (const ls_chart *chart);
