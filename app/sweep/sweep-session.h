/* A sweep run from a main loop (the workbench): the same runner processes
 * as `loadscope sweep` (`loadscope run --events -`, one per configuration,
 * started with GSubprocess), followed asynchronously; nothing here blocks
 * the main loop or forks the calling process. Signals report progress and
 * every event of the current run, for live views. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define LS_TYPE_SWEEP_SESSION (ls_sweep_session_get_type ())
G_DECLARE_FINAL_TYPE (LsSweepSession, ls_sweep_session, LS, SWEEP_SESSION, GObject)

/* knobs: run option name (without "--") -> value, where sweepable knobs may
 * be comma lists, as on the command line ("workers" -> "0,1,2,4"); also
 * "repeat" -> "R" and "drop-last" -> "on"|"off", as `loadscope sweep` takes
 * them. The grid's order is `loadscope sweep`'s (app/sweep-grid.h). db: the
 * store (NULL: the default). runner: the loadscope executable (NULL: this
 * process's own executable). */
LsSweepSession *ls_sweep_session_new (GHashTable *knobs, const char *db, const char *runner);

/* Checks every configuration, records the sweep and starts the first
 * runner. FALSE with error for a bad knob (naming it) or an unusable store;
 * then nothing ran. */
gboolean ls_sweep_session_start (LsSweepSession *self, GError **error);

/* Interrupts the current run (SIGINT: it is recorded as interrupted) and
 * starts no more. "finished" follows. */
void ls_sweep_session_cancel (LsSweepSession *self);

guint ls_sweep_session_get_total (LsSweepSession *self);    /* configurations x repeat */
guint ls_sweep_session_get_current (LsSweepSession *self);  /* 1-based, 0 before the first */
gint64 ls_sweep_session_get_sweep_id (LsSweepSession *self);
gboolean ls_sweep_session_is_running (LsSweepSession *self);
/* Why the sweep stopped by itself (a runner refused its input: exit status
 * 2, so every configuration would), in the runner's words; NULL when it
 * did not. The sweep is then recorded as failed with this reason. */
const char *ls_sweep_session_get_failure (LsSweepSession *self);
/* The summaries of the runs that finished, in order. */
JsonArray *ls_sweep_session_get_summaries (LsSweepSession *self);

/* Signals:
 *   "run-started"  (guint index, const char *label)        a runner was started
 *   "event"        (JsonObject *event)                      a line of its --events stream
 *   "run-finished" (guint index, JsonObject *summary|NULL)  NULL: the runner died without one
 *   "finished"     (gboolean cancelled)                     no more runs
 *   "error"        (const char *message)                    something the user should read
 *
 * index is 1-based (get_current () while that run goes). Every index gets
 * one "run-finished", also a runner that could not be started (NULL, after
 * an "error"). "error" also reports a runner's own "error" events (a
 * failed run) and a runner that ended without a summary (its run is then
 * marked interrupted in the store), both except after cancel. A runner's
 * own words (its stderr) are part of the message. A runner that exits 2
 * (bad input) ends the sweep: "error" with its words, then "finished".
 */

G_END_DECLS
