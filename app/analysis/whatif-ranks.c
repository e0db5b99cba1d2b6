/* A node of N ranks on C cores from runs with ranks (whatif-ranks.h). */
#include "app/analysis/whatif-ranks.h"
#include "app/core/i18n.h"

#include <math.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/summary-keys.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"
#include "loader/stats.h"

#define BETA_MIN 0.5
#define BETA_MAX 2.0
#define OVER 1.02 /* a load this far over 1 counts as processes over cores */

void
ls_whatif_ranks_basis_free (ls_whatif_ranks_basis *basis)
{
  if (!basis)
    return;
  g_array_unref (basis->runs);
  g_array_unref (basis->all);
  g_free (basis->source);
  g_free (basis);
}

static JsonObject *
object_at (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

/* Run `id` into *out, with the text that tells its script apart (its hash
 * and arguments) in *identity. */
static gboolean
read_run (ls_store *store, gint64 id, ls_whatif_ranks_run *out, char **identity, GError **error)
{
  g_autoptr (JsonObject) o = ls_store_run_object (store, id, error);
  if (!o)
    return FALSE;
  const char *status = json_object_get_string_member_with_default (o, "status", "");
  if (strcmp (status, "done") != 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                   _("run %lld is %s, not done: the model needs a finished run"), (long long) id, status);
      return FALSE;
    }
  const char *text = json_object_get_string_member_with_default (o, "summary", NULL);
  g_autoptr (JsonNode) sn = text ? json_from_string (text, NULL) : NULL;
  JsonObject *summary = sn && JSON_NODE_HOLDS_OBJECT (sn) ? json_node_get_object (sn) : NULL;
  JsonObject *target = ls_json_object_or_null (summary, "target");
  JsonNode *rn = target ? json_object_get_member (target, "ranks") : NULL;
  JsonArray *ranks = rn && JSON_NODE_HOLDS_ARRAY (rn) ? json_node_get_array (rn) : NULL;
  if (!ranks || json_array_get_length (ranks) == 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                   _("run %lld has no ranks: --ranks predicts from script runs started with "
                     "--ranks N (e.g. sweep --target pytorch --script S --ranks 1,2)"),
                   (long long) id);
      return FALSE;
    }

  memset (out, 0, sizeof *out);
  out->id = id;
  out->ranks = json_array_get_length (ranks);
  double period = 0, cpu = 0, wcpu = 0, workers = 0, threads = 0, batch = 0;
  for (guint i = 0; i < out->ranks; i++)
    {
      JsonObject *r = object_at (ranks, i);
      double s = ls_json_number_or (r, "measured_s", NAN), m = ls_json_number_or (r, "measured_batches", NAN);
      double c = ls_json_number_or (r, "cpu_ms_per_batch", NAN);
      if (!(s > 0 && m > 0))
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                       _("run %lld: rank %u has no measured batches: nothing to fit"), (long long) id, i);
          return FALSE;
        }
      if (!(c >= 0))
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                       _("run %lld: rank %u's CPU per batch was not measured (the run was recorded "
                         "before Loadscope measured it): run it again"),
                       (long long) id, i);
          return FALSE;
        }
      double w = fmax (0, ls_json_number_or (r, "num_workers", 0));
      double wc = w > 0 ? fmax (0, ls_json_number_or (r, "worker_cpu_ms", 0)) : 0;
      period += s * 1e3 / m;
      cpu += c + wc;
      wcpu += wc;
      workers += w;
      threads += fmax (1, ls_json_number_or (r, "threads", 1));
      batch += fmax (1, ls_json_number_or (r, "batch_size", ls_json_number_or (o, "batch_size", 1)));
    }
  double n = out->ranks;
  out->period_ms = period / n;
  out->cpu_ms = cpu / n;
  out->workers_cpu_ms = wcpu / n;
  out->workers = (guint) lround (workers / n);
  out->threads = (guint) lround (threads / n);
  out->batch_size = (guint) lround (batch / n);
  out->cores = fmax (1, ls_json_number_or (o, "machine_logical_cores", 1));
  double other = ls_json_number_or (ls_json_object_or_null (summary, "machine_busy"), "other_cpu_percent", 0);
  out->background = CLAMP (other / 100.0, 0.0, 4096.0);
  out->throughput_sps = ls_json_number_or (o, LS_KEY_THROUGHPUT, NAN);
  out->pss_peak_bytes = ls_json_number_or (o, LS_KEY_PSS_PEAK, NAN);
  *identity = g_strdup_printf ("%s|%s|%s", json_object_get_string_member_with_default (o, "dataset", ""),
                               json_object_get_string_member_with_default (target, "script_sha256", ""),
                               json_object_get_string_member_with_default (target, "script_args", ""));
  return TRUE;
}

