/* The what-if model (whatif-model.h): the closed form and the
 * discrete-event simulation of the loader's pool (loader/pool.c) feeding
 * the sink's pipeline (docs/measurement.md). What the simulation keeps of
 * the pool: round-robin dispatch with at most `prefetch` tasks per worker
 * and W x prefetch in flight; DONE messages are only read inside next()
 * (a worker's finished task frees its place then, not before); delivery in
 * order; non-persistent sets stopped and started at each epoch. */
#include "app/analysis/whatif-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/stats.h"

#define STOP_SET_MS 2.0 /* stopping a worker set at an epoch's end (STOP, goodbye) */

void
ls_whatif_params_init (ls_whatif_params *p)
{
  memset (p, 0, sizeof *p);
  p->prefetch = 2;
  p->cores = 1;
  p->storage_speed = 1;
  p->batch_size = 64;
  p->batches_per_epoch = 100;
  p->last_batch_samples = 64;
  p->batches = 100;
  p->warmup = 1;
  p->seed = 1;
}

double
ls_whatif_build_ms (const ls_whatif_params *p)
{
  double rf = CLAMP (p->read_fraction, 0.0, 1.0);
  double speed = p->storage_speed > 0 ? p->storage_speed : 1.0;
  return p->t_build_ms * ((1.0 - rf) + rf / speed);
}

/* The share of a core one thread gets alone among the background load. */
static double
solo_share (const ls_whatif_params *p)
{
  return MIN (1.0, MAX (p->cores, 0.5) / (1.0 + MAX (p->background, 0.0)));
}

/* The consumer's time per batch outside next() when the loader never
 * makes it wait, and its host-only part. */
double
ls_whatif_consumer_period_ms (const ls_whatif_params *p)
{
  double host = p->stage_ms + p->host_ms;
  if (p->workers == 0)
    host += ls_whatif_build_ms (p) / solo_share (p);
  if (p->non_blocking)
    return MAX (host, MAX (p->copy_ms, p->compute_ms));
  return p->copy_ms + MAX (host, p->compute_ms);
}

/* Cores left to the workers: the consumer's host work takes its share. */
static double
worker_cores (const ls_whatif_params *p, double rate_per_ms)
{
  double load = (p->stage_ms + p->host_ms) * rate_per_ms;
  return MAX (0.5, (p->cores > 0 ? p->cores : 1.0) - CLAMP (load, 0.0, 1.0));
}

void
ls_whatif_closed_form (const ls_whatif_params *p, ls_whatif_prediction *out)
{
  double period = ls_whatif_consumer_period_ms (p);
  double consumer = period > 0 ? 1.0 / period : INFINITY; /* batches per ms */
  double build = ls_whatif_build_ms (p);
  double loader;

  memset (out, 0, sizeof *out);
  if (p->workers == 0)
    loader = consumer; /* built in the consumer: its period holds the build */
  else
    {
      /* The consumer's share of the CPU depends on the rate; one refinement
       * from the consumer's rate is enough for its small share. */
      double w = p->workers;
      double cores = worker_cores (p, MIN (consumer, w / MAX (build, 1e-9)));
      double share = MIN (1.0, cores / (w + MAX (p->background, 0.0)));
      loader = build > 0 ? w * share / build : INFINITY;
    }
  double rate = MIN (consumer, loader);
  out->loader_rate_bps = loader * 1000.0;
  out->consumer_rate_bps = consumer * 1000.0;
  out->loader_bound = p->workers > 0 && loader < consumer;
  out->throughput_sps = isfinite (rate) ? rate * 1000.0 * p->batch_size : 0;
  out->gpu_util_exact = isfinite (rate) ? CLAMP (p->compute_ms * rate, 0.0, 1.0) : 0;
  double wait;
  if (p->workers == 0)
    wait = build / solo_share (p);
  else if (out->loader_bound)
    wait = MAX (0.0, 1.0 / rate - (p->stage_ms + p->host_ms + p->copy_ms));
  else
    wait = 0;
  out->wait_p50_ms = out->wait_p95_ms = out->wait_mean_ms = wait;
}

double
ls_whatif_percentile (double *values, gsize n, double q)
{
  if (n == 0)
    return NAN;
  qsort (values, n, sizeof *values, ls_cmp_double);
  return ls_percentile_sorted (values, n, q);
}

/* ------------------------------------------------------------ simulation */

typedef struct {
  guint *queue;       /* tasks sent to it, not built yet (seq numbers), FIFO */
  guint qhead, qlen;
  guint outstanding;  /* sent, not yet acknowledged in next() */
  double rem;         /* work left on the head task (uncontended ms) */
  double avail;       /* ready to build from this time (start-up) */
} sim_worker;

