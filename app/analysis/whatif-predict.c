/* Predictions from a fitted basis (whatif-basis.h): the changed run's
 * parameters, the prediction, its JSON and its words. */
#include <math.h>
#include <string.h>

#include "app/core/summary-keys.h"

#include "app/analysis/whatif-basis.h"
#include "app/core/i18n.h"
#include "app/core/json-util.h"

#define REPLICATIONS 4
#define STAGING_BYTES_PER_MS 5e6 /* a host memcpy, when no staging run says better */
#define PINNED_SPEEDUP 4.0       /* pinned / pageable copy bandwidth (the sim sink's 24 / 6 GB/s) */

static gboolean
pinned (const char *pin)
{
  return pin && strcmp (pin, "off") != 0;
}

/* Copy and staging per batch for `pin`: measured on a run of the basis
 * with that pin, else scaled from the target's. */
static void
pin_costs (const ls_whatif_basis *b, const char *pin, double *copy, double *stage)
{
  const ls_whatif_run *t = g_ptr_array_index (b->runs, 0);
  double c = 0, s = 0;
  guint n = 0;

  for (guint i = 0; i < b->runs->len; i++)
    {
      const ls_whatif_run *r = g_ptr_array_index (b->runs, i);
      if (g_strcmp0 (r->pin, pin) == 0)
        c += r->copy_ms, s += r->stage_ms, n++;
    }
  if (n)
    {
      *copy = c / n;
      *stage = s / n;
      return;
    }
  *copy = t->copy_ms;
  if (pinned (pin) && !pinned (t->pin))
    *copy /= PINNED_SPEEDUP;
  else if (!pinned (pin) && pinned (t->pin))
    *copy *= PINNED_SPEEDUP;
  if (g_strcmp0 (pin, "staging") == 0)
    *stage = t->sample_bytes > 0 ? t->sample_bytes * t->batch_size / STAGING_BYTES_PER_MS : t->stage_ms;
  else
    *stage = 0;
}

static double
basis_background (const ls_whatif_basis *b)
{
  return b->background;
}

void
ls_whatif_basis_params (const ls_whatif_basis *b, const ls_whatif_change *c, ls_whatif_params *p)
{
  const ls_whatif_run *t = g_ptr_array_index (b->runs, 0);

  ls_whatif_params_init (p);
  p->workers = c->workers >= 0 ? (guint) c->workers : t->workers;
  p->prefetch = c->prefetch >= 1 ? (guint) c->prefetch : t->prefetch;
  p->persistent = c->persistent >= 0 ? c->persistent != 0 : t->persistent;
  p->t_build_ms = b->t_build_ms;
  p->read_fraction = b->read_fraction;
  p->storage_speed = c->storage_speed > 0 ? c->storage_speed : 1;
  p->cores = c->cores > 0 ? c->cores : t->cores;
  p->background = c->background >= 0 ? c->background : basis_background (b);
  p->startup_ms = b->startup_ms;
  if (b->multipliers->len)
    {
      p->multipliers = (const double *) b->multipliers->data;
      p->n_multipliers = b->multipliers->len;
    }
  p->copy_ms = t->copy_ms;
  p->stage_ms = t->stage_ms;
  if (c->pin && g_strcmp0 (c->pin, t->pin) != 0)
    pin_costs (b, c->pin, &p->copy_ms, &p->stage_ms);
  p->compute_ms = t->compute_ms;
  if (c->model_ms >= 0)
    p->compute_ms = t->simulated || isnan (t->model_ms) || t->model_ms <= 0 ? c->model_ms
                                                                           : t->compute_ms * c->model_ms / t->model_ms;
  if (c->gpu_speed > 0)
    p->compute_ms /= c->gpu_speed;
  p->host_ms = b->host_ms;
  p->non_blocking = t->non_blocking;
  p->batch_size = t->batch_size;
  p->batches_per_epoch = t->batches_per_epoch;
  p->last_batch_samples = t->last_batch_samples;
  p->batches = t->batches;
  p->warmup = p->workers > 0 ? p->workers : 1; /* the runs' default: workers, at least 1 */
  if (p->warmup >= p->batches)
    p->warmup = 0;
  p->seed = 1;
}

