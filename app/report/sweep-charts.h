/* A sweep's headline charts (ls_chart_sweep_names, app/report/chart-store.h),
 * all at once: here, or read from a store file in a worker thread (GTask)
 * for the window. */
#pragma once

#include <gio/gio.h>

#include "app/report/chart-store.h"

/* How many headline charts a sweep has. */
guint ls_sweep_charts_n (void);

/* The charts (ls_chart *, owned) in ls_chart_sweep_names order, or NULL with
 * the first chart's error. */
GPtrArray *ls_sweep_charts (ls_store *store, gint64 sweep_id, GError **error);

/* Opens db (NULL: the default store) and builds the charts in a thread. */
void ls_sweep_charts_load_async (const char *db, gint64 sweep_id, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
/* The charts, or NULL with the error (G_IO_ERROR_CANCELLED when cancelled). */
GPtrArray *ls_sweep_charts_load_finish (GAsyncResult *result, GError **error);
