/* `loadscope tune`: the best configuration within budgets, without
 * running the whole grid. It measures two probes (0 workers, then 1),
 * fits the what-if model (whatif-basis.h) to what it measured, measures
 * the configuration the model ranks first, repeats it once to learn the
 * noise, and goes on measuring the model's next best while its predicted
 * gain over the best measured is larger than the noise and time is left.
 * Configurations whose predicted PSS peak is over the memory budget are
 * never run; a measured one over it is excluded. Every run goes through
 * the sweep engine (LsSweepSession, one configuration at a time, all
 * recorded in one sweep), from a main loop of its own.
 *
 * A script with --ranks N is tuned for the node instead (tune-ranks.c):
 * workers and threads per rank, each configuration within the CPU budget
 * (N x (workers + threads) <= the budget, the machine's cores by default)
 * and, by the node's predicted PSS, the memory budget. */
#pragma once

#include <glib.h>
#include <signal.h>
#include <json-glib/json-glib.h>

#include "app/core/sweep-request.h"

G_BEGIN_DECLS

#define LS_TUNE_ERROR (ls_tune_error_quark ())
GQuark ls_tune_error_quark (void);

typedef enum {
  LS_TUNE_ERROR_BUDGET,   /* no configuration fits the budgets */
  LS_TUNE_ERROR_FAILED,   /* a probe failed: nothing to fit */
  LS_TUNE_ERROR_INVALID,  /* a bad option */
  LS_TUNE_ERROR_CANCELLED, /* asked to stop (inside ls_tune_run only: it returns what it measured) */
} ls_tune_error;

typedef struct ls_tune_options {
  const ls_sweep_request *base; /* dataset, the knobs held fixed (one value each), store, runner */
  double memory_budget_bytes;   /* PSS peak; 0: none */
  guint cpu_budget;             /* cores the loader may use (workers at most this); 0: the machine's */
  double time_budget_s;         /* 0: 120 */
  guint cores;                  /* the machine's cores; 0: this machine's */
  guint max_runs;               /* 0: 16 */
  volatile sig_atomic_t *stops; /* > 0: stop (the run in progress ends interrupted, the answer is what was
                                 * measured, stop_reason "cancelled"); NULL: never */
} ls_tune_options;

/* One measured point. */
typedef struct ls_tune_point {
  guint workers, prefetch;
  gboolean persistent;
  char *pin;
  guint threads;                /* with --ranks: each rank's intra-op threads; 0: the script's own */
  double predicted_sps;         /* NAN for the probes */
  double throughput_sps, gpu_util_exact, pss_peak_bytes;
  gint64 run_id;
  gboolean over_budget;
} ls_tune_point;

typedef struct ls_tune_result {
  GPtrArray *points;            /* ls_tune_point *, in the order measured */
  JsonArray *summaries;         /* the runs' summaries, in the same order */
  int best;                     /* index into points; -1: none */
  double best_throughput_sps;   /* the best configuration's mean over its repeats */
  guint best_repeats;           /* how many runs that mean is of */
  double noise;                 /* relative spread of a repeated configuration */
  guint runs;
  double elapsed_s;
  gint64 sweep_id;              /* 0: not recorded */
  char *store_path;
  char *verdict;                /* the recommendation and verdict of its runs within the budgets, as `sweep`
                                 * prints them (ls_verdict_for_sweep), then a line of its own (runs, noise) */
  char *pytorch;                /* DataLoader(...) */
  char *stop_reason;            /* why it stopped measuring */
} ls_tune_result;

void ls_tune_result_clear (ls_tune_result *result);

/* A line for the user at each step ("measuring workers=2 prefetch=2 ..."). */
typedef void (*ls_tune_progress_func) (const char *line, gpointer user_data);

/* Runs the search. FALSE with an error: LS_TUNE_ERROR_BUDGET when not even
 * the smallest configuration fits (naming the budget and what it
 * measured), LS_TUNE_ERROR_FAILED when a probe failed, LS_SWEEP_ERROR for
 * a bad knob, the store's error. result is filled as far as it got. */
gboolean ls_tune_run (const ls_tune_options *options, ls_tune_progress_func progress, gpointer user_data,
                      ls_tune_result *result, GError **error);

/* The result as `tune --json` prints it: {"recommended": {knobs}, "pytorch",
 * "measured": {...}, "runs", "elapsed_s", "sweep_id", "noise", "points": [...]} */
JsonNode *ls_tune_result_to_json (const ls_tune_result *result);

/* "4G", "512M", "1.5GB", "2000000000" -> bytes; FALSE when not a size. */
gboolean ls_tune_parse_size (const char *text, double *bytes);
/* "120", "120s", "2m", "1h" -> seconds; FALSE when not a duration. */
gboolean ls_tune_parse_duration (const char *text, double *seconds);

G_END_DECLS
