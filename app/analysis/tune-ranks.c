/* tune --target pytorch --script S --ranks N (tune.h): workers and threads
 * per rank for a node. Every configuration whose processes and threads fit
 * the CPU budget (N x (workers + threads) <= the budget; 0 workers and 1
 * thread always, as nothing is smaller) and whose predicted PSS fits the
 * memory budget is measured, the cheapest first, while time and runs are
 * left; then the best once more, for its spread. The model of one loader
 * (whatif-basis.h) does not know ranks or threads, so it does not pick. */
#include "app/analysis/tune-private.h"
#include "app/core/i18n.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_RUNS 24
#define MEMORY_MARGIN 0.05

typedef struct {
  guint workers, threads;
} shape;

static gint
by_cost (gconstpointer a, gconstpointer b)
{
  const shape *x = a, *y = b;
  guint cx = x->workers + x->threads, cy = y->workers + y->threads;
  if (cx != cy)
    return cx < cy ? -1 : 1;
  return x->workers < y->workers ? -1 : x->workers > y->workers;
}

guint
ls_tune_ranks_of (const ls_sweep_request *base)
{
  GPtrArray *k = base->knobs[LS_SWEEP_KNOB_RANKS];
  return k && k->len ? (guint) g_ascii_strtoull (g_ptr_array_index (k, 0), NULL, 10) : 0;
}

/* The node's PSS for `workers` per rank: N x (a rank + workers x a worker),
 * from a line over the measured points' rank 0 (the launcher, rank 0 and
 * its workers: an upper bound, ranks share torch's pages). NAN before two
 * worker counts are measured, unless asked for a measured one. */
static double
node_pss (ls_tune_search *s, guint ranks, guint workers)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  for (guint i = 0; i < s->result->points->len; i++)
    {
      const ls_tune_point *p = g_ptr_array_index (s->result->points, i);
      if (!isfinite (p->pss_peak_bytes))
        continue;
      double x = p->workers, y = p->pss_peak_bytes / ranks;
      sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
    }
  if (n == 0)
    return NAN;
  double den = n * sxx - sx * sx;
  if (den <= 0)
    return sx / n == workers ? sy / n * ranks : NAN;
  double per_worker = fmax (0, (n * sxy - sx * sy) / den);
  return ranks * ((sy - per_worker * sx) / n + per_worker * workers);
}

static ls_tune_point *
measure (ls_tune_search *s, guint ranks, guint cpu, const shape *c, guint prefetch, const char *pin,
         gboolean persistent, GError **error)
{
  ls_tune_point *p = ls_tune_measure_point (s, c->workers, prefetch, pin, persistent, c->threads, NAN, error);
  if (!p)
    return NULL;
  /* The budget is the node's: every rank has rank 0's memory. */
  p->pss_peak_bytes *= ranks;
  p->over_budget = ls_tune_over_budget (s->o, p->pss_peak_bytes);
  g_autofree char *workers = g_strdup_printf (ngettext ("%u worker", "%u workers", c->workers), c->workers);
  g_autofree char *threads = g_strdup_printf (ngettext ("%u thread", "%u threads", c->threads), c->threads);
  ls_tune_say (s, _("  the node: %u ranks \u00d7 (%s + %s) = %u of %u cores; PSS about %.0f MB "
                    "(rank 0's \u00d7 %u, an upper bound)%s"),
               ranks, workers, threads, ranks * (c->workers + c->threads), cpu, p->pss_peak_bytes / 1e6, ranks,
               p->over_budget ? _(": over the memory budget, excluded") : "");
  return p;
}

