#pragma once

#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"

/* `loadscope sweep`: the product grid of run knobs, recorded. */
int ls_cli_sweep (int argc, char **argv);

typedef struct ls_cli_sweep_result {
  gint64 sweep_id;       /* in the store, 0 when not recorded */
  char *store_path;
  JsonArray *summaries;  /* one per run that finished (done or failed); NULL: the sweep did not start */
  guint runs_done, runs_failed, runs_lost; /* lost: the runner died or the sweep was interrupted */
  gboolean interrupted;
  gboolean refused;      /* a runner refused its input (exit 2): the sweep stopped there */
} ls_cli_sweep_result;

void ls_cli_sweep_result_clear (ls_cli_sweep_result *r);

typedef enum {
  LS_CLI_SWEEP_JSON = 1 << 0,  /* the summaries as a JSON array on stdout, no table */
  LS_CLI_SWEEP_QUIET = 1 << 1, /* no table and no recommendation */
} ls_cli_sweep_flags;

/* Runs the request with LsSweepSession in a main loop, as `loadscope
 * sweep` does: the progress line (a terminal) and the runners' stderr on
 * stderr, Ctrl-C or SIGTERM interrupting the current run, then (unless
 * quiet) the table and the recommendation or (json) the summaries on
 * stdout. Returns the exit status: 0 all done, 1 a run failed or was lost
 * or the store could not be used, 2 bad usage or a runner that refused its
 * input (every configuration would be refused the same way, so the sweep
 * stops at once, recorded as failed). */
int ls_cli_sweep_run (const ls_sweep_request *request, ls_cli_sweep_flags flags, ls_cli_sweep_result *result);
