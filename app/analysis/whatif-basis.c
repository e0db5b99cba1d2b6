/* Measured runs into the what-if model's parameters (whatif-basis.h). */
#include "app/analysis/whatif-basis.h"
#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/summary-keys.h"
#include "app/store/store-named.h"

#include <math.h>
#include <string.h>

#include "app/store/store-query.h"
#include "loader/stats.h"

void
ls_whatif_run_free (ls_whatif_run *run)
{
  if (!run)
    return;
  g_free (run->dataset);
  g_free (run->pin);
  g_free (run->sink);
  if (run->builds)
    g_array_unref (run->builds);
  if (run->gaps)
    g_array_unref (run->gaps);
  g_free (run);
}

static double
array_mean (GArray *a)
{
  double sum = 0;
  if (!a || a->len == 0)
    return NAN;
  for (guint i = 0; i < a->len; i++)
    sum += g_array_index (a, double, i);
  return sum / a->len;
}

/* busy_ms per batch where the store has the loader's stages (schema 004);
 * nothing (and no error) where it has not. */
static void
load_busy (ls_store *store, ls_whatif_run *run)
{
  gint64 params[2] = { run->id, run->warmup };
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store_rows) rows = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_BUSY, params, 2, &error);
  if (!rows)
    return;
  GArray *busy = g_array_new (FALSE, FALSE, sizeof (double));
  while (ls_store_rows_next (rows, NULL))
    {
      double v = ls_store_rows_get_double (rows, 0);
      g_array_append_val (busy, v);
    }
  if (busy->len > 0 && array_mean (busy) > 0)
    {
      g_array_unref (run->builds);
      run->builds = busy;
    }
  else
    g_array_unref (busy);
}

/* A script's run: the model step is the script's own step between two
 * batches (compute_ms, as the probe measured it), and busy is the share of
 * the measured time spent in it (step_share; gpu_util_exact only with the
 * CUDA sink). FALSE, saying what is missing, when the script measured no
 * step: a prediction would rest on a 0 ms step. */
static gboolean
script_step (ls_whatif_run *r, JsonObject *target, double compute, guint stepped, GError **error)
{
  double p50 = ls_json_number_or (target, "step_ms_p50", NAN);
  if (stepped > 0)
    r->compute_ms = compute / stepped;
  else if (isfinite (p50) && p50 >= 0)
    r->compute_ms = p50;
  else
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                   _("run %lld is a PyTorch script's run (--target pytorch) whose script measured no "
                     "step between batches: there is no model step to predict from (the script must ask the loader "
                     "for its next batch after each step)"),
                   (long long) r->id);
      return FALSE;
    }
  if (!isfinite (r->gpu_util_exact) || r->gpu_util_exact < 0)
    r->gpu_util_exact = ls_json_number_or (target, "step_share", NAN);
  return TRUE;
}

