/* Reopening a recorded sweep for the window's Results: the store's sweeps
 * (for a picker) and the stored summaries of one of them (for its
 * verdict), read in a thread (GTask) so the window never waits on the
 * store. No SQL here: it reads through app/store's queries. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "app/store/store.h"

typedef struct {
  gint64 sweep_id;
  char *started_at; /* the first run's start, as stored (ISO 8601) */
  guint n_runs, n_failed;
} ls_sweep_entry;

typedef struct {
  GArray *sweeps;       /* ls_sweep_entry, newest first */
  gint64 sweep_id;      /* the sweep read; 0: none recorded */
  JsonArray *summaries; /* its runs' summaries, oldest first; a run
                         * recorded without one: {"status", "error"} */
} ls_sweep_opened;

void ls_sweep_opened_free (ls_sweep_opened *opened);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_sweep_opened, ls_sweep_opened_free)

/* The same, on an open store. sweep_id 0: the latest sweep. A store that
 * does not exist yet is no error: no sweeps. */
ls_sweep_opened *ls_sweep_open (ls_store *store, gint64 sweep_id, GError **error);

/* Opens db (NULL: the default store) in a thread and reads sweep_id (0:
 * the latest). */
void ls_sweep_open_async (const char *db, gint64 sweep_id, GCancellable *cancellable, GAsyncReadyCallback callback,
                          gpointer user_data);
ls_sweep_opened *ls_sweep_open_finish (GAsyncResult *result, GError **error);

/* "Sweep 6 · 2026-11-30 08:51 UTC · 14 runs, 2 failed" (newly allocated). */
char *ls_sweep_entry_label (const ls_sweep_entry *entry);

/* "N of M failed: reason" of a sweep's summaries (the first failed run's
 * reason), or NULL when none failed. */
char *ls_sweep_failures_text (JsonArray *summaries);