typedef struct {
  const ls_whatif_params *p;
  GRand *rand;
  guint n;                 /* batches */
  double *ready;           /* per seq: when acknowledged ready; < 0: not */
  guint *pending;          /* built, not acknowledged (seqs) */
  guint n_pending;
  sim_worker *w;
  guint dispatched, in_flight, rr, worker_epoch;
  double cores;
} sim;

static guint
samples_of (const ls_whatif_params *p, guint seq)
{
  guint bpe = MAX (p->batches_per_epoch, 1u);
  return seq % bpe == bpe - 1 && p->last_batch_samples ? p->last_batch_samples : p->batch_size;
}

static double
work_of (sim *s, guint seq)
{
  const ls_whatif_params *p = s->p;
  double m = 1.0;
  if (p->multipliers && p->n_multipliers)
    m = p->multipliers[g_rand_int_range (s->rand, 0, (gint32) p->n_multipliers)];
  return ls_whatif_build_ms (p) * m * (double) samples_of (p, seq) / MAX (p->batch_size, 1u);
}

static void
dispatch (sim *s)
{
  const ls_whatif_params *p = s->p;
  guint nw = p->workers, bpe = MAX (p->batches_per_epoch, 1u);

  while (s->dispatched < s->n && s->in_flight < nw * p->prefetch)
    {
      if (!p->persistent && s->dispatched / bpe != s->worker_epoch)
        break;
      int chosen = -1;
      for (guint k = 0; k < nw && chosen < 0; k++)
        if (s->w[(s->rr + k) % nw].outstanding < p->prefetch)
          chosen = (int) ((s->rr + k) % nw);
      if (chosen < 0)
        break;
      sim_worker *w = &s->w[chosen];
      if (w->qlen == 0)
        w->rem = work_of (s, s->dispatched);
      w->queue[(w->qhead + w->qlen) % p->prefetch] = s->dispatched;
      w->qlen++;
      w->outstanding++;
      s->in_flight++;
      s->dispatched++;
      s->rr = ((guint) chosen + 1) % nw;
    }
}

static void
acknowledge (sim *s, double now)
{
  for (guint i = 0; i < s->n_pending; i++)
    s->ready[s->pending[i]] = now;
  s->n_pending = 0;
}

typedef struct {
  double step_end, copy_end;
  double compute_sum, samples, window_start, last_consumed;
  double *waits;
  guint n_waits;
} consumer_acc;

/* Batch k delivered at t after waiting `wait`: the sink's pipeline; returns
 * when the host comes back for the next one. */
static double
consume (const ls_whatif_params *p, consumer_acc *c, guint k, double t, double wait)
{
  double stage_end = t + p->stage_ms;
  double copy_start, copy_end, step_end, back;

  if (p->non_blocking)
    {
      copy_start = MAX (stage_end, c->copy_end);
      copy_end = copy_start + p->copy_ms;
      step_end = MAX (copy_end, c->step_end) + p->compute_ms;
      back = MAX (MAX (stage_end, c->step_end), c->copy_end) + p->host_ms;
    }
  else
    {
      copy_start = MAX (stage_end, c->step_end);
      copy_end = copy_start + p->copy_ms;
      step_end = copy_end + p->compute_ms;
      back = copy_end + p->host_ms;
    }
  c->copy_end = copy_end;
  c->step_end = step_end;
  if (k >= p->warmup)
    {
      c->waits[c->n_waits++] = wait;
      c->compute_sum += p->compute_ms;
      c->samples += samples_of (p, k);
    }
  if (p->warmup > 0 && k + 1 == p->warmup)
    c->window_start = back;
  c->last_consumed = back;
  return back;
}

