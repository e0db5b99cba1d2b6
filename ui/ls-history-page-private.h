/* What the tests drive without a file chooser or a selection (the window
 * uses the same calls behind its choosers). Each starts the store work in
 * a thread and returns; the page is busy until it is done, then says how
 * it went (a toast, and last_message). */
#pragma once

#include "ui/ls-history-page.h"

G_BEGIN_DECLS

/* Export the selected runs (or every shown run) to path, the format by its
 * extension (ls_export_by_extension: .csv .json .sqlite, or the sweep's
 * charts as .png .svg .pdf); import a file (the table is read again). */
void ls_history_page_export_to (LsHistoryPage *self, const char *path);
void ls_history_page_import_from (LsHistoryPage *self, const char *path);

/* The team-review report of the selected runs (or every shown run) to
 * path, Markdown for .md, else HTML (app/report/report.h). */
void ls_history_page_report_to (LsHistoryPage *self, const char *path);

/* Compare over every shown run (a toast when there are fewer than two);
 * the window it opened, once loaded (NULL before, or when it was closed). */
void ls_history_page_compare_shown (LsHistoryPage *self);
GtkWindow *ls_history_page_compare_window (LsHistoryPage *self);

/* The run at position (in the table's order): open its sweep in Results,
 * as a double-click does ("open-sweep"); its sweep (0: none). */
void ls_history_page_open_row (LsHistoryPage *self, guint position);
gint64 ls_history_page_row_sweep (LsHistoryPage *self, guint position);

/* The line of folded columns (NULL: none folded), and whether the column
 * titled title is shown in the table. */
const char *ls_history_page_folded_text (LsHistoryPage *self);
gboolean ls_history_page_column_shown (LsHistoryPage *self, const char *title);

/* Store work still in its thread; the last message of one that ended
 * (NULL: none said anything yet). */
gboolean ls_history_page_is_busy (LsHistoryPage *self);
const char *ls_history_page_last_message (LsHistoryPage *self);

G_END_DECLS