ls_whatif_run *
ls_whatif_run_load (ls_store *store, gint64 run_id, GError **error)
{
  g_autoptr (JsonObject) o = ls_store_run_object (store, run_id, error);
  if (!o)
    return NULL;
  const char *status = json_object_get_string_member_with_default (o, "status", "");
  if (strcmp (status, "done") != 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                   _("run %lld is %s, not done: the model needs a finished run"), (long long) run_id, status);
      return NULL;
    }

  g_autoptr (ls_whatif_run) r = g_new0 (ls_whatif_run, 1);
  g_autoptr (JsonNode) summary_node = NULL;
  JsonObject *summary = NULL;
  const char *summary_text = json_object_get_string_member_with_default (o, "summary", NULL);
  if (summary_text)
    summary_node = json_from_string (summary_text, NULL);
  if (summary_node && JSON_NODE_HOLDS_OBJECT (summary_node))
    summary = json_node_get_object (summary_node);

  r->id = run_id;
  r->sweep_id = json_object_get_int_member_with_default (o, "sweep_id", 0);
  r->dataset = g_strdup (json_object_get_string_member_with_default (o, "dataset", ""));
  r->pin = g_strdup (json_object_get_string_member_with_default (o, "pin", NULL));
  r->sink = g_strdup (json_object_get_string_member_with_default (o, "sink", "none"));
  r->simulated = json_object_get_int_member_with_default (o, "simulated", 0) != 0;
  r->workers = (guint) json_object_get_int_member_with_default (o, "workers", 0);
  r->prefetch = (guint) MAX (1, json_object_get_int_member_with_default (o, "prefetch", 2));
  r->batch_size = (guint) MAX (1, json_object_get_int_member_with_default (o, "batch_size", 64));
  r->persistent = json_object_get_int_member_with_default (o, "persistent", 0) != 0;
  r->non_blocking = json_object_get_int_member_with_default (o, "non_blocking", 0) != 0;
  JsonNode *tn = summary ? json_object_get_member (summary, "target") : NULL;
  JsonObject *target = tn && JSON_NODE_HOLDS_OBJECT (tn) ? json_node_get_object (tn) : NULL;
  r->script = target && g_strcmp0 (json_object_get_string_member_with_default (target, "kind", ""), "pytorch") == 0;
  r->model_ms = r->script ? NAN : ls_json_number_or (o, "model_ms", NAN);
  r->cores = MAX (1.0, ls_json_number_or (o, "machine_logical_cores", NAN));
  if (isnan (r->cores))
    r->cores = 1;
  double other = ls_json_number_or (ls_json_object_or_null (summary, "machine_busy"), "other_cpu_percent", NAN);
  r->background = isnan (other) ? 0 : CLAMP (other / 100.0, 0.0, 4096.0);
  r->throughput_sps = ls_json_number_or (o, LS_KEY_THROUGHPUT, NAN);
  r->gpu_util_exact = ls_json_number_or (o, LS_KEY_GPU_UTIL_EXACT, NAN);
  r->wait_p50_ms = ls_json_number_or (o, "wait_p50_ms", NAN);
  r->wait_p95_ms = ls_json_number_or (o, "wait_p95_ms", NAN);
  r->pss_peak_bytes = ls_json_number_or (o, LS_KEY_PSS_PEAK, NAN);
  r->arena_bytes = ls_json_number_or (o, "arena_bytes", NAN);
  r->sample_bytes = ls_json_number_or (o, "sample_bytes", NAN);
  r->warmup = (guint) MAX (0.0, summary ? ls_json_number_or (summary, "warmup_batches", NAN) : 0);
  if (isnan (ls_json_number_or (summary, "warmup_batches", NAN)))
    r->warmup = MAX (1u, r->workers);
  r->batches = (guint) MAX (0, json_object_get_int_member_with_default (o, "batches_recorded", 0));

  double n = ls_json_number_or (o, "dataset_samples", NAN);
  gboolean drop_last = json_object_get_int_member_with_default (o, "drop_last", 0) != 0;
  if (!isnan (n) && n > 0)
    {
      guint64 samples = (guint64) n;
      r->batches_per_epoch = (guint) (drop_last ? samples / r->batch_size : (samples + r->batch_size - 1) / r->batch_size);
      r->last_batch_samples = drop_last || samples % r->batch_size == 0 ? r->batch_size : (guint) (samples % r->batch_size);
    }
  if (r->batches_per_epoch == 0)
    {
      r->batches_per_epoch = MAX (r->batches, 1u);
      r->last_batch_samples = r->batch_size;
    }

  /* The measured batches. */
  r->builds = g_array_new (FALSE, FALSE, sizeof (double));
  r->gaps = g_array_new (FALSE, FALSE, sizeof (double));
  {
    gint64 params[1] = { run_id };
    g_autoptr (ls_store_rows) rows = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_TIMES, params, 1, error);
    if (!rows)
      return NULL;
    double copy = 0, compute = 0, stage = 0, wait = 0, prev_ready = NAN;
    guint m = 0, stepped = 0;
    GError *step_error = NULL;
    while (ls_store_rows_next (rows, &step_error))
      {
        if (ls_store_rows_get_int (rows, 0) < r->warmup)
          {
            prev_ready = ls_store_rows_get_double (rows, 5);
            continue;
          }
        double w = ls_store_rows_get_double (rows, 1), ready = ls_store_rows_get_double (rows, 5);
        wait += w;
        copy += ls_store_rows_is_null (rows, 2) ? 0 : ls_store_rows_get_double (rows, 2);
        compute += ls_store_rows_is_null (rows, 3) ? 0 : ls_store_rows_get_double (rows, 3);
        stepped += !ls_store_rows_is_null (rows, 3);
        stage += ls_store_rows_is_null (rows, 4) ? 0 : ls_store_rows_get_double (rows, 4);
        if (r->workers == 0)
          g_array_append_val (r->builds, w);
        if (!isnan (prev_ready))
          {
            double gap = ready - prev_ready;
            g_array_append_val (r->gaps, gap);
          }
        prev_ready = ready;
        m++;
      }
    if (step_error)
      {
        g_propagate_error (error, step_error);
        return NULL;
      }
    if (m == 0)
      {
        g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID,
                     _("run %lld has no measured batches (after %u warm-up): nothing to fit"), (long long) run_id,
                     r->warmup);
        return NULL;
      }
    r->copy_ms = copy / m;
    r->compute_ms = compute / m;
    r->stage_ms = stage / m;
    r->wait_mean_ms = wait / m;
    if (r->script && !script_step (r, target, compute, stepped, error))
      return NULL;
  }

  /* The loader's stages, where it recorded them. */
  JsonObject *stages = NULL;
  if (summary && json_object_has_member (summary, "stages_ms")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (summary, "stages_ms")))
    stages = json_object_get_object_member (summary, "stages_ms");
  r->busy_ms = ls_json_number_or (stages, "busy", NAN);
  r->read_ms = ls_json_number_or (stages, "read", NAN);
  if (stages)
    load_busy (store, r);

  /* Workers' CPU and start-up. */
  r->worker_cpu_ms_per_batch = NAN;
  r->startup_ms = NAN;
  if (r->workers > 0)
    {
      g_autoptr (JsonArray) workers = ls_store_run_workers (store, run_id, NULL);
      double cpu = 0, startup = 0;
      guint n_startup = 0;
      for (guint i = 0; workers && i < json_array_get_length (workers); i++)
        {
          JsonObject *w = json_array_get_object_element (workers, i);
          double c = ls_json_number_or (w, "cpu_ns", NAN), s = ls_json_number_or (w, "startup_ms", NAN);
          double idx = ls_json_number_or (w, "idx", NAN);
          if (!isnan (c))
            cpu += c / 1e6;
          if (!isnan (s) && !isnan (idx))
            {
              startup += s / (idx + 1);
              n_startup++;
            }
        }
      if (cpu > 0 && r->batches > 0)
        r->worker_cpu_ms_per_batch = cpu / r->batches;
      if (n_startup)
        r->startup_ms = startup / n_startup;
    }
  return g_steal_pointer (&r);
}

