/* `whatif --run ID --ranks N --cores C`: a node of N ranks (one DataLoader
 * per GPU, DDP) on C cores, predicted from script runs with ranks measured
 * on this machine (run|sweep --target pytorch --ranks ...).
 *
 * What is measured, per rank and per batch (the launcher's target.ranks):
 * its period (its measured window / its measured batches: wait and step,
 * the wait for the other ranks in the gradient allreduce included), the CPU
 * of its own process over that window and its workers' CPU. The model:
 *
 *   period = s + c x f,   f = max(1, load)^beta,   load = (N x k + B) / C
 *
 * c is the CPU per batch of a rank with its workers, s the part of the
 * period spent off the CPU (sleeps, I/O, a GPU's step), k the processes of
 * a rank that want a core while it computes (1 + its workers' CPU / the
 * period: DDP starts the ranks' steps together, the workers build beside
 * them) and B the other processes' load in cores, as measured here. beta
 * is the measured slowdown when processes exceed cores, fitted to the
 * basis runs within 0.5 .. 2 (1, processor sharing, where none was over:
 * two noisy runs must not make a steep curve); s follows. The
 * node's throughput is N x batch / period. Memory: each rank's and
 * worker's PSS peak, from rank 0's (the runs sample the launcher, rank 0
 * and its workers), times the processes: an upper bound, since ranks share
 * the interpreter's and torch's pages. Pure GLib over the store's runs. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "app/store/store.h"

G_BEGIN_DECLS

/* One measured run with ranks, as the model sees it (means over its ranks). */
typedef struct ls_whatif_ranks_run {
  gint64 id;
  guint ranks, workers, threads, batch_size;
  double period_ms;        /* per batch of a rank: its measured window / its measured batches */
  double cpu_ms;           /* CPU per batch of a rank: its own process's and its workers' */
  double workers_cpu_ms;   /* of which its workers' */
  double cores;            /* the machine's logical cores */
  double background;       /* other processes' load in cores (the ranks' own CPU taken out) */
  double throughput_sps;   /* the node's */
  double pss_peak_bytes;   /* launcher, rank 0 and its workers; NAN: not measured */
} ls_whatif_ranks_run;

typedef struct ls_whatif_ranks_basis {
  GArray *runs;            /* ls_whatif_ranks_run: the target first, then its sweep's with the same
                            * script, batch size, workers and threads */
  GArray *all;             /* ls_whatif_ranks_run: every run of the sweep read (for memory) */
  guint workers, threads, batch_size;
  double cpu_ms;           /* c */
  double off_cpu_ms;       /* s */
  double beta;
  gboolean beta_fitted;    /* FALSE: no basis run had more busy processes than cores, beta = 1 */
  double background;       /* B, the basis runs' median */
  double rank_bytes, worker_bytes; /* PSS peak of one rank, of one worker; NAN: not known */
  char *source;            /* how the model was found, in words */
} ls_whatif_ranks_basis;

void ls_whatif_ranks_basis_free (ls_whatif_ranks_basis *basis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_whatif_ranks_basis, ls_whatif_ranks_basis_free)

/* Reads run `run_id` (a finished script run with target.ranks) and, with
 * `siblings`, the finished runs of its sweep with the same script and
 * batch size, and fits the model for `workers` per rank (negative: the
 * run's). NULL with an error naming the run and what it lacks (no ranks,
 * no CPU per batch: recorded before Loadscope measured it; no basis run
 * with those workers). */
ls_whatif_ranks_basis *ls_whatif_ranks_basis_load (ls_store *store, gint64 run_id, gboolean siblings, int workers,
                                                   GError **error);

/* Fits the model to runs (ls_whatif_ranks_run, at least one, the first the
 * target; copied) for `workers` per rank; `all` (may be NULL) for memory. */
ls_whatif_ranks_basis *ls_whatif_ranks_basis_new (GArray *runs, GArray *all, GError **error);

typedef struct ls_whatif_ranks_prediction {
  guint ranks, workers;
  double cores;
  guint processes;         /* ranks x (1 + workers) */
  gboolean oversubscribed; /* processes > cores */
  double background;       /* B: other processes' load in cores */
  double load;             /* (N x k + B) / C */
  double slowdown;         /* f: the CPU part of a step takes f times its CPU time */
  double period_ms;        /* per batch of each rank */
  double throughput_sps;   /* the node's */
  double rank_sps;         /* each rank's */
  double cpu_ms_per_sample; /* of a rank and its workers */
  double node_pss_bytes;   /* NAN: not known */
} ls_whatif_ranks_prediction;

/* Predicts N ranks on `cores` cores (> 0) with the basis's workers, beside
 * `background` cores' worth of other processes' load (negative: the
 * basis's, as measured here; 0: a node running nothing else). */
void ls_whatif_ranks_predict (const ls_whatif_ranks_basis *basis, guint ranks, double cores, double background,
                              ls_whatif_ranks_prediction *out);

/* {"predicted": {...}, "configuration": {...}, "basis": [ids], "model": {...}, "measured": {...}} */
JsonNode *ls_whatif_ranks_to_json (const ls_whatif_ranks_basis *basis, const ls_whatif_ranks_prediction *pr);

/* The prediction in words, newly allocated. */
char *ls_whatif_ranks_explain (const ls_whatif_ranks_basis *basis, const ls_whatif_ranks_prediction *pr);

G_END_DECLS
