/* One run of the history as a list item: the run's object from
 * ls_store_history (app/store/store-query.h), with the values a history
 * row shows that are not stored as they are (sink_shown, prefetch_shown,
 * persistent_shown). Immutable once made. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LS_TYPE_RUN_ROW (ls_run_row_get_type ())
G_DECLARE_FINAL_TYPE (LsRunRow, ls_run_row, LS, RUN_ROW, GObject)

/* Takes a reference on run and adds to it:
 *   sink_shown        "sim GPU" for a simulated run, else the sink;
 *   prefetch_shown    the prefetch, null without workers (it means nothing then);
 *   persistent_shown  "on", "off", or "–" without workers or when unknown. */
LsRunRow *ls_run_row_new (JsonObject *run);

/* The run's members (borrowed). */
JsonObject *ls_run_row_get_run (LsRunRow *self);
gint64 ls_run_row_get_id (LsRunRow *self);
/* 0 for a run outside a sweep. */
gint64 ls_run_row_get_sweep_id (LsRunRow *self);
gboolean ls_run_row_get_simulated (LsRunRow *self);
/* "done", "failed", "interrupted", "running". */
const char *ls_run_row_get_status (LsRunRow *self);

/* Whether needle (any case) is part of the run's machine, OS, dataset, start
 * time, consumer, status, pin or start method; an empty or NULL needle
 * matches every run. */
gboolean ls_run_row_matches (LsRunRow *self, const char *needle);

G_END_DECLS