void
ls_whatif_predict (const ls_whatif_basis *basis, const ls_whatif_change *change, ls_whatif_prediction *out)
{
  ls_whatif_params p;
  ls_whatif_basis_params (basis, change, &p);
  ls_whatif_simulate (&p, REPLICATIONS, out);
}

double
ls_whatif_predict_pss (const ls_whatif_basis *b, guint workers, guint prefetch)
{
  if (!b->memory_known)
    return NAN;
  double slots = workers ? workers * (double) prefetch + 2.0 : 2.0;
  return b->pss_base + b->pss_per_worker * workers + 4096 + slots * b->slot_bytes;
}

JsonNode *
ls_whatif_to_json (const ls_whatif_basis *b, const ls_whatif_change *c, const ls_whatif_prediction *pr)
{
  g_autoptr (JsonBuilder) j = json_builder_new ();
  const ls_whatif_run *t = g_ptr_array_index (b->runs, 0);
  ls_whatif_params p;

  ls_whatif_basis_params (b, c, &p);
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "predicted");
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, pr->throughput_sps);
  ls_json_builder_add_number (j, LS_KEY_GPU_UTIL_EXACT, pr->gpu_util_exact);
  json_builder_set_member_name (j, LS_KEY_BATCH_WAIT_MS);
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, "p50", pr->wait_p50_ms);
  ls_json_builder_add_number (j, "p95", pr->wait_p95_ms);
  ls_json_builder_add_number (j, "mean", pr->wait_mean_ms);
  json_builder_end_object (j);
  ls_json_builder_add_number (j, LS_KEY_PSS_PEAK, ls_whatif_predict_pss (b, p.workers, p.prefetch));
  json_builder_set_member_name (j, "bound");
  json_builder_add_string_value (j, pr->loader_bound ? "loader" : "consumer");
  json_builder_end_object (j);

  json_builder_set_member_name (j, "configuration");
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "workers");
  json_builder_add_int_value (j, p.workers);
  json_builder_set_member_name (j, "prefetch");
  json_builder_add_int_value (j, p.prefetch);
  json_builder_set_member_name (j, "persistent");
  json_builder_add_boolean_value (j, p.persistent);
  json_builder_set_member_name (j, "pin");
  if (c->pin || t->pin)
    json_builder_add_string_value (j, c->pin ? c->pin : t->pin);
  else
    json_builder_add_null_value (j);
  ls_json_builder_add_number (j, "cores", p.cores);
  ls_json_builder_add_number (j, LS_KEY_COMPUTE_MS, p.compute_ms);
  ls_json_builder_add_number (j, "storage_speed", p.storage_speed);
  json_builder_end_object (j);

  json_builder_set_member_name (j, "basis");
  json_builder_begin_array (j);
  for (guint i = 0; i < b->runs->len; i++)
    json_builder_add_int_value (j, ((const ls_whatif_run *) g_ptr_array_index (b->runs, i))->id);
  json_builder_end_array (j);

  json_builder_set_member_name (j, "model");
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, "t_build_ms", b->t_build_ms);
  json_builder_set_member_name (j, "t_build_source");
  json_builder_add_string_value (j, b->source);
  ls_json_builder_add_number (j, LS_KEY_COPY_MS, p.copy_ms);
  ls_json_builder_add_number (j, "stage_ms", p.stage_ms);
  ls_json_builder_add_number (j, "host_ms", p.host_ms);
  ls_json_builder_add_number (j, "read_fraction", p.read_fraction);
  ls_json_builder_add_number (j, "background_cores", p.background);
  ls_json_builder_add_number (j, "loader_rate_sps", pr->loader_rate_bps * p.batch_size);
  ls_json_builder_add_number (j, "consumer_rate_sps", pr->consumer_rate_bps * p.batch_size);
  json_builder_end_object (j);

  json_builder_set_member_name (j, "measured");
  json_builder_begin_object (j);
  json_builder_set_member_name (j, "run");
  json_builder_add_int_value (j, t->id);
  ls_json_builder_add_number (j, LS_KEY_THROUGHPUT, t->throughput_sps);
  ls_json_builder_add_number (j, LS_KEY_GPU_UTIL_EXACT, t->gpu_util_exact);
  json_builder_set_member_name (j, LS_KEY_BATCH_WAIT_MS);
  json_builder_begin_object (j);
  ls_json_builder_add_number (j, "p50", t->wait_p50_ms);
  ls_json_builder_add_number (j, "p95", t->wait_p95_ms);
  json_builder_end_object (j);
  json_builder_end_object (j);
  json_builder_end_object (j);
  return json_builder_get_root (j);
}

