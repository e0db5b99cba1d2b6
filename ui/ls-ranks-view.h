/* A run's ranks on Results (run --target pytorch --ranks N): one row per
 * rank (throughput, median batch wait, step, workers, threads, CPU), the
 * slowest rank highlighted with the stage that held it, and the node's
 * totals, from the run's summary already read for the verdict (app/core/
 * ranks-table.h): nothing here touches the store. Hidden for a run
 * without ranks. */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LS_TYPE_RANKS_VIEW (ls_ranks_view_get_type ())
G_DECLARE_FINAL_TYPE (LsRanksView, ls_ranks_view, LS, RANKS_VIEW, GtkBox)

LsRanksView *ls_ranks_view_new (void);

/* Shows summary's ranks (NULL, or a summary without ranks: hidden). */
void ls_ranks_view_set_summary (LsRanksView *self, JsonObject *summary);

/* For tests: the rank rows shown (0 when hidden), the rank whose row is
 * highlighted as the slowest (-1: none), and whether the node's row shows. */
guint ls_ranks_view_n_rows (LsRanksView *self);
int ls_ranks_view_highlighted (LsRanksView *self);
gboolean ls_ranks_view_has_node_row (LsRanksView *self);

G_END_DECLS
