/* The what-if model: W workers feeding one consumer, as a queueing system.
 *
 * A worker builds a batch in t_build_ms (one worker alone on a core, a full
 * batch; a short batch takes its share), times a per-batch multiplier drawn
 * from a measured distribution (mean 1). C cores are shared by the busy
 * workers (processor sharing: each progresses at min(1, C / busy)). The
 * consumer takes each batch in order, stages it (stage_ms, pin staging's
 * host memcpy), copies it (copy_ms) and runs the model step (compute_ms),
 * pipelined as the sinks do (docs/measurement.md, the simulated GPU). At
 * most prefetch tasks wait per worker and W x prefetch batches are in
 * flight; dispatch is round robin. Non-persistent workers are stopped at
 * each epoch's end and a new set started (startup_ms each, one after
 * another).
 *
 * Two answers: the closed form (mean rates, no variance) and a small
 * discrete-event simulation of the same system over as many batches as the
 * measured run had, with a fixed seed, for throughput, GPU busy and the
 * percentiles of the batch wait. Pure C over GLib; no store. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct ls_whatif_params {
  /* The loader. */
  guint workers;          /* 0: batches built in the consumer's own thread */
  guint prefetch;         /* >= 1 */
  gboolean persistent;
  double t_build_ms;      /* one full batch, one worker, uncontended */
  double read_fraction;   /* the part of t_build_ms spent reading storage (0..1) */
  double storage_speed;   /* read stage x 1/storage_speed; 1: as measured */
  double cores;           /* CPU cores the workers share (> 0) */
  double background;      /* cores' worth of other processes' busy threads sharing them (time-shared:
                           * each busy thread gets min(1, cores / (busy + background))) */
  double startup_ms;      /* per worker of a set (they start one after another) */
  const double *multipliers; /* per-batch build time / t_build_ms, mean ~1; NULL: none (no variance) */
  guint n_multipliers;
  /* The consumer. */
  double stage_ms;        /* host staging copy per batch (pin staging) */
  double copy_ms;         /* host-to-device copy per batch */
  double compute_ms;      /* model step per batch */
  double host_ms;         /* the consumer's own other time per batch (release, bookkeeping) */
  gboolean non_blocking;
  /* The run. */
  guint batch_size;
  guint batches_per_epoch; /* >= 1 */
  guint last_batch_samples; /* samples of each epoch's last batch (batch_size: full) */
  guint batches;          /* planned batches in all */
  guint warmup;           /* batches left out of the figures */
  guint64 seed;
} ls_whatif_params;

/* Defaults: prefetch 2, persistent off, 1 core, storage speed 1, batch 64,
 * one epoch of 100 batches, warm-up 1, seed 1; everything else 0. */
void ls_whatif_params_init (ls_whatif_params *p);

typedef struct ls_whatif_prediction {
  double throughput_sps;
  double gpu_util_exact;  /* 0..1 */
  double wait_p50_ms;
  double wait_p95_ms;
  double wait_mean_ms;
  double loader_rate_bps; /* batches/s the workers could build, closed form */
  double consumer_rate_bps; /* batches/s the consumer could take, closed form */
  gboolean loader_bound;  /* the loader is the slower side (closed form) */
} ls_whatif_prediction;

/* The consumer's period per batch when it never waits (ms). */
double ls_whatif_consumer_period_ms (const ls_whatif_params *p);

/* The effective uncontended build time of a full batch with storage
 * scaling applied (ms). */
double ls_whatif_build_ms (const ls_whatif_params *p);

/* Closed form: throughput = min(consumer rate, min(W, C) / T_build) in
 * batches, x batch size (0 workers: one batch built, then consumed, in
 * one thread, overlapped with the previous step only); GPU busy =
 * compute / period; waits: 0 when consumer-bound, else the period
 * difference. */
void ls_whatif_closed_form (const ls_whatif_params *p, ls_whatif_prediction *out);

/* The discrete-event simulation (replications runs with seeds seed,
 * seed+1, ...; figures over all of them: throughput and GPU busy their
 * means, waits pooled). Fills loader/consumer rates and loader_bound from
 * the closed form. */
void ls_whatif_simulate (const ls_whatif_params *p, guint replications, ls_whatif_prediction *out);

/* Percentile as numpy's default (linear between closest ranks) of n
 * values, sorted in place. NAN for n 0. */
double ls_whatif_percentile (double *values, gsize n, double q);

G_END_DECLS
