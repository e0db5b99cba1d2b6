/* History: every recorded run in a sortable, filterable table, its
 * figures first; compare, delete, export and import, each in a thread
 * (app/report/store-jobs.h). Double-click, Enter or Open on a run emits
 * "open-sweep" (gint64 sweep id) for the window to show it in Results.
 * What the tests drive without a chooser: ls-history-page-private.h. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LS_TYPE_HISTORY_PAGE (ls_history_page_get_type ())
G_DECLARE_FINAL_TYPE (LsHistoryPage, ls_history_page, LS, HISTORY_PAGE, GtkBox)

void ls_history_page_set_db (LsHistoryPage *self, const char *db);
/* Reads the store again, in a thread (app/store/run-list.h); the table
 * changes when it has been read. */
void ls_history_page_reload (LsHistoryPage *self);
/* TRUE while the store is read, and while the table is still filtered and
 * sorted (a slice a frame) or its columns folded. */
gboolean ls_history_page_is_loading (LsHistoryPage *self);
guint ls_history_page_count_runs (LsHistoryPage *self);

/* File choosers, then the export or import in app/. */
void ls_history_page_export (LsHistoryPage *self);
void ls_history_page_import (LsHistoryPage *self);

G_END_DECLS
