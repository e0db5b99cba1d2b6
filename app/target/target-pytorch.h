/* `loadscope run --target pytorch --script train.py`: the user's own
 * PyTorch script, unmodified, measured through the probe
 * (data/probe/loadscope_probe): the runner starts
 * `python -m loadscope_probe SCRIPT ARGS` with the probe on PYTHONPATH and
 * a pipe named in $LOADSCOPE_PROBE_FD (Windows: an inherited HANDLE),
 * reads the probe's JSON lines (batch waits, the script's step, worker
 * pids and start-up), samples the script's and its workers'
 * memory and CPU with platform/procmem.h as for its own workers, and fills
 * an ls_run_result as ls_run() does, calling the same observers, so the
 * recorder, events, summary, verdict and charts work unchanged. */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/run.h"

typedef struct ls_target_pytorch {
  const char *script;      /* the script's path */
  const char *python;      /* the interpreter; NULL: python3 from PATH */
  const char *script_args; /* its arguments, as a shell would split them; NULL: none */
  int loader;              /* which DataLoader, from 0 in the order the script builds them */
  unsigned knobs;          /* ls_knob_flag bits: the knobs given; the others stay the script's */
  /* run --diagnose: after this many batches built, the probe hands the
   * script the same ones again, the loader stopped (0: never); and the
   * file where it lists the files the loader's fetches opened (NULL: none). */
  unsigned replay;
  const char *files_log;
  /* --ranks: this many ranks, started by the probe as torchrun starts them
   * (target-ranks.h; 0: the script alone); --threads: each one's threads (0: its own). */
  int ranks;
  int threads;
  /* --launcher torchrun: the ranks started by the user's own torchrun (on
   * PATH), the probe in each; NULL or "probe": by the probe's launcher. */
  const char *launcher;
} ls_target_pytorch;

/* Where the probe package lies: $LOADSCOPE_PROBE_PATH, or beside the
 * executable (<exe>/../data/probe in a build tree, <exe>/../share/loadscope/probe
 * installed). NULL with error naming the folders tried. */
char *ls_target_probe_dir (GError **error);

/* "pytorch: train.py" and the first 12 hex digits of the script's SHA-256. */
char *ls_target_pytorch_name (const char *script);

/* Runs the script with config's knobs (config->pool: workers, batch,
 * prefetch, persistent, start; config->sink.pin; config->max_batches;
 * config->pool.timeout_s as the longest the script may go without an
 * event). FALSE with error when it cannot start (no script, interpreter or
 * probe): bad input. TRUE otherwise, result->status and result->error
 * saying how it went; config is updated with what the DataLoader really
 * had, and `target` (an empty object) gets the target's fields. */
gboolean ls_target_pytorch_run (const ls_target_pytorch *t, ls_run_config *config, ls_run_result *result,
                                JsonObject *target, GError **error);

