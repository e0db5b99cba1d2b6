/* The Results page's what-if bar: a GPU-speed control (0.25x to 4x) that
 * draws the model's predictions (app/analysis/, fitted to the sweep shown)
 * as dashed lines over the measured points of the utilization chart. */
#pragma once

#include <adwaita.h>

#include "ui/ls-chart-view.h"

G_BEGIN_DECLS

#define LS_TYPE_WHATIF_BAR (ls_whatif_bar_get_type ())
G_DECLARE_FINAL_TYPE (LsWhatifBar, ls_whatif_bar, LS, WHATIF_BAR, GtkBox)

LsWhatifBar *ls_whatif_bar_new (void);

/* The sweep shown and the chart to draw on (the utilization chart). */
void ls_whatif_bar_set_sweep (LsWhatifBar *self, const char *db, gint64 sweep_id, LsChartView *view);

/* Draws the predictions again on the view's chart (after the page has
 * put a freshly read chart there). The store is read in a thread: the
 * lines come when it has been. */
void ls_whatif_bar_refresh (LsWhatifBar *self);

/* The GPU speed chosen (1: as measured). */
double ls_whatif_bar_get_speed (LsWhatifBar *self);

G_END_DECLS
