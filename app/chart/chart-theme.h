/* The colours of charts, light and dark, from one palette (GNOME's): the
 * series colours are the same hues in both themes, lighter on dark so they
 * keep their contrast with the background. */
#pragma once

#include <glib.h>

#define LS_CHART_N_COLORS 8

typedef struct {
  double r, g, b;
} ls_rgb;

typedef struct {
  ls_rgb background;
  ls_rgb text;
  ls_rgb muted;       /* subtitles, notes, tick labels */
  ls_rgb grid;
  ls_rgb frame;       /* the axes' lines */
  ls_rgb badge_fill;  /* the simulated-GPU badge */
  ls_rgb badge_text;
  ls_rgb series[LS_CHART_N_COLORS];
  double band_alpha;  /* of p50..p95 and min..max bands */
} ls_chart_theme;

const ls_chart_theme *ls_chart_theme_get (gboolean dark);

/* A series colour; index < 0 is the text colour (neutral legend keys). */
ls_rgb ls_chart_theme_color (const ls_chart_theme *theme, int index);
