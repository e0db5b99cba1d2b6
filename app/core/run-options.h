/* The run knobs of the command line, parsed and checked with GOption.
 * Shared by `run`, `sweep` (through its runners) and `demo`. */
#pragma once

#include <glib.h>

#include "loader/run.h"

/* The one set of defaults of a run: `run`, `sweep`, `demo` and the
 * workbench start from these (the window reads ls_run_default).
 * The loader's knobs default as PyTorch's DataLoader does (workers 0,
 * prefetch 2, persistent_workers off, pin_memory off, non_blocking off,
 * fork), so a run with default knobs measures what `DataLoader(ds,
 * batch_size=64)` does; persistent workers and pinning are knobs to sweep,
 * and the recommendation says when they pay. The two that are not
 * DataLoader's: batch 64, a common training batch (DataLoader's own default
 * of 1 is not one anybody trains with), and a model step of 20 ms, the order
 * of a ResNet-50-class training step on 64 images in mixed precision on a
 * recent GPU. Macros so help texts can state them; the struct for code. */
#define LS_RUN_DEFAULT_WORKERS 0
#define LS_RUN_DEFAULT_BATCH_SIZE 64
#define LS_RUN_DEFAULT_PREFETCH 2
#define LS_RUN_DEFAULT_PERSISTENT FALSE
#define LS_RUN_DEFAULT_PERSISTENT_TEXT "off"
#define LS_RUN_DEFAULT_PIN LS_PIN_OFF
#define LS_RUN_DEFAULT_PIN_TEXT "off"
#define LS_RUN_DEFAULT_NON_BLOCKING FALSE
#define LS_RUN_DEFAULT_NON_BLOCKING_TEXT "off"
/* Windows has no fork: its workers are spawned loadscope-worker.exe. */
#ifdef G_OS_WIN32
#define LS_RUN_DEFAULT_START LS_START_SPAWN
#define LS_RUN_DEFAULT_START_TEXT "spawn"
#else
#define LS_RUN_DEFAULT_START LS_START_FORK
#define LS_RUN_DEFAULT_START_TEXT "fork"
#endif
#define LS_RUN_DEFAULT_MODEL_MS 20

typedef struct ls_run_defaults {
  int workers;
  int batch_size;
  int prefetch;
  gboolean persistent;
  ls_pin_mode pin;
  gboolean non_blocking;
  ls_start_method start;
  double model_ms;
} ls_run_defaults;

extern const ls_run_defaults ls_run_default;

/* "batch 64, prefetch 2, persistent workers off, pin off, non-blocking off,
 * start fork, model step 20 ms" (workers apart: a sweep's own list). */
#define LS_RUN_DEFAULTS_TEXT                                                                                           \
  "batch " G_STRINGIFY (LS_RUN_DEFAULT_BATCH_SIZE) ", prefetch " G_STRINGIFY (                                        \
      LS_RUN_DEFAULT_PREFETCH) ", persistent workers " LS_RUN_DEFAULT_PERSISTENT_TEXT                                  \
      ", pin " LS_RUN_DEFAULT_PIN_TEXT ", non-blocking " LS_RUN_DEFAULT_NON_BLOCKING_TEXT                              \
      ", start " LS_RUN_DEFAULT_START_TEXT ", model step " G_STRINGIFY (LS_RUN_DEFAULT_MODEL_MS) " ms"

/* LS_RUN_DEFAULTS_TEXT in the user's language (the knob values as typed:
 * off, staging, fork); free with g_free. */
char *ls_run_defaults_text (void);

typedef struct ls_run_options {
  /* raw strings as typed, checked by ls_run_options_resolve */
  char *dataset;
  char *format;
  char *size;
  char *persistent;
  char *start;
  char *sink;
  char *on_error;
  char *output;
  char *shuffle;
  char *in_order;
  char *pin;
  char *non_blocking;
  double model_ms;
  double sim_bw_pageable;
  double sim_bw_pinned;
  int device;
  gint64 count;
  int crop;
  double pixel_limit_mp;
  int sample_cost_us;
  int workers;
  int batch_size;
  int prefetch;
  int epochs;
  gint64 batches;
  int warmup;
  gint64 seed;
  double timeout;
  gboolean drop_last;
  gboolean json;
  char *db;
  gboolean no_db;
  char *events;
  gint64 sweep_id;
  gboolean checksum;
  gboolean diagnose;   /* run --diagnose: the differential check (run-diagnose.h) */
  gint64 fail_every;
  gint64 crash_at;
  gint64 hang_at;
  /* --target pytorch: the user's script instead of Loadscope's loader (app/target/) */
  char *target;        /* NULL or "loadscope": the loader; "pytorch" */
  char *script;
  char *python;
  char *script_args;
  int loader;          /* which DataLoader of the script, from 0 */
  int ranks;           /* --ranks N: N ranks as torchrun starts them (0: the script alone) */
  int threads;         /* --threads T: each rank's OMP_NUM_THREADS and torch threads (0: its own) */
  char *launcher;      /* --launcher probe|torchrun: who starts the ranks (NULL: probe) */
} ls_run_options;

/* --ranks and --threads: at most this many ranks on a node, threads per rank. */
#define LS_RUN_MAX_RANKS 64
#define LS_RUN_MAX_THREADS 1024

/* TRUE for --target pytorch. */
gboolean ls_run_options_pytorch (const ls_run_options *o);

/* The DataLoader knobs a user can leave to a script (--target pytorch):
 * those not given stay the script's own. */
typedef enum {
  LS_KNOB_WORKERS = 1 << 0,
  LS_KNOB_BATCH_SIZE = 1 << 1,
  LS_KNOB_PREFETCH = 1 << 2,
  LS_KNOB_PERSISTENT = 1 << 3,
  LS_KNOB_PIN = 1 << 4,
  LS_KNOB_START = 1 << 5,
} ls_knob_flag;

/* An int knob not given on the command line (init sets it; resolve then
 * takes the default). */
#define LS_RUN_KNOB_UNSET G_MININT

/* Which of those knobs were given (ls_knob_flag bits). */
guint ls_run_options_knobs_given (const ls_run_options *o);

void ls_run_options_init (ls_run_options *o);
void ls_run_options_clear (ls_run_options *o);

/* Adds the option groups ("run knobs", "synthetic dataset", "fault injection"). */
void ls_run_options_add_to (ls_run_options *o, GOptionContext *context);

/* Checks every knob and fills a run configuration. Errors name the option,
 * the value and what is allowed. */
gboolean ls_run_options_resolve (const ls_run_options *o, ls_run_config *config, GError **error);

const char *ls_start_method_name (ls_start_method m);
