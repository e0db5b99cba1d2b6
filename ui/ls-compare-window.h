/* Compare: runs side by side, the figures down first (each against the
 * first run, marked better or worse), then the knobs, one column a run;
 * under them the runs' batch waits overlaid as CDFs, read from the store
 * in a thread. The row labels and the run headers stay in view while the
 * table scrolls; knobs that differ between the runs are marked. The table
 * itself (cells, differs flags, per-cent deltas) is app/report/compare-table.h. */
#pragma once

#include <adwaita.h>

#include "app/report/compare-table.h"

G_BEGIN_DECLS

#define LS_TYPE_COMPARE_WINDOW (ls_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (LsCompareWindow, ls_compare_window, LS, COMPARE_WINDOW, AdwWindow)

/* Shows table (taken: the window frees it), its first run the baseline. */
LsCompareWindow *ls_compare_window_new (GtkWindow *parent, ls_compare_table *table);

guint ls_compare_window_n_runs (LsCompareWindow *self);
/* The labels of the knobs whose values differ between the runs, in order. */
GPtrArray *ls_compare_window_differing_knobs (LsCompareWindow *self);
/* The waits' chart is being read; then its points (0: none, or not read). */
gboolean ls_compare_window_is_reading (LsCompareWindow *self);
guint ls_compare_window_n_cdf_points (LsCompareWindow *self);
/* Points in the overlaid memory chart (0 until read). */
guint ls_compare_window_n_memory_points (LsCompareWindow *self);

G_END_DECLS
