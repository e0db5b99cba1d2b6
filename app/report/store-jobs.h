/* What the window's History asks of the store, in a thread of its own so
 * the window never waits on it (opening a store another process holds
 * locked can wait seconds): compare, delete, export, import, report. Each
 * opens the store at db in the thread and closes it there; the callback
 * runs in the caller's main context. Errors as the synchronous calls give
 * them (ls_compare_table_load, ls_store_delete_runs, ls_export_by_extension,
 * ls_import_file, ls_report_write). */
#pragma once

#include <gio/gio.h>

#include "app/report/compare-table.h"
#include "app/store/import.h"

/* ids: the runs (copied). */
void ls_store_job_compare (const char *db, GArray *ids, GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data);
ls_compare_table *ls_store_job_compare_finish (GAsyncResult *result, GError **error);

void ls_store_job_delete (const char *db, GArray *ids, GCancellable *cancellable, GAsyncReadyCallback callback,
                          gpointer user_data);
/* dark: charts in the dark theme. */
void ls_store_job_export (const char *db, GArray *ids, const char *path, gboolean dark, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data);
/* A report (.md: Markdown, else HTML). */
void ls_store_job_report (const char *db, GArray *ids, const char *path, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data);
/* Delete, export, report. */
gboolean ls_store_job_finish (GAsyncResult *result, GError **error);

void ls_store_job_import (const char *db, const char *path, GCancellable *cancellable, GAsyncReadyCallback callback,
                          gpointer user_data);
gboolean ls_store_job_import_finish (GAsyncResult *result, ls_import_counts *counts, GError **error);