/* The processes of a rank that want a core while it computes. */
static double
per_rank (double workers_cpu_ms, double period_ms)
{
  return 1.0 + (period_ms > 0 ? workers_cpu_ms / period_ms : 0);
}

static double
load_of (double ranks, double k, double background, double cores)
{
  return (ranks * k + background) / cores;
}

static double
slowdown (double load, double beta)
{
  return load > 1 ? pow (load, beta) : 1.0;
}

static double
run_load (const ls_whatif_ranks_run *r, double background)
{
  return load_of (r->ranks, per_rank (r->workers_cpu_ms, r->period_ms), background, r->cores);
}

/* s for beta: the mean of what the runs' periods leave off the CPU. */
static double
off_cpu (GArray *runs, double beta)
{
  double s = 0;
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (runs, ls_whatif_ranks_run, i);
      s += r->period_ms - r->cpu_ms * slowdown (run_load (r, r->background), beta);
    }
  return s / runs->len;
}

/* beta and s: least squares of the relative error of the runs' periods
 * over a grid of beta, s the mean for each; TRUE where the runs could
 * tell (two loads or more, one of them over the cores). */
static gboolean
fit (GArray *runs, double *beta, double *s)
{
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (runs, ls_whatif_ranks_run, i);
      double l = run_load (r, r->background);
      lo = fmin (lo, fmax (l, 1.0));
      hi = fmax (hi, l);
    }
  *beta = 1.0;
  if (runs->len >= 2 && hi > OVER && hi - lo > 0.05)
    {
      double best = INFINITY;
      for (double b = BETA_MIN; b <= BETA_MAX + 1e-9; b += 0.01)
        {
          double sb = off_cpu (runs, b), err = 0;
          if (sb < 0)
            continue;
          for (guint i = 0; i < runs->len; i++)
            {
              const ls_whatif_ranks_run *r = &g_array_index (runs, ls_whatif_ranks_run, i);
              double e = (sb + r->cpu_ms * slowdown (run_load (r, r->background), b) - r->period_ms) / r->period_ms;
              err += e * e;
            }
          if (err < best)
            best = err, *beta = b;
        }
      if (isfinite (best))
        {
          *s = off_cpu (runs, *beta);
          return TRUE;
        }
      *beta = 1.0;
    }
  *s = fmax (0, off_cpu (runs, *beta));
  return FALSE;
}

/* PSS peak of a rank and of a worker: a line over the workers of the runs
 * (rank 0 and its workers are what a run samples); runs of one rank
 * where there are some (with more, rank 0 shares its pages). */
static void
memory (ls_whatif_ranks_basis *b)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  guint fewest = G_MAXUINT;
  for (guint i = 0; i < b->all->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (b->all, ls_whatif_ranks_run, i);
      if (isfinite (r->pss_peak_bytes))
        fewest = MIN (fewest, r->ranks);
    }
  for (guint i = 0; i < b->all->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (b->all, ls_whatif_ranks_run, i);
      if (!isfinite (r->pss_peak_bytes) || r->ranks != fewest)
        continue;
      double x = r->workers, y = r->pss_peak_bytes;
      sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
    }
  b->rank_bytes = b->worker_bytes = NAN;
  if (n == 0)
    return;
  double den = n * sxx - sx * sx;
  if (den > 0)
    {
      b->worker_bytes = fmax (0, (n * sxy - sx * sy) / den);
      b->rank_bytes = (sy - b->worker_bytes * sx) / n;
    }
  else if (sx == 0)
    b->rank_bytes = sy / n; /* only runs without workers: a worker's share is not known */
}