/* ------------------------------------------------------------ fitting */

static double
median_of (GArray *a)
{
  return ls_median ((double *) (void *) a->data, a->len);
}

void
ls_whatif_change_init (ls_whatif_change *change)
{
  *change = (ls_whatif_change){ .workers = -1, .prefetch = -1, .persistent = -1, .model_ms = -1,
                                .gpu_speed = -1, .cores = -1, .storage_speed = -1, .background = -1 };
}

/* A run's parameters as measured, with the basis's fitted loader. */
static void
run_params (const ls_whatif_basis *b, const ls_whatif_run *r, ls_whatif_params *p)
{
  ls_whatif_params_init (p);
  p->workers = r->workers;
  p->prefetch = r->prefetch;
  p->persistent = r->persistent;
  p->t_build_ms = b->t_build_ms;
  p->read_fraction = b->read_fraction;
  p->cores = r->cores;
  p->background = r->background;
  p->startup_ms = b->startup_ms;
  if (b->multipliers->len)
    {
      p->multipliers = (const double *) b->multipliers->data;
      p->n_multipliers = b->multipliers->len;
    }
  p->stage_ms = r->stage_ms;
  p->copy_ms = r->copy_ms;
  p->compute_ms = r->compute_ms;
  p->host_ms = b->host_ms;
  p->non_blocking = r->non_blocking;
  p->batch_size = r->batch_size;
  p->batches_per_epoch = r->batches_per_epoch;
  p->last_batch_samples = r->last_batch_samples;
  p->batches = r->batches;
  p->warmup = r->warmup;
  p->seed = 1;
}

/* The build time for which the simulation of run r gives its measured
 * throughput (bisection on a log scale); NAN when r is not loader-bound. */
