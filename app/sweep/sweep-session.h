/* The sweep engine: one runner process per configuration (`loadscope run
 * ... --events -`, started with GSubprocess), one at a time, followed
 * asynchronously from the main loop; nothing here blocks it or forks the
 * calling process, and the store is only used from worker threads.
 * Signals report progress, every event of the current run and what its
 * runner writes on stderr. The workbench drives it, and
 * `loadscope sweep` and `demo` run a main loop around it (app/cli/). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"

G_BEGIN_DECLS

#define LS_TYPE_SWEEP_SESSION (ls_sweep_session_get_type ())
G_DECLARE_FINAL_TYPE (LsSweepSession, ls_sweep_session, LS, SWEEP_SESSION, GObject)

/* A session for this request (copied): its knobs, repeat and drop-last,
 * the store (db; no_db: none) and the runner (NULL: this process's own
 * executable). */
LsSweepSession *ls_sweep_session_new (const ls_sweep_request *request);

/* Checks every configuration, records the sweep (or, with the request's
 * sweep_id, records the runs into that one, which it neither begins nor
 * ends) and starts the first runner. FALSE with error, and then nothing ran: LS_SWEEP_ERROR for a bad
 * knob or repeat (naming it), G_SPAWN_ERROR for a runner that is not
 * there, otherwise the store's error (get_store_path () is set when the
 * store itself opened and only recording the sweep failed). */
gboolean ls_sweep_session_start (LsSweepSession *self, GError **error);

/* The same for a window: the request is checked at once, the store opened
 * and the sweep recorded in a worker thread, then callback is called
 * (finish: TRUE, or FALSE with start's errors) just before the first
 * "run-started". A cancel before then is kept: the sweep then ends at once
 * ("finished", recorded as interrupted). */
void ls_sweep_session_start_async (LsSweepSession *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
gboolean ls_sweep_session_start_finish (LsSweepSession *self, GAsyncResult *result, GError **error);

/* Interrupts the current run (SIGINT: it is recorded as interrupted) and
 * starts no more. "finished" follows. */
void ls_sweep_session_cancel (LsSweepSession *self);

guint ls_sweep_session_get_total (LsSweepSession *self);    /* configurations x repeat */
guint ls_sweep_session_get_current (LsSweepSession *self);  /* 1-based, 0 before the first */
gint64 ls_sweep_session_get_sweep_id (LsSweepSession *self);
gboolean ls_sweep_session_is_running (LsSweepSession *self);
/* The current configuration's label ("workers=2 pin=staging"), without
 * the repeat note that "run-started" gives; NULL before the first. */
const char *ls_sweep_session_get_configuration_label (LsSweepSession *self);
/* The exit status of the runner that just ended (in "run-finished"): its
 * code, 128 + the signal that killed it, or -1 when it did not start. */
int ls_sweep_session_get_exit_status (LsSweepSession *self);
/* The store the runs are recorded in; NULL with no_db or before start. */
const char *ls_sweep_session_get_store_path (LsSweepSession *self);
/* Why the sweep stopped by itself (a runner refused its input: exit status
 * 2, so every configuration would), in the runner's words; NULL when it
 * did not. The sweep is then recorded as failed with this reason. */
const char *ls_sweep_session_get_failure (LsSweepSession *self);
/* The summaries of the runs that finished, in order. A run that ran but
 * is not in the store (its figures could not be written: a full disk)
 * has status "failed" and error "not recorded in the store: <why>"; the
 * sweep then ends failed, saying how many were not recorded. */
JsonArray *ls_sweep_session_get_summaries (LsSweepSession *self);

/* Signals:
 *   "run-started"  (guint index, const char *label)        a runner was started
 *   "event"        (JsonObject *event)                      a line of its --events stream
 *   "run-finished" (guint index, JsonObject *summary|NULL)  NULL: the runner died without one
 *   "finished"     (gboolean cancelled)                     no more runs
 *   "error"        (const char *message)                    something the user should read
 *   "output"       (const char *line)                       a line the runner wrote that is not an event (its stderr)
 *
 * index is 1-based (get_current () while that run goes). Every index gets
 * one "run-finished", also a runner that could not be started (NULL, after
 * an "error"). "error" also reports a runner's own "error" events (a
 * failed run) and a runner that ended without a summary (its run is then
 * marked interrupted in the store), both except after cancel. A runner's
 * own words (its stderr) are part of the message. A runner that exits 2
 * (bad input) ends the sweep: "error" with its words, then "finished".
 * "finished" may come within start () when no runner could be started.
 */

G_END_DECLS
