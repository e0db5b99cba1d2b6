/* The grid of a sweep: which run knobs a sweep passes on (sweepable ones
 * may be comma lists), their product in a fixed order (the last knob of
 * the table varies fastest), each configuration checked as the runner will
 * check it, and the runner's argv (`loadscope run ... --events -`). Shared
 * by LsSweepSession (app/sweep/), which `loadscope sweep`, `demo` and the
 * workbench drive. */
#pragma once

#include <glib.h>

#define LS_SWEEP_ERROR (ls_sweep_error_quark ())
GQuark ls_sweep_error_quark (void);

typedef enum {
  LS_SWEEP_ERROR_KNOB, /* an unknown knob, a bad value, too many configurations */
} ls_sweep_error;

/* The knobs a sweep passes on, in the grid's order: sweepable ones first. */
typedef enum {
  LS_SWEEP_KNOB_WORKERS,
  LS_SWEEP_KNOB_BATCH_SIZE,
  LS_SWEEP_KNOB_PREFETCH,
  LS_SWEEP_KNOB_PERSISTENT,
  LS_SWEEP_KNOB_START,
  LS_SWEEP_KNOB_SHUFFLE,
  LS_SWEEP_KNOB_IN_ORDER,
  LS_SWEEP_KNOB_PIN,
  LS_SWEEP_KNOB_NON_BLOCKING,
  LS_SWEEP_KNOB_MODEL_MS,
  LS_SWEEP_KNOB_OUTPUT,
  LS_SWEEP_KNOB_SINK,
  LS_SWEEP_KNOB_SEED,
  LS_SWEEP_KNOB_CROP,
  LS_SWEEP_KNOB_DATASET,
  LS_SWEEP_KNOB_FORMAT,
  LS_SWEEP_KNOB_COUNT,
  LS_SWEEP_KNOB_SIZE,
  LS_SWEEP_KNOB_SAMPLE_COST_US,
  LS_SWEEP_KNOB_EPOCHS,
  LS_SWEEP_KNOB_BATCHES,
  LS_SWEEP_KNOB_WARMUP,
  LS_SWEEP_KNOB_TIMEOUT,
  LS_SWEEP_KNOB_ON_ERROR,
  LS_SWEEP_KNOB_PIXEL_LIMIT,
  LS_SWEEP_KNOB_DEVICE,
  LS_SWEEP_KNOB_SIM_BANDWIDTH_PAGEABLE,
  LS_SWEEP_KNOB_SIM_BANDWIDTH_PINNED,
  /* --target pytorch (app/target/): the user's script instead of the loader */
  LS_SWEEP_KNOB_TARGET,
  LS_SWEEP_KNOB_SCRIPT,
  LS_SWEEP_KNOB_PYTHON,
  LS_SWEEP_KNOB_SCRIPT_ARGS,
  LS_SWEEP_KNOB_LOADER,
  LS_SWEEP_KNOB_RANKS,   /* --target pytorch: ranks on the node */
  LS_SWEEP_KNOB_THREADS, /* --target pytorch: threads per rank */
  LS_SWEEP_KNOB_LAUNCHER, /* --target pytorch --ranks: who starts the ranks */
  LS_SWEEP_N_KNOBS
} ls_sweep_knob_id;

typedef struct {
  const char *name;    /* the run option, without "--" */
  gboolean sweepable;  /* may be a comma list */
  const char *help;
} ls_sweep_knob;

extern const ls_sweep_knob ls_sweep_knobs[LS_SWEEP_N_KNOBS];

/* The knob's index in ls_sweep_knobs, or -1. */
int ls_sweep_knob_find (const char *name);

#define LS_SWEEP_MAX_CONFIGURATIONS 10000

typedef struct ls_sweep_grid ls_sweep_grid;

typedef struct ls_sweep_request ls_sweep_request; /* app/core/sweep-request.h */

/* The request's knobs (repeat, store and runner are not the grid's).
 * Builds every configuration and checks each one (NULL and error naming
 * the knob and value when one is bad: then nothing should run).
 * drop_last is passed to every runner. */
ls_sweep_grid *ls_sweep_grid_new (const ls_sweep_request *request, GError **error);
void ls_sweep_grid_free (ls_sweep_grid *grid);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_sweep_grid, ls_sweep_grid_free)

/* Number of configurations (the product of the list lengths). */
guint ls_sweep_grid_size (const ls_sweep_grid *grid);

/* The knobs given, lists joined by commas, as a JSON object (the store's
 * sweep.grid). */
char *ls_sweep_grid_to_json (const ls_sweep_grid *grid);

/* Configuration c's knobs that vary ("workers=2 pin=staging"), or
 * "(one configuration)". Newly allocated. */
char *ls_sweep_grid_label (const ls_sweep_grid *grid, guint c);

/* argv (NULL-terminated, in a GPtrArray that frees its strings) of
 * `runner run KNOBS [--drop-last] --db DB|--no-db [--sweep-id ID] --events -`
 * for configuration c. */
GPtrArray *ls_sweep_grid_runner_argv (const ls_sweep_grid *grid, guint c, const char *runner, const char *db,
                                      gint64 sweep_id);
