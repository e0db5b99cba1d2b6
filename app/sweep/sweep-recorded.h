/* Whether a run that a sweep's runner reported was recorded: a runner
 * that cannot write its figures (a full disk, a store locked for too
 * long) still measures and prints a summary, which alone would read as
 * "done 660 img/s" while the store has the run interrupted without
 * figures. The sweep reads the run back and says so. */
#pragma once

#include <json-glib/json-glib.h>

#include "app/store/store.h"

/* NULL when the run of this summary is in the store with its figures
 * (status no longer running, summary written); otherwise why not, in
 * words, from what the runner said (its "could not be recorded: ..."
 * line) where it said something. */
char *ls_sweep_run_not_recorded (ls_store *store, JsonObject *summary, const char *runner_said);

/* A copy of summary saying that its run was not recorded: status
 * "failed", error "not recorded in the store: <why>"; figures kept. */
JsonObject *ls_sweep_summary_not_recorded (JsonObject *summary, const char *why);
