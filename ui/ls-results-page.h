/* Results: a recorded sweep's answer (verdict, DataLoader line, what to
 * try next, details) and its headline charts; any recorded sweep can be
 * picked, and the latest one is shown when the window opens. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "ui/ls-chart-view.h"
#include "ui/ls-ranks-view.h"

G_BEGIN_DECLS

#define LS_TYPE_RESULTS_PAGE (ls_results_page_get_type ())
G_DECLARE_FINAL_TYPE (LsResultsPage, ls_results_page, LS, RESULTS_PAGE, GtkBox)

/* Shows a recorded sweep: the recommendation from its summaries at once,
 * its charts when they have been read from the store (in a thread). */
void ls_results_page_show_sweep (LsResultsPage *self, const char *db, gint64 sweep_id, JsonArray *summaries);

/* Reads sweep_id (0: the latest recorded) from db in a thread and shows
 * it; with none recorded the page stays empty. */
void ls_results_page_open_sweep (LsResultsPage *self, const char *db, gint64 sweep_id);

/* How many charts hold data (the GUI test checks it). */
guint ls_results_page_count_charts_with_data (LsResultsPage *self);
/* Whether a sweep or its charts are still being read. */
gboolean ls_results_page_is_loading (LsResultsPage *self);

/* For tests: the sweep shown (0: none), its charts, what the page says
 * of failed runs (NULL: none failed), and the headline. */
gint64 ls_results_page_get_sweep_id (LsResultsPage *self);
guint ls_results_page_n_charts (LsResultsPage *self);
LsChartView *ls_results_page_get_chart (LsResultsPage *self, guint i);
const char *ls_results_page_get_failures (LsResultsPage *self);
const char *ls_results_page_get_headline (LsResultsPage *self);
/* The sweeps the picker offers. */
guint ls_results_page_n_sweeps (LsResultsPage *self);

/* The ranks of the run the verdict is about (hidden without ranks). */
LsRanksView *ls_results_page_get_ranks_view (LsResultsPage *self);

/* The what-if bar in the charts' header (tests move its GPU-speed control). */
GtkWidget *ls_results_page_get_whatif_bar (LsResultsPage *self);

/* Timeline…'s menu: one item per recorded run of the sweep shown, whose
 * action (results.timeline, the run's id) opens its timeline. */
GMenuModel *ls_results_page_get_timeline_menu (LsResultsPage *self);

G_END_DECLS
