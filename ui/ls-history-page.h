/* History: every recorded run in a sortable, filterable table; compare,
 * delete, export and import. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LS_TYPE_HISTORY_PAGE (ls_history_page_get_type ())
G_DECLARE_FINAL_TYPE (LsHistoryPage, ls_history_page, LS, HISTORY_PAGE, GtkBox)

void ls_history_page_set_db (LsHistoryPage *self, const char *db);
/* Reads the store again, in a thread (app/store/run-list.h); the table
 * changes when it has been read. */
void ls_history_page_reload (LsHistoryPage *self);
gboolean ls_history_page_is_loading (LsHistoryPage *self);
guint ls_history_page_count_runs (LsHistoryPage *self);

/* File choosers, then the export or import in app/. */
void ls_history_page_export (LsHistoryPage *self);
void ls_history_page_import (LsHistoryPage *self);

/* Without a chooser (tests): export the selected runs (or every shown
 * run) to path, the format by its extension (ls_export_by_extension:
 * .csv .json .sqlite, or the sweep's charts as .png .svg .pdf); import a
 * file. */
gboolean ls_history_page_export_to (LsHistoryPage *self, const char *path, GError **error);
gboolean ls_history_page_import_from (LsHistoryPage *self, const char *path, GError **error);

/* Without a chooser (tests): the team-review report of the selected runs
 * (or every shown run) to path, Markdown for .md, else HTML
 * (app/report/report.h, as `loadscope report` writes it). */
gboolean ls_history_page_report_to (LsHistoryPage *self, const char *path, GError **error);

/* Opens Compare over every shown run (tests); NULL with a toast when there
 * are fewer than two. */
GtkWindow *ls_history_page_compare_shown (LsHistoryPage *self);

G_END_DECLS
