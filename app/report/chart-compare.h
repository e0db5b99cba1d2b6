/* The charts Compare shows under its table: the batch waits of the runs
 * compared, one cumulative distribution (CDF) each, overlaid, so that the
 * runs' whole distributions, not only their p50 and p95, sit side by side;
 * and their memory over time, overlaid.
 * Built from the store's batch rows (app/report/chart-store.h's habits). */
#pragma once

#include "app/chart/chart.h"
#include "app/store/store.h"

/* One line per run (ids, n of them, in that order: the first the
 * baseline), its measured batches' waits (after the warm-up) sorted, each
 * at the share of batches that waited at most that long. A run without
 * batches has an empty line. NULL with the store's error
 * (LS_STORE_ERROR_NOT_FOUND naming a run that is not there). */
ls_chart *ls_chart_runs_wait_cdf (ls_store *store, const gint64 *ids, guint n, GError **error);

/* One line per run (the first the baseline): the memory of its runner and
 * workers together (PSS; private bytes where only those were sampled)
 * against the time since its loader started. A run without samples has
 * an empty line. NULL with the store's error. */
ls_chart *ls_chart_runs_memory (ls_store *store, const gint64 *ids, guint n, GError **error);