static double
calibrate_build (ls_whatif_basis *b, const ls_whatif_run *r)
{
  ls_whatif_params p;
  ls_whatif_prediction pred;
  double period = r->copy_ms + MAX (r->stage_ms, r->compute_ms);
  if (r->workers == 0 || isnan (r->throughput_sps) || r->throughput_sps <= 0)
    return NAN;
  /* Consumer-bound runs say nothing about the build time. */
  double measured_period = r->batch_size / r->throughput_sps * 1000.0;
  if (measured_period < period * 1.08 && r->wait_p50_ms < 0.1 * period + 0.2)
    return NAN;
  double saved = b->t_build_ms;
  double lo = 0.01, hi = measured_period * MAX (r->workers, 1u) * 4;
  for (int i = 0; i < 30; i++)
    {
      double mid = sqrt (lo * hi);
      b->t_build_ms = mid;
      run_params (b, r, &p);
      ls_whatif_simulate (&p, 2, &pred);
      if (pred.throughput_sps > r->throughput_sps)
        lo = mid;
      else
        hi = mid;
    }
  b->t_build_ms = saved;
  return sqrt (lo * hi);
}

ls_whatif_basis *
ls_whatif_basis_new (GPtrArray *runs, GError **error)
{
  if (!runs || runs->len == 0)
    {
      g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_INVALID, _("no finished run to fit the model to"));
      if (runs)
        g_ptr_array_unref (runs);
      return NULL;
    }
  ls_whatif_basis *b = g_new0 (ls_whatif_basis, 1);
  b->runs = runs;
  b->multipliers = g_array_new (FALSE, FALSE, sizeof (double));
  const ls_whatif_run *target = g_ptr_array_index (runs, 0);

  /* Start-up, the consumer's own time, the read share. */
  g_autoptr (GArray) startups = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) hosts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) reads = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (runs, i);
      if (!isnan (r->startup_ms))
        g_array_append_val (startups, r->startup_ms);
      if (!isnan (r->read_ms) && r->busy_ms > 0)
        {
          double f = r->read_ms / r->busy_ms;
          g_array_append_val (reads, f);
        }
      /* Runs that hardly waited: what the consumer spends beyond stage,
       * copy and step (a busy machine wakes it late from its sleeps). */
      if (r->workers > 0 && !r->non_blocking && r->throughput_sps > 0 && r->wait_mean_ms < 0.05 * r->compute_ms + 0.2)
        {
          double h = r->batch_size / r->throughput_sps * 1000.0 - r->wait_mean_ms - r->copy_ms
                     - MAX (r->stage_ms, r->compute_ms);
          h = CLAMP (h, 0.0, 50.0);
          g_array_append_val (hosts, h);
        }
    }
  g_autoptr (GArray) loads = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < runs->len; i++)
    g_array_append_val (loads, ((const ls_whatif_run *) g_ptr_array_index (runs, i))->background);
  b->background = median_of (loads);
  b->startup_ms = startups->len ? median_of (startups) : 5.0;
  b->host_ms = hosts->len ? median_of (hosts) : 0.05;
  b->read_fraction = reads->len ? median_of (reads) : 0;

  /* Per-batch variation: from directly measured builds, else the
   * deliveries of the run with the fewest workers that was loader-bound. */
  const ls_whatif_run *var = NULL;
  for (guint i = 0; i < runs->len && !var; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (runs, i);
      if (r->builds->len >= 4)
        var = r;
    }
  GArray *from = var ? var->builds : NULL;
  if (!from)
    for (guint i = 0; i < runs->len; i++)
      {
        const ls_whatif_run *r = g_ptr_array_index (runs, i);
        if (r->workers == 1 && r->gaps->len >= 4 && r->wait_p50_ms > 0.2 * (r->copy_ms + r->compute_ms))
          from = r->gaps;
      }
  double mean = array_mean (from);
  if (from && mean > 0)
    for (guint i = 0; i < from->len; i++)
      {
        double m = g_array_index (from, double, i) / mean;
        g_array_append_val (b->multipliers, m);
      }

  /* The build time. */
  g_autoptr (GArray) direct = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) fitted = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (runs, i);
      double t = NAN;
      /* Wall time on a shared core, made uncontended: x the share of a core
       * each busy thread had (workers and the other processes' load). */
      double share = MIN (1.0, r->cores / (MAX (r->workers, 1u) + r->background));
      if (!isnan (r->busy_ms) && r->busy_ms > 0)
        t = r->busy_ms * share;
      else if (r->workers == 0 && r->wait_mean_ms > 0)
        t = r->wait_mean_ms * share;
      if (!isnan (t))
        g_array_append_val (direct, t);
    }
  if (direct->len)
    {
      b->t_build_ms = median_of (direct);
      b->source = g_strdup_printf (ngettext ("the measured build time of %u run", "the measured build time of %u runs",
                                             direct->len),
                                   direct->len);
    }
  for (guint i = 0; i < runs->len; i++)
    {
      double t = calibrate_build (b, g_ptr_array_index (runs, i));
      if (!isnan (t))
        g_array_append_val (fitted, t);
    }
  if (fitted->len)
    {
      /* Where both exist, the fitted value carries what the direct one
       * misses (the pool's own overheads): both count. */
      g_array_append_vals (fitted, direct->data, direct->len);
      g_free (b->source);
      guint n = fitted->len - direct->len;
      b->source = g_strdup_printf (direct->len ? ngettext ("fitted to the throughput of %u loader-bound run and the "
                                                           "measured build times",
                                                           "fitted to the throughput of %u loader-bound runs and the "
                                                           "measured build times",
                                                           n)
                                               : ngettext ("fitted to the throughput of %u loader-bound run",
                                                           "fitted to the throughput of %u loader-bound runs", n),
                                   n);
      b->t_build_ms = median_of (fitted);
    }
  if (!b->source)
    {
      g_autoptr (GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
      for (guint i = 0; i < runs->len; i++)
        {
          const ls_whatif_run *r = g_ptr_array_index (runs, i);
          if (!isnan (r->worker_cpu_ms_per_batch))
            g_array_append_val (cpu, r->worker_cpu_ms_per_batch);
        }
      b->t_build_ms = cpu->len ? median_of (cpu) : 0;
      b->source = g_strdup (cpu->len ? _("the workers' CPU per batch (every run was GPU-bound: a lower bound)")
                                     : _("nothing (every run was GPU-bound and no worker CPU was recorded)"));
    }

  /* Memory: PSS minus the arena, a line over the worker count. */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  guint nm = 0;
  for (guint i = 0; i < runs->len; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (runs, i);
      if (isnan (r->pss_peak_bytes) || isnan (r->arena_bytes))
        continue;
      double slots = r->workers ? r->workers * r->prefetch + 2.0 : 2.0;
      double slot = (r->arena_bytes - 4096) / slots;
      b->slot_bytes = MAX (b->slot_bytes, slot);
      double x = r->workers, y = r->pss_peak_bytes - r->arena_bytes;
      sx += x, sy += y, sxx += x * x, sxy += x * y;
      nm++;
    }
  if (nm)
    {
      double den = nm * sxx - sx * sx;
      b->pss_per_worker = den > 0 ? MAX (0.0, (nm * sxy - sx * sy) / den) : 0;
      b->pss_base = (sy - b->pss_per_worker * sx) / nm;
      b->memory_known = TRUE;
    }
  (void) target;
  return b;
}

void
ls_whatif_basis_free (ls_whatif_basis *basis)
{
  if (!basis)
    return;
  g_ptr_array_unref (basis->runs);
  g_array_unref (basis->multipliers);
  g_free (basis->source);
  g_free (basis);
}

ls_whatif_basis *
ls_whatif_basis_load (ls_store *store, gint64 run_id, gboolean siblings, GError **error)
{
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_whatif_run_free);
  ls_whatif_run *target = ls_whatif_run_load (store, run_id, error);
  if (!target)
    return NULL;
  g_ptr_array_add (runs, target);
  if (siblings && target->sweep_id > 0)
    {
      gint64 params[1] = { target->sweep_id };
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
          ls_whatif_run *r = ls_whatif_run_load (store, g_array_index (ids, gint64, i), NULL);
          if (r && strcmp (r->dataset, target->dataset) == 0 && r->batch_size == target->batch_size
              && g_strcmp0 (r->sink, target->sink) == 0)
            g_ptr_array_add (runs, r);
          else
            ls_whatif_run_free (r);
        }
    }
  return ls_whatif_basis_new (g_steal_pointer (&runs), error);
}