ls_whatif_ranks_basis *
ls_whatif_ranks_basis_new (GArray *runs, GArray *all, GError **error)
{
  if (!runs || runs->len == 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("no finished run with ranks to fit the model to"));
      return NULL;
    }
  g_autoptr (ls_whatif_ranks_basis) b = g_new0 (ls_whatif_ranks_basis, 1);
  b->runs = g_array_copy (runs);
  b->all = all ? g_array_copy (all) : g_array_copy (runs);
  const ls_whatif_ranks_run *t = &g_array_index (runs, ls_whatif_ranks_run, 0);
  b->workers = t->workers;
  b->threads = t->threads;
  b->batch_size = t->batch_size;

  /* c: the runs with more than one rank carry the gradient allreduce. */
  double c = 0, n = 0, c1 = 0, n1 = 0;
  g_autoptr (GArray) loads = g_array_new (FALSE, FALSE, sizeof (double));
  GString *ranks = g_string_new (NULL);
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (runs, ls_whatif_ranks_run, i);
      if (r->ranks > 1)
        c += r->cpu_ms, n++;
      c1 += r->cpu_ms, n1++;
      g_array_append_val (loads, r->background);
      g_string_append_printf (ranks, "%s%u", i ? ", " : "", r->ranks);
    }
  b->cpu_ms = n > 0 ? c / n : c1 / n1;
  b->background = ls_median ((double *) (void *) loads->data, loads->len);
  b->beta_fitted = fit (b->runs, &b->beta, &b->off_cpu_ms);
  memory (b);
  /* "2 runs with 1, 2 ranks, 3 workers per rank; ..." */
  g_autofree char *with_ranks
      = g_strdup_printf (ngettext ("with %s rank", "with %s ranks", runs->len == 1 && t->ranks == 1 ? 1 : 2), ranks->str);
  g_autofree char *per_rank
      = g_strdup_printf (ngettext ("%u worker per rank", "%u workers per rank", b->workers), b->workers);
  b->source = g_strdup_printf (ngettext ("%u run %s, %s; %s", "%u runs %s, %s; %s", runs->len), runs->len, with_ranks,
                               per_rank,
                               b->beta_fitted ? _("the slowdown over the cores fitted to them")
                                              : _("the slowdown over the cores assumed proportional (none of them "
                                                  "had more busy processes than cores, or one load only)"));
  g_string_free (ranks, TRUE);
  return g_steal_pointer (&b);
}

ls_whatif_ranks_basis *
ls_whatif_ranks_basis_load (ls_store *store, gint64 run_id, gboolean siblings, int workers, GError **error)
{
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  g_autofree char *identity = NULL;
  ls_whatif_ranks_run target;
  if (!read_run (store, run_id, &target, &identity, error))
    return NULL;
  g_array_append_val (all, target);
  g_autoptr (JsonObject) o = siblings ? ls_store_run_object (store, run_id, error) : NULL;
  if (siblings && !o)
    return NULL;
  gint64 sweep = o ? json_object_get_int_member_with_default (o, "sweep_id", 0) : 0;
  if (sweep > 0)
    {
      gint64 params[1] = { sweep };
      g_autoptr (ls_store_rows) rows = ls_store_query_rows (store, LS_QUERY_SWEEP_DONE_RUN_IDS, params, 1, error);
      if (!rows)
        return NULL;
      g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      while (ls_store_rows_next (rows, NULL))
        {
          gint64 id = ls_store_rows_get_int (rows, 0);
          if (id != run_id)
            g_array_append_val (ids, id);
        }
      for (guint i = 0; i < ids->len; i++)
        {
          ls_whatif_ranks_run r;
          g_autofree char *same = NULL;
          /* A sibling without ranks or figures is left out, not an error. */
          if (read_run (store, g_array_index (ids, gint64, i), &r, &same, NULL) && strcmp (same, identity) == 0
              && r.batch_size == target.batch_size)
            g_array_append_val (all, r);
        }
    }
  guint w = workers >= 0 ? (guint) workers : target.workers;
  for (guint i = 0; i < all->len; i++)
    {
      const ls_whatif_ranks_run *r = &g_array_index (all, ls_whatif_ranks_run, i);
      if (r->workers == w && r->threads == target.threads)
        g_array_append_val (runs, *r);
    }
  if (runs->len == 0)
    {
      g_autofree char *per_rank = g_strdup_printf (ngettext ("%u worker per rank", "%u workers per rank", w), w);
      g_autofree char *threads
          = g_strdup_printf (ngettext ("%u thread", "%u threads", target.threads), target.threads);
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                   sweep > 0 ? _("no run of sweep %lld has %s and %s: measure one "
                                 "(sweep --ranks 1,2 --workers %u --threads %u) to predict it")
                             : _("no run of run %lld has %s and %s: measure one "
                                 "(sweep --ranks 1,2 --workers %u --threads %u) to predict it"),
                   (long long) (sweep > 0 ? sweep : run_id), per_rank, threads, w, target.threads);
      return NULL;
    }
  return ls_whatif_ranks_basis_new (runs, all, error);
}

