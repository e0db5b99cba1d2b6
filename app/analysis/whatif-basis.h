/* What the what-if model is fitted to: measured runs read from the store
 * (a run, and the other runs of its sweep on the same data), the model's
 * parameters estimated from them, and predictions for changed knobs.
 *
 * The build time of a batch, in order of preference: the workers' own
 * per-batch wall time (stages_ms.busy, where the loader records stages),
 * the 0-worker runs' waits (the runner builds each batch while the
 * consumer waits), and the loader-bound runs' throughput (the build time
 * for which the simulation gives the measured throughput); the median of
 * the estimates. Only consumer-bound runs: the workers' CPU per batch, a
 * lower bound. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/analysis/whatif-model.h"
#include "app/store/store.h"

G_BEGIN_DECLS

/* One measured run as the model sees it. */
typedef struct ls_whatif_run {
  gint64 id;
  gint64 sweep_id;          /* 0: none */
  char *dataset;
  char *pin;                /* "off", "staging", "arena"; NULL with sink none */
  char *sink;
  gboolean simulated;
  guint workers, prefetch, batch_size, warmup, batches, batches_per_epoch, last_batch_samples;
  gboolean persistent, non_blocking;
  gboolean script;          /* a PyTorch script's run (--target pytorch): its step is what the script measured */
  double model_ms;          /* NAN: none (a script's run: the knob is not its step) */
  double cores;             /* the machine's logical cores */
  double background;        /* other processes' CPU during the run, in cores (0: not recorded) */
  /* Measured. */
  double throughput_sps, gpu_util_exact, wait_p50_ms, wait_p95_ms; /* NAN: absent */
  double pss_peak_bytes, arena_bytes, sample_bytes;                  /* NAN: absent */
  double copy_ms, compute_ms, stage_ms, wait_mean_ms;                /* means over the measured batches */
  double busy_ms, read_ms;  /* stages per batch (NAN: not recorded) */
  double worker_cpu_ms_per_batch; /* NAN: not known */
  double startup_ms;        /* per worker of a set (NAN: none) */
  GArray *builds;           /* double: per-batch build times measured directly (0 workers' waits, busy_ms) */
  GArray *gaps;             /* double: gaps between deliveries of the measured batches */
} ls_whatif_run;

void ls_whatif_run_free (ls_whatif_run *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_whatif_run, ls_whatif_run_free)

/* Reads run `run_id` (finished: status done) from the store. NULL with an
 * error naming the run when it is missing or did not finish. */
ls_whatif_run *ls_whatif_run_load (ls_store *store, gint64 run_id, GError **error);

typedef struct ls_whatif_basis {
  GPtrArray *runs;          /* ls_whatif_run *, the target first */
  double t_build_ms;        /* fitted, one full batch, one worker alone */
  double read_fraction;
  double host_ms;
  double startup_ms;
  double background;        /* other processes' load in cores, as measured (median) */
  GArray *multipliers;      /* double, mean 1; may be empty */
  char *source;             /* how t_build_ms was found, in words */
  /* Memory: PSS peak ~ pss_base + pss_per_worker x W + the arena (slots x slot bytes). */
  double pss_base, pss_per_worker, slot_bytes;
  gboolean memory_known;
} ls_whatif_basis;

/* The basis of run `run_id`: it and the finished runs of its sweep with
 * the same dataset and batch size (with `siblings`). */
ls_whatif_basis *ls_whatif_basis_load (ls_store *store, gint64 run_id, gboolean siblings, GError **error);

/* Fits the model to runs (taken; the first is the target). NULL with an
 * error when it is empty. */
ls_whatif_basis *ls_whatif_basis_new (GPtrArray *runs, GError **error);
void ls_whatif_basis_free (ls_whatif_basis *basis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_whatif_basis, ls_whatif_basis_free)

/* What to change from the target run; a negative number (or NULL pin):
 * as measured. */
typedef struct ls_whatif_change {
  int workers;
  int prefetch;
  int persistent;           /* 0, 1; -1: as measured */
  const char *pin;
  double model_ms;
  double gpu_speed;         /* step x 1/gpu_speed */
  double cores;
  double storage_speed;     /* read stage x 1/storage_speed */
  double background;        /* other processes' load in cores; negative: the basis's (as measured) */
} ls_whatif_change;

void ls_whatif_change_init (ls_whatif_change *change);

/* The model's parameters for the target run with `change` applied. The
 * multipliers point into basis. */
void ls_whatif_basis_params (const ls_whatif_basis *basis, const ls_whatif_change *change, ls_whatif_params *out);

/* Predicts the changed run (simulation, a few replications). */
void ls_whatif_predict (const ls_whatif_basis *basis, const ls_whatif_change *change, ls_whatif_prediction *out);

/* PSS peak predicted for workers x prefetch; NAN when not known. */
double ls_whatif_predict_pss (const ls_whatif_basis *basis, guint workers, guint prefetch);

/* {"predicted": {...}, "basis": [ids], "model": {...}, "measured": {...}} */
JsonNode *ls_whatif_to_json (const ls_whatif_basis *basis, const ls_whatif_change *change,
                             const ls_whatif_prediction *prediction);

/* The prediction in a sentence or two. Newly allocated. */
char *ls_whatif_explain (const ls_whatif_basis *basis, const ls_whatif_change *change,
                         const ls_whatif_prediction *prediction);

G_END_DECLS
