/* Axes: the unit a range is shown in, "nice" ticks (steps of 1, 2 or 5
 * times a power of ten; decades on log scales), tick labels, and the map
 * from data to 0..1 that every layer multiplies by its size. */
#pragma once

#include <glib.h>

#include "app/chart/chart.h"

#define LS_CHART_MAX_TICKS 64

typedef struct {
  double factor;      /* shown value = data value x factor (a power of ten) */
  const char *symbol; /* "ms", "MB", "%", "img/s"; "" for plain counts */
} ls_chart_display_unit;

/* The unit to show values up to max_abs in: 0.4 ms as "400 µs", 6e6 bytes
 * as "6 MB", 0.85 as "85 %". */
ls_chart_display_unit ls_chart_display_unit_for (ls_chart_unit unit, double max_abs);

typedef struct {
  double lo, hi;                        /* the axis's ends, in data units (lo < hi) */
  ls_chart_scale scale;
  guint n;                              /* ticks, from lo to hi */
  double values[LS_CHART_MAX_TICKS];    /* in data units */
  double step;                          /* linear: between ticks, in data units */
  ls_chart_display_unit unit;
  int decimals;                         /* for the labels, in the display unit */
  gboolean exponent;                    /* labels as m×10ⁿ */
  const GPtrArray *categories;          /* borrowed: category labels */
} ls_chart_ticks;

/* The step of 1, 2 or 5 x 10^k nearest above raw (raw > 0). */
double ls_chart_nice_step (double raw);

/* Ticks for data from lo to hi (NAN: no data) on `axis` with about
 * `target` ticks. Handles empty, single-valued, negative, tiny and huge
 * ranges; the axis's min/max/include_zero/pad/integer are applied. */
void ls_chart_axis_ticks (const ls_chart_axis *axis, double lo, double hi, int target, ls_chart_ticks *out);

/* Where a data value falls from lo (0) to hi (1); NAN where it cannot be
 * shown (log scale, v <= 0). */
double ls_chart_ticks_norm (const ls_chart_ticks *ticks, double v);

/* A tick's label in the display unit, without the unit ("0.5", "12 000",
 * "2×10¹²", "Linux fork"). */
char *ls_chart_tick_label (const ls_chart_ticks *ticks, double value);

/* A value with its unit for labels on the plot ("1.2 ms", "62 346 img/s"). */
char *ls_chart_format_value (ls_chart_unit unit, double value);

/* "batch wait (ms)": the axis title with the display unit. */
char *ls_chart_axis_title (const ls_chart_axis *axis, const ls_chart_ticks *ticks);
