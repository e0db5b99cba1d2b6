/* `loadscope tune` driven from the window: a runner process (this
 * executable's own `tune --json`) over the Setup page's request, its result
 * read when it ends, and the runs it recorded read from the store off the
 * main thread, so that the Tune window only shows. Like LsSweepSession for
 * sweeps: the window never builds argv, parses output or sends signals. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"

G_BEGIN_DECLS

#define LS_TYPE_TUNE_SESSION (ls_tune_session_get_type ())
G_DECLARE_FINAL_TYPE (LsTuneSession, ls_tune_session, LS, TUNE_SESSION, GObject)

/* request: the knobs (copied); the ones tune chooses (workers, prefetch,
 * pin, persistence) and those swept over several values are left to it.
 * db: the store (NULL: the default one). memory, time_budget: as `tune`
 * takes them ("4G", "120s"); NULL or "" for none. */
LsTuneSession *ls_tune_session_new (const ls_sweep_request *request, const char *db, const char *memory,
                                    const char *time_budget);

/* The runner's argv (NULL-terminated, strings owned by the array). */
GPtrArray *ls_tune_session_argv (LsTuneSession *self, const char *runner);

/* Checks the budgets (an error naming the one that is not a size or a
 * duration) and starts the runner ($LOADSCOPE, else this executable).
 * "finished" comes once, from the main loop, when it ended. */
gboolean ls_tune_session_start (LsTuneSession *self, GError **error);

/* The runner's latest progress line (NULL before the first); each comes
 * as the "progress" signal too (one string argument). */
const char *ls_tune_session_get_progress (LsTuneSession *self);

/* Asks the runner to stop: it ends its current run as interrupted (SIGINT;
 * the process's named event on Windows) and records what it measured. */
void ls_tune_session_cancel (LsTuneSession *self);

gboolean ls_tune_session_is_running (LsTuneSession *self);

/* After "finished": tune's result ({"verdict", "pytorch", "sweep_id", ...},
 * tune.h) or NULL with the reason in get_error; the summaries of the runs
 * it recorded (empty when none). */
JsonObject *ls_tune_session_get_result (LsTuneSession *self);
const char *ls_tune_session_get_error (LsTuneSession *self);
JsonArray *ls_tune_session_get_summaries (LsTuneSession *self);

G_END_DECLS
