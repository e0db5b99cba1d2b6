/* A run's lanes (chart-store.h: ls_chart_run_lanes) read in a thread of
 * its own, so the window's timeline never waits on the store: the store at
 * db is opened and closed in the thread; the callback runs in the caller's
 * main context. */
#pragma once

#include <gio/gio.h>

#include "app/chart/chart.h"

void ls_lanes_job (const char *db, gint64 run_id, GCancellable *cancellable, GAsyncReadyCallback callback,
                   gpointer user_data);
/* The chart (its lanes in chart->lanes), or NULL with the error of the
 * open or the read ("no run 7"). */
ls_chart *ls_lanes_job_finish (GAsyncResult *result, GError **error);