char *
ls_whatif_explain (const ls_whatif_basis *b, const ls_whatif_change *c, const ls_whatif_prediction *pr)
{
  const ls_whatif_run *t = g_ptr_array_index (b->runs, 0);
  ls_whatif_params p;
  GString *s = g_string_new (NULL);

  ls_whatif_basis_params (b, c, &p);
  /* A script's step runs wherever the script puts it: its busy share is
   * "in its step", not the GPU's. */
  const char *busy = t->script ? _("in the script's step") : _("GPU busy");
  g_autofree char *measured_busy = isfinite (t->gpu_util_exact) ? g_strdup_printf ("%.0f %%", t->gpu_util_exact * 100)
                                                                : g_strdup (_("not measured"));
  g_autofree char *workers = g_strdup_printf (ngettext ("%u worker", "%u workers", p.workers), p.workers);
  g_autofree char *cores
      = g_strdup_printf (ngettext ("%.0f core", "%.0f cores", (gulong) MAX (0, round (p.cores))), p.cores);
  g_string_append_printf (s,
                          _("With %s, prefetch %u, on %s and a %.1f ms %s: "
                            "about %.0f samples/s, %s %.0f %%, batch wait p50 %.1f ms, p95 %.1f ms "
                            "(measured on run %lld: %.0f samples/s, %s %s).\n"),
                          workers, p.prefetch, cores, p.compute_ms,
                          t->script ? _("step (the script's, as measured)") : _("model step"), pr->throughput_sps,
                          busy, pr->gpu_util_exact * 100, pr->wait_p50_ms, pr->wait_p95_ms, (long long) t->id,
                          t->throughput_sps, busy, measured_busy);
  double per_core = b->t_build_ms > 0 ? p.batch_size / ls_whatif_build_ms (&p) * 1000.0 : INFINITY;
  const char *consumer = t->script ? _("the script's step") : _("the GPU");
  if (p.workers == 0)
    g_string_append_printf (s, _("%s builds each batch itself (%.1f ms) while %s waits, so the two add up."),
                            t->script ? _("The script's training process") : _("The runner"), ls_whatif_build_ms (&p),
                            consumer);
  else if (pr->loader_bound)
    g_string_append_printf (
        s, _("Loading-bound: a worker builds a batch in %.1f ms (%.0f samples/s each), %s; %s could take %.0f samples/s."),
        ls_whatif_build_ms (&p), per_core,
        p.workers > p.cores ? _("and the workers share the cores, so more workers will not help")
                            : _("so more workers (up to the cores) would help"),
        consumer, pr->consumer_rate_bps * p.batch_size);
  else
    g_string_append_printf (s,
                            _("%s: the workers could build %.0f samples/s, more than the consumer takes "
                              "(copy %.2f ms + step %.2f ms per batch); more workers will not help."),
                            t->script ? _("Step-bound") : _("GPU-bound"), pr->loader_rate_bps * p.batch_size, p.copy_ms,
                            p.compute_ms);
  g_string_append_printf (s, _(" (Build time: %s, %.1f ms per batch.)"), b->source, b->t_build_ms);
  return g_string_free (s, FALSE);
}