static void
simulate_once (const ls_whatif_params *p, guint64 seed, double cores, consumer_acc *c)
{
  sim s = { .p = p, .n = p->batches, .cores = cores };
  guint nw = p->workers, bpe = MAX (p->batches_per_epoch, 1u);
  double now = 0;

  s.rand = g_rand_new_with_seed ((guint32) (seed ^ (seed >> 32)));
  if (nw == 0)
    {
      double share = solo_share (p);
      for (guint k = 0; k < s.n; k++)
        {
          double build = work_of (&s, k) / share;
          now = consume (p, c, k, now + build, build);
        }
      g_rand_free (s.rand);
      return;
    }

  s.ready = g_new (double, s.n);
  for (guint k = 0; k < s.n; k++)
    s.ready[k] = -1;
  s.pending = g_new (guint, s.n);
  s.w = g_new0 (sim_worker, nw);
  for (guint i = 0; i < nw; i++)
    s.w[i].queue = g_new (guint, p->prefetch);

  guint k = 0;               /* the batch the consumer wants next */
  gboolean blocked = FALSE;  /* inside next(), waiting for k */
  gboolean started = FALSE;
  double t_req = 0, t_enter = 0;

  while (k < s.n)
    {
      if (!blocked && now >= t_req)
        {
          /* next(): a new set where the epoch changed (or at the start),
           * the finished tasks read, more dispatched. */
          if (!started || (!p->persistent && k / bpe != s.worker_epoch))
            {
              double at = started ? now + STOP_SET_MS : now;
              s.worker_epoch = k / bpe;
              for (guint i = 0; i < nw; i++)
                s.w[i].avail = at + p->startup_ms * (i + 1);
              started = TRUE;
            }
          blocked = TRUE;
          t_enter = now;
          acknowledge (&s, now);
          dispatch (&s);
        }
      if (blocked && s.ready[k] >= 0)
        {
          s.in_flight--;
          blocked = FALSE;
          t_req = consume (p, c, k, now, now - t_enter);
          k++;
          continue;
        }

      /* The next event: a build ending, a worker becoming ready, the
       * consumer coming back. */
      guint busy = 0;
      for (guint i = 0; i < nw; i++)
        busy += s.w[i].qlen > 0 && s.w[i].avail <= now;
      double rate = busy ? MIN (1.0, s.cores / (busy + MAX (p->background, 0.0))) : 0;
      double t = blocked ? INFINITY : t_req;
      for (guint i = 0; i < nw; i++)
        if (s.w[i].qlen > 0)
          t = MIN (t, s.w[i].avail > now ? s.w[i].avail : now + MAX (s.w[i].rem, 0.0) / rate);
      if (!isfinite (t))
        break; /* nothing can happen: cannot be, but never loop forever */
      for (guint i = 0; i < nw; i++)
        if (s.w[i].qlen > 0 && s.w[i].avail <= now)
          s.w[i].rem -= (t - now) * rate;
      now = t;
      for (guint i = 0; i < nw; i++)
        {
          sim_worker *w = &s.w[i];
          while (w->qlen > 0 && w->avail <= now && w->rem <= 1e-9)
            {
              s.pending[s.n_pending++] = w->queue[w->qhead];
              w->qhead = (w->qhead + 1) % p->prefetch;
              w->qlen--;
              w->outstanding--; /* counted as the pool will count it once acknowledged */
              if (w->qlen > 0)
                w->rem = work_of (&s, w->queue[w->qhead]);
            }
        }
      /* A finished task frees the worker's place only when next() reads it. */
      if (blocked)
        {
          acknowledge (&s, now);
          dispatch (&s);
        }
    }

  for (guint i = 0; i < nw; i++)
    g_free (s.w[i].queue);
  g_free (s.w);
  g_free (s.pending);
  g_free (s.ready);
  g_rand_free (s.rand);
}

void
ls_whatif_simulate (const ls_whatif_params *p, guint replications, ls_whatif_prediction *out)
{
  ls_whatif_prediction cf;
  ls_whatif_params q = *p;
  guint reps = MAX (replications, 1u);
  double tput = 0, util = 0;
  guint used = 0;

  q.prefetch = MAX (q.prefetch, 1u);
  q.warmup = MIN (q.warmup, q.batches > 0 ? q.batches - 1 : 0);
  ls_whatif_closed_form (&q, &cf);
  *out = cf;
  if (q.batches == 0)
    return;
  double rate = MIN (cf.loader_rate_bps, cf.consumer_rate_bps) / 1000.0;
  double cores = worker_cores (&q, isfinite (rate) ? rate : 0);

  double *waits = g_new (double, (gsize) q.batches * reps);
  gsize n_waits = 0;
  for (guint r = 0; r < reps; r++)
    {
      consumer_acc c = { .waits = waits + n_waits };
      simulate_once (&q, q.seed + r, cores, &c);
      n_waits += c.n_waits;
      double span = c.last_consumed - c.window_start;
      double drained = MAX (c.step_end, c.copy_end) - c.window_start;
      if (span > 0 && c.samples > 0)
        {
          tput += c.samples / span * 1000.0;
          util += drained > 0 ? c.compute_sum / drained : 0;
          used++;
        }
    }
  if (used)
    {
      out->throughput_sps = tput / used;
      out->gpu_util_exact = CLAMP (util / used, 0.0, 1.0);
    }
  if (n_waits)
    {
      double sum = 0;
      for (gsize i = 0; i < n_waits; i++)
        sum += waits[i];
      out->wait_mean_ms = sum / (double) n_waits;
      out->wait_p50_ms = ls_whatif_percentile (waits, n_waits, 50);
      out->wait_p95_ms = ls_whatif_percentile (waits, n_waits, 95);
    }
  g_free (waits);
}