void
ls_whatif_ranks_predict (const ls_whatif_ranks_basis *b, guint ranks, double cores, double background,
                         ls_whatif_ranks_prediction *out)
{
  memset (out, 0, sizeof *out);
  out->background = background >= 0 ? background : b->background;
  out->ranks = MAX (ranks, 1u);
  out->workers = b->workers;
  out->cores = cores > 0 ? cores : 1;
  out->processes = out->ranks * (1 + b->workers);
  out->oversubscribed = out->processes > out->cores;
  double wcpu = 0;
  for (guint i = 0; i < b->runs->len; i++)
    wcpu += g_array_index (b->runs, ls_whatif_ranks_run, i).workers_cpu_ms;
  wcpu /= b->runs->len;
  /* The workers' share of a core depends on the period: a few damped
   * rounds settle it (it moves the load by a fraction of a process). */
  double period = b->off_cpu_ms + b->cpu_ms;
  for (int i = 0; i < 60; i++)
    {
      out->load = load_of (out->ranks, per_rank (wcpu, period), out->background, out->cores);
      out->slowdown = slowdown (out->load, b->beta);
      period = 0.5 * period + 0.5 * (b->off_cpu_ms + b->cpu_ms * out->slowdown);
    }
  out->period_ms = period;
  out->rank_sps = period > 0 ? b->batch_size / period * 1e3 : 0;
  out->throughput_sps = out->rank_sps * out->ranks;
  out->cpu_ms_per_sample = b->cpu_ms / MAX (b->batch_size, 1u);
  out->node_pss_bytes = NAN;
  if (isfinite (b->rank_bytes) && (b->workers == 0 || isfinite (b->worker_bytes)))
    out->node_pss_bytes = out->ranks * (b->rank_bytes + (b->workers ? b->workers * b->worker_bytes : 0));
}

JsonNode *
ls_whatif_ranks_to_json (const ls_whatif_ranks_basis *b, const ls_whatif_ranks_prediction *pr)
{
  g_autoptr (JsonBuilder) j = json_builder_new ();
  const ls_whatif_ranks_run *t = &g_array_index (b->runs, ls_whatif_ranks_run, 0);
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "predicted");
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, pr->throughput_sps);
  ls_json_builder_add_number (j, "rank_throughput_sps", pr->rank_sps);
  ls_json_builder_add_number (j, "period_ms", pr->period_ms);
  ls_json_builder_add_number (j, "cpu_ms_per_sample", pr->cpu_ms_per_sample);
  ls_json_builder_add_number (j, "load", pr->load);
  ls_json_builder_add_number (j, "background_cores", pr->background);
  ls_json_builder_add_number (j, "slowdown", pr->slowdown);
  json_builder_set_member_name (j, "oversubscribed");
  json_builder_add_boolean_value (j, pr->oversubscribed);
  ls_json_builder_add_number (j, "node_pss_bytes", pr->node_pss_bytes);
  json_builder_end_object (j);

  json_builder_set_member_name (j, "configuration");
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "ranks");
  json_builder_add_int_value (j, pr->ranks);
  json_builder_set_member_name (j, "workers");
  json_builder_add_int_value (j, pr->workers);
  json_builder_set_member_name (j, "threads");
  json_builder_add_int_value (j, b->threads);
  ls_json_builder_add_number (j, "cores", pr->cores);
  json_builder_set_member_name (j, "processes");
  json_builder_add_int_value (j, pr->processes);
  json_builder_end_object (j);

  json_builder_set_member_name (j, "basis");
  json_builder_begin_array (j);
  for (guint i = 0; i < b->runs->len; i++)
    json_builder_add_int_value (j, g_array_index (b->runs, ls_whatif_ranks_run, i).id);
  json_builder_end_array (j);

  json_builder_set_member_name (j, "model");
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, "cpu_ms_per_batch", b->cpu_ms);
  ls_json_builder_add_number (j, "off_cpu_ms_per_batch", b->off_cpu_ms);
  ls_json_builder_add_number (j, "beta", b->beta);
  json_builder_set_member_name (j, "beta_fitted");
  json_builder_add_boolean_value (j, b->beta_fitted);
  ls_json_builder_add_number (j, "background_cores", b->background);
  ls_json_builder_add_number (j, "rank_pss_bytes", b->rank_bytes);
  ls_json_builder_add_number (j, "worker_pss_bytes", b->worker_bytes);
  json_builder_set_member_name (j, "source");
  json_builder_add_string_value (j, b->source);
  json_builder_end_object (j);

  json_builder_set_member_name (j, "measured");
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "run");
  json_builder_add_int_value (j, t->id);
  json_builder_set_member_name (j, "ranks");
  json_builder_add_int_value (j, t->ranks);
  ls_json_builder_add_number (j, "cores", t->cores);
  ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, t->throughput_sps);
  ls_json_builder_add_number (j, "period_ms", t->period_ms);
  json_builder_end_object (j);
  json_builder_end_object (j);
  return json_builder_get_root (j);
}

