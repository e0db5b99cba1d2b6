/* Results: the headline charts of the last sweep and a recommendation. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LS_TYPE_RESULTS_PAGE (ls_results_page_get_type ())
G_DECLARE_FINAL_TYPE (LsResultsPage, ls_results_page, LS, RESULTS_PAGE, GtkBox)

/* Shows a recorded sweep: the recommendation from its summaries at once,
 * its charts when they have been read from the store (in a thread). */
void ls_results_page_show_sweep (LsResultsPage *self, const char *db, gint64 sweep_id, JsonArray *summaries);

/* How many charts hold data (the GUI test checks it). */
guint ls_results_page_count_charts_with_data (LsResultsPage *self);
/* Whether the charts of the sweep shown are still being read. */
gboolean ls_results_page_is_loading (LsResultsPage *self);

/* The what-if bar under the verdict (tests move its GPU-speed control). */
GtkWidget *ls_results_page_get_whatif_bar (LsResultsPage *self);

G_END_DECLS
