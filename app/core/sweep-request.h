/* What a sweep is asked to do, as one typed value: the dataset, each run
 * knob's values (a list for the sweepable ones), repeat, drop-last, the
 * store and the runner. `loadscope sweep`, `loadscope demo` and the
 * workbench's Setup page each build one; LsSweepSession (app/sweep/) runs
 * it. Also the sweep's rough duration, from the request alone. */
#pragma once

#include <glib.h>

#include "app/core/sweep-grid.h"

G_BEGIN_DECLS

#define LS_SWEEP_REPEAT_MAX 1000

typedef struct ls_sweep_request {
  char *dataset;                     /* a path or "synthetic"; NULL: not given */
  GPtrArray *knobs[LS_SWEEP_N_KNOBS]; /* char *: the values of knob k (ls_sweep_knobs[k]) as the runner takes
                                      * them, more than one for a sweepable knob only; NULL: not given (the
                                      * run's default). knobs[LS_SWEEP_KNOB_DATASET] is not used: dataset. */
  guint repeat;                      /* every configuration this many times, 1..LS_SWEEP_REPEAT_MAX */
  gboolean drop_last;                /* passed to every runner */
  char *db;                          /* the store; NULL: the default one */
  gboolean no_db;                    /* record nothing (db is then ignored) */
  char *runner;                      /* the loadscope executable (a path or a name in PATH); NULL: this
                                      * process's own */
  char *on;                          /* a target machine (ssh:HOST, exec:COMMAND; app/remote/): each runner
                                      * gets --on; NULL: this machine */
  gint64 sweep_id;                   /* > 0: record the runs into this sweep, which the caller began and
                                      * ends (ls_store_sweep_begin/end; `tune` measures one point at a
                                      * time this way); 0: the session records a sweep of its own */
} ls_sweep_request;

/* TRUE when the runs are of the user's PyTorch script (--target pytorch):
 * no dataset of Loadscope's is needed, the script has its own. */
gboolean ls_sweep_request_is_script (const ls_sweep_request *request);

/* An empty request: no knob given, repeat 1. */
ls_sweep_request *ls_sweep_request_new (void);
ls_sweep_request *ls_sweep_request_copy (const ls_sweep_request *request);
void ls_sweep_request_free (ls_sweep_request *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_sweep_request, ls_sweep_request_free)

/* Adds a value to knob k's list (for a knob that is not sweepable, the
 * grid refuses a second one); for LS_SWEEP_KNOB_DATASET, sets dataset. */
void ls_sweep_request_add (ls_sweep_request *request, ls_sweep_knob_id k, const char *value);
void ls_sweep_request_add_int (ls_sweep_request *request, ls_sweep_knob_id k, gint64 value);
void ls_sweep_request_add_double (ls_sweep_request *request, ls_sweep_knob_id k, double value);
void ls_sweep_request_add_switch (ls_sweep_request *request, ls_sweep_knob_id k, gboolean on);

/* Knob `name` (as on the command line, without "--") as typed there: a
 * comma list for a sweepable knob, split and stripped, replacing what the
 * request held. FALSE with an LS_SWEEP_ERROR_KNOB error naming the knob
 * and value for an unknown knob, an empty value in a list, or a list for
 * a knob that takes one value (a dataset path may hold commas). */
gboolean ls_sweep_request_set_text (ls_sweep_request *request, const char *name, const char *text, GError **error);

/* How many values knob k has (1 for a dataset that is given, 0 when not). */
guint ls_sweep_request_count (const ls_sweep_request *request, ls_sweep_knob_id k);

/* The number of configurations (the product of the list lengths, repeat
 * not counted; 0 when a list is empty). */
guint64 ls_sweep_request_configurations (const ls_sweep_request *request);

/* A rough duration in seconds of the whole sweep (repeat counted): per run
 * the slower of loading (2 ms of CPU per image on the cores its workers
 * get, at most `cores`) and its model steps, plus half a second of
 * start-up. Knobs not given count with the run's defaults. Negative when
 * it cannot be told: no --batches given. */
double ls_sweep_request_estimate_seconds (const ls_sweep_request *request, guint cores);

G_END_DECLS