char *
ls_whatif_ranks_explain (const ls_whatif_ranks_basis *b, const ls_whatif_ranks_prediction *pr)
{
  const ls_whatif_ranks_run *t = &g_array_index (b->runs, ls_whatif_ranks_run, 0);
  GString *s = g_string_new (NULL);
  g_autofree char *ranks = g_strdup_printf (ngettext ("%u rank", "%u ranks", pr->ranks), pr->ranks);
  g_autofree char *workers = g_strdup_printf (ngettext ("%u worker", "%u workers", pr->workers), pr->workers);
  g_autofree char *processes
      = g_strdup_printf (ngettext ("%u process", "%u processes", pr->processes), pr->processes);
  g_autofree char *cores
      = g_strdup_printf (ngettext ("%.0f core", "%.0f cores", (gulong) MAX (0, round (pr->cores))), pr->cores);
  g_string_append_printf (s, _("%s \u00d7 (1 + %s) = %s on %s"), ranks, workers, processes, cores);
  if (pr->oversubscribed)
    {
      double more = pr->processes - pr->cores;
      g_string_append_printf (s,
                              ngettext (" (oversubscribed: %.0f more process than cores)",
                                        " (oversubscribed: %.0f more processes than cores)",
                                        (gulong) MAX (0, round (more))),
                              more);
    }
  g_autofree char *measured_ranks = g_strdup_printf (ngettext ("%u rank", "%u ranks", t->ranks), t->ranks);
  g_string_append_printf (s, _(": about %.0f samples/s for the node (%.0f per rank), %.1f ms per batch of each rank "
                               "(measured on run %lld, %s on %.0f cores: %.0f samples/s).\n"),
                          pr->throughput_sps, pr->rank_sps, pr->period_ms, (long long) t->id, measured_ranks, t->cores,
                          t->throughput_sps);
  g_string_append_printf (s, pr->background == b->background
                                 ? _("Each rank and its workers spend %.2f ms of CPU per sample (%.1f ms per batch); "
                                     "with the load at %.2f of the cores (other processes' %.1f cores' worth, as "
                                     "measured here, included) that CPU takes %.2f\u00d7 its time, beside %.1f ms per "
                                     "batch off the CPU.")
                                 : _("Each rank and its workers spend %.2f ms of CPU per sample (%.1f ms per batch); "
                                     "with the load at %.2f of the cores (other processes' %.1f cores' worth "
                                     "included) that CPU takes %.2f\u00d7 its time, beside %.1f ms per batch off "
                                     "the CPU."),
                          pr->cpu_ms_per_sample, b->cpu_ms, pr->load, pr->background, pr->slowdown, b->off_cpu_ms);
  if (isfinite (pr->node_pss_bytes))
    {
      if (pr->workers)
        g_string_append_printf (s, _(" Memory: at most %.0f MB PSS for the node (%.0f MB a rank, %.0f MB a worker)."),
                                pr->node_pss_bytes / 1e6, b->rank_bytes / 1e6, b->worker_bytes / 1e6);
      else
        g_string_append_printf (s, _(" Memory: at most %.0f MB PSS for the node (%.0f MB a rank)."),
                                pr->node_pss_bytes / 1e6, b->rank_bytes / 1e6);
    }
  g_string_append_printf (s, _("\n(Model: %s; slowdown max(1, load)^%.2f.)"), b->source, b->beta);
  return g_string_free (s, FALSE);
}