gboolean
ls_tune_ranks_search (ls_tune_search *s, guint ranks, GError **error)
{
  const ls_tune_options *o = s->o;
  ls_tune_result *r = s->result;
  guint cpu = o->cpu_budget ? o->cpu_budget : o->cores;
  guint max_runs = o->max_runs ? o->max_runs : DEFAULT_MAX_RUNS;
  if (ranks > cpu)
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_BUDGET, /* untranslated: the store's end reason */
                   "%u ranks need at least %u cores (one process each); the CPU budget is %u: give --cpu-budget "
                   "%u or more, or fewer --ranks", ranks, ranks, cpu, ranks);
      return FALSE;
    }
  /* Threads per rank: --threads, or 1, 2, 4 ... */
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint));
  GPtrArray *fixed = o->base->knobs[LS_SWEEP_KNOB_THREADS];
  if (fixed && fixed->len)
    {
      guint t = (guint) g_ascii_strtoull (g_ptr_array_index (fixed, 0), NULL, 10);
      g_array_append_val (threads, t);
    }
  else
    for (guint t = 1; ranks * t <= cpu; t *= 2)
      g_array_append_val (threads, t);

  g_autoptr (GArray) shapes = g_array_new (FALSE, FALSE, sizeof (shape));
  for (guint wi = 0; wi < s->workers->len; wi++)
    for (guint ti = 0; ti < threads->len; ti++)
      {
        shape c = { g_array_index (s->workers, guint, wi), g_array_index (threads, guint, ti) };
        if (ranks * (c.workers + c.threads) <= cpu || (c.workers == 0 && c.threads <= 1))
          g_array_append_val (shapes, c);
      }
  if (shapes->len == 0)
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_BUDGET, /* untranslated: the store's end reason */
                   "no workers and threads per rank fit %u ranks in the CPU budget of %u cores (%u ranks \u00d7 "
                   "(workers + threads) must be at most %u)", ranks, cpu, ranks, cpu);
      return FALSE;
    }
  g_array_sort (shapes, by_cost);
  ls_tune_say (s, _("%u ranks, a CPU budget of %u cores: %u configurations of workers and threads per rank fit "
                    "(%u \u00d7 (workers + threads) \u2264 %u)"),
               ranks, cpu, shapes->len, ranks, cpu);

  /* The other knobs: given, or PyTorch's defaults (the probe sets them). */
  guint pf = g_array_index (s->prefetch, guint, MIN (1u, s->prefetch->len - 1));
  const char *pin = o->base->knobs[LS_SWEEP_KNOB_PIN] ? g_ptr_array_index (s->pins, 0) : "off";
  gboolean pers = o->base->knobs[LS_SWEEP_KNOB_PERSISTENT] ? g_array_index (s->persistent, gboolean, 0) : FALSE;

  for (guint i = 0; i < shapes->len; i++)
    {
      const shape *c = &g_array_index (shapes, shape, i);
      if (r->runs >= max_runs)
        {
          r->stop_reason = g_strdup (_("the most runs it may make"));
          break;
        }
      double run_s = r->runs ? ls_tune_elapsed (s) / r->runs : 0;
      if (r->runs && ls_tune_elapsed (s) + run_s > o->time_budget_s)
        {
          r->stop_reason = g_strdup_printf (_("the time budget (%.0f s) is spent"), o->time_budget_s);
          break;
        }
      double pss = node_pss (s, ranks, c->workers);
      if (ls_tune_over_budget (o, pss * (1 + MEMORY_MARGIN)))
        {
          g_autofree char *workers = g_strdup_printf (ngettext ("%u worker", "%u workers", c->workers), c->workers);
          g_autofree char *per_rank = g_strdup_printf (ngettext ("%u thread", "%u threads", c->threads), c->threads);
          ls_tune_say (s, _("%s and %s per rank would need about %.0f MB for the node, over the memory budget: not run"),
                       workers, per_rank, pss / 1e6);
          continue;
        }
      ls_tune_point *p = measure (s, ranks, cpu, c, pf, pin, pers, error);
      if (!p)
        return FALSE;
      if (r->runs == 1 && p->over_budget)
        {
          g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_BUDGET, /* untranslated: the store's end reason */
                       "the memory budget (%.0f MB) is below what the smallest configuration of %u ranks used "
                       "(PSS about %.0f MB for the node): no configuration fits",
                       o->memory_budget_bytes / 1e6, ranks, p->pss_peak_bytes / 1e6);
          return FALSE;
        }
    }
  if (!r->stop_reason)
    r->stop_reason = g_strdup (_("every configuration within the budgets was measured"));

  /* The best once more, where time is left: its spread is the noise. */
  int best = -1;
  for (guint i = 0; i < r->points->len; i++)
    {
      const ls_tune_point *p = g_ptr_array_index (r->points, i);
      if (!p->over_budget && isfinite (p->throughput_sps)
          && (best < 0 || p->throughput_sps > ((ls_tune_point *) g_ptr_array_index (r->points, best))->throughput_sps))
        best = (int) i;
    }
  double run_s = r->runs ? ls_tune_elapsed (s) / r->runs : 0;
  if (best >= 0 && r->runs < max_runs && ls_tune_elapsed (s) + run_s <= o->time_budget_s)
    {
      const ls_tune_point *b = g_ptr_array_index (r->points, best);
      shape c = { b->workers, b->threads };
      double first = b->throughput_sps;
      ls_tune_say (s, _("the best: running it again, for its spread"));
      ls_tune_point *again = measure (s, ranks, cpu, &c, pf, pin, pers, error);
      if (!again)
        return FALSE;
      double mean = (first + again->throughput_sps) / 2;
      r->noise = mean > 0 ? fabs (first - again->throughput_sps) / mean : 0;
    }
  return TRUE;
}
