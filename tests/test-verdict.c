/* The verdict (app/core/verdict*.c) for constructed summaries, table-driven;
 * the recommendation with repeats (app/core/recommend.c); the machine's
 * other CPU (app/core/machine-busy.c); and end-to-end runs on the
 * simulated GPU that assert the limiting stage only, chosen so that the
 * stage is clear by a wide margin whatever the machine's load. */
#include <stdarg.h>
#include <string.h>

#include <gio/gio.h>

#include "app/core/machine-busy.h"
#include "app/core/recommend.h"
#include "app/core/verdict.h"
#include "app/sweep/sweep-text.h"
#include "test-cli-util.h"
#include "test-util.h"

/* ---- constructed summaries -------------------------------------------- */

typedef struct {
  gint64 workers;
  const char *pin;      /* NULL: "off" */
  gboolean non_blocking, persistent;
  double throughput, wait_p50, wait_p95, copy, step, util;
  double cpu_percent, cpu_ms_per_sample;
  double epoch_boundary_ms; /* 0: none (null) */
  double wall_s;
  gint64 batches, warmup, dataset_samples;
  double pss, ram;          /* bytes; ram 0: not recorded */
  int cores;
  double other_cpu;         /* % of one core; < 0: not recorded */
  gboolean sink_none;
} fig;

static JsonObject *
dist (double p50, double p95)
{
  JsonObject *d = json_object_new ();
  json_object_set_double_member (d, "p50", p50);
  json_object_set_double_member (d, "p95", p95 > 0 ? p95 : p50);
  json_object_set_double_member (d, "mean", p95 > 0 ? (p50 + p95) / 2 : p50);
  return d;
}

static JsonObject *
summary_of (const fig *f)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "status", "done");
  json_object_set_string_member (o, "sink", f->sink_none ? "none" : "sim");
  json_object_set_boolean_member (o, "simulated", FALSE);
  json_object_set_string_member (o, "dataset", "/data/imgs");
  json_object_set_int_member (o, "dataset_samples", f->dataset_samples ? f->dataset_samples : 6400);
  json_object_set_int_member (o, "sample_bytes", 602112);
  json_object_set_int_member (o, "workers", f->workers);
  json_object_set_string_member (o, "start", "fork");
  if (f->sink_none)
    {
      json_object_set_null_member (o, "pin");
      json_object_set_null_member (o, "non_blocking");
      json_object_set_null_member (o, "model_ms");
    }
  else
    {
      json_object_set_string_member (o, "pin", f->pin ? f->pin : "off");
      json_object_set_boolean_member (o, "non_blocking", f->non_blocking);
      json_object_set_double_member (o, "model_ms", f->step);
    }
  json_object_set_int_member (o, "prefetch", 2);
  json_object_set_boolean_member (o, "persistent", f->persistent);
  json_object_set_int_member (o, "batch_size", 64);
  json_object_set_int_member (o, "batches", f->batches ? f->batches : 100);
  json_object_set_int_member (o, "warmup_batches", f->batches ? f->warmup : 2);
  json_object_set_double_member (o, "throughput_sps", f->throughput);
  json_object_set_object_member (o, "batch_wait_ms", dist (f->wait_p50, f->wait_p95));
  if (f->sink_none)
    {
      json_object_set_null_member (o, "copy_ms");
      json_object_set_null_member (o, "compute_ms");
      json_object_set_null_member (o, "gpu_util_exact");
    }
  else
    {
      json_object_set_object_member (o, "copy_ms", dist (f->copy, 0));
      json_object_set_object_member (o, "compute_ms", dist (f->step, 0));
      json_object_set_double_member (o, "gpu_util_exact", f->util);
    }
  json_object_set_int_member (o, "batch_bytes", 64 * 602112);
  JsonObject *mem = json_object_new ();
  json_object_set_double_member (mem, "pss_peak_bytes", f->pss > 0 ? f->pss : 3e8);
  json_object_set_object_member (o, "memory", mem);
  if (f->epoch_boundary_ms > 0)
    json_object_set_double_member (o, "epoch_boundary_ms", f->epoch_boundary_ms);
  else
    json_object_set_null_member (o, "epoch_boundary_ms");
  json_object_set_double_member (o, "cpu_percent", f->cpu_percent);
  json_object_set_double_member (o, "cpu_ms_per_sample", f->cpu_ms_per_sample);
  json_object_set_int_member (o, "skipped_samples", 0);
  json_object_set_double_member (o, "wall_s", f->wall_s > 0 ? f->wall_s : 10);
  JsonObject *busy = json_object_new ();
  json_object_set_int_member (busy, "cores", f->cores ? f->cores : 2);
  if (f->ram > 0)
    json_object_set_double_member (busy, "ram_bytes", f->ram);
  else
    json_object_set_null_member (busy, "ram_bytes");
  if (f->other_cpu >= 0)
    json_object_set_double_member (busy, "other_cpu_percent", f->other_cpu);
  else
    json_object_set_null_member (busy, "other_cpu_percent");
  json_object_set_object_member (o, "machine_busy", busy);
  return o;
}

static gboolean
any_contains (GPtrArray *list, const char *what)
{
  for (guint i = 0; list && i < list->len; i++)
    if (strstr (list->pdata[i], what))
      return TRUE;
  return FALSE;
}

/* The words a case must show: in the headline, a finding, a warning, or
 * the suggested DataLoader line; and those it must not. */
typedef struct {
  const char *name;
  fig f;
  ls_limit limit;
  const char *headline, *finding, *warning, *suggested, *no_warning;
} run_case;

static const run_case run_cases[] = {
  { "starved GPU, both cores busy",
    { .workers = 2, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17, .cpu_percent = 190,
      .cpu_ms_per_sample = 3, .other_cpu = 5 },
    LS_LIMIT_LOADING, "GPU idle 83 %: loading-bound (wait 84 ms \u226b copy 1.6 ms)",
    "both cores busy (CPU 190 % of 200 %): more workers will not help on this machine", NULL, NULL, "busy" },
  { "starved GPU, idle cores",
    { .workers = 1, .throughput = 700, .wait_p50 = 70, .copy = 1.6, .step = 20, .util = 0.2, .cpu_percent = 100,
      .cpu_ms_per_sample = 1, .cores = 8, .other_cpu = 0 },
    LS_LIMIT_LOADING, "loading-bound", "cores are idle (CPU 100 % of 800 %): num_workers=4", NULL, "num_workers=4",
    NULL },
  { "starved GPU, no workers",
    { .workers = 0, .throughput = 700, .wait_p50 = 70, .copy = 1.6, .step = 20, .util = 0.2, .cpu_percent = 99,
      .cpu_ms_per_sample = 0.5, .cores = 4, .other_cpu = 0 },
    LS_LIMIT_LOADING, "loading-bound", "built in the training process", NULL, "num_workers=2", NULL },
  { "copy-bound, pageable and blocking",
    { .workers = 2, .throughput = 1400, .wait_p50 = 0.1, .copy = 30, .step = 10, .util = 0.25, .cpu_percent = 60,
      .cpu_ms_per_sample = 0.2, .other_cpu = 0 },
    LS_LIMIT_COPY, "copy-bound (copy 30 ms \u226b wait 0.10 ms)", "pin_memory=True", NULL,
    "pin_memory=True, persistent_workers=False, prefetch_factor=2); batch.to(device, non_blocking=True)", NULL },
  { "copy-bound, already pinned and non-blocking",
    { .workers = 2, .pin = "staging", .non_blocking = TRUE, .throughput = 2000, .wait_p50 = 0.1, .copy = 30,
      .step = 10, .util = 0.33, .cpu_percent = 60, .cpu_ms_per_sample = 0.2, .other_cpu = 0 },
    LS_LIMIT_COPY, "copy-bound", "the link itself is the limit", NULL, NULL, NULL },
  { "GPU-bound",
    { .workers = 2, .throughput = 1270, .wait_p50 = 0.05, .copy = 1.6, .step = 50, .util = 0.96, .cpu_percent = 50,
      .cpu_ms_per_sample = 0.3, .other_cpu = 0 },
    LS_LIMIT_GPU, "GPU busy 96 %: GPU-bound (model step 50 ms \u226b wait 0.05 ms, copy 1.6 ms)", NULL, NULL, NULL,
    NULL },
  { "GPU-bound with workers to spare",
    { .workers = 8, .throughput = 1270, .wait_p50 = 0.05, .copy = 1.6, .step = 50, .util = 0.96, .cpu_percent = 50,
      .cpu_ms_per_sample = 0.3, .cores = 16, .other_cpu = 0 },
    LS_LIMIT_GPU, "GPU-bound", "fewer workers would likely keep up too", NULL, NULL, NULL },
  { "memory-bound",
    { .workers = 4, .throughput = 700, .wait_p50 = 70, .copy = 1.6, .step = 20, .util = 0.2, .cpu_percent = 300,
      .cpu_ms_per_sample = 1, .cores = 8, .pss = 7e9, .ram = 8e9, .other_cpu = 0 },
    LS_LIMIT_MEMORY, "memory-bound: the loader's peak memory is 7.0 GB of 8.0 GB RAM (88 %)", "more workers would swap",
    NULL, NULL, NULL },
  { "epoch-boundary cost",
    { .workers = 2, .throughput = 640, .wait_p50 = 2, .copy = 1.6, .step = 20, .util = 0.4, .cpu_percent = 120,
      .cpu_ms_per_sample = 0.5, .epoch_boundary_ms = 802, .wall_s = 3, .batches = 30, .warmup = 2,
      .dataset_samples = 640, .other_cpu = 0 },
    LS_LIMIT_EPOCH_BOUNDARY, "epoch-boundary-bound", "epoch boundaries cost 800 ms each, 53 % of the run",
    NULL, "persistent_workers=True", NULL },
  { "epoch boundary, persistent already",
    { .workers = 2, .persistent = TRUE, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17,
      .cpu_percent = 190, .cpu_ms_per_sample = 3, .epoch_boundary_ms = 802, .wall_s = 3, .batches = 30,
      .dataset_samples = 640, .other_cpu = 0 },
    LS_LIMIT_LOADING, "loading-bound", NULL, NULL, NULL, NULL },
  { "workers > cores",
    { .workers = 8, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17, .cpu_percent = 196,
      .cpu_ms_per_sample = 3, .other_cpu = 0 },
    LS_LIMIT_LOADING, "loading-bound", "more workers will not help", "8 workers on 2 cores", NULL, NULL },
  { "too few batches",
    { .workers = 2, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17, .cpu_percent = 190,
      .cpu_ms_per_sample = 3, .batches = 6, .warmup = 2, .other_cpu = 0 },
    LS_LIMIT_UNKNOWN, "too few batches to tell: 4 measured", NULL, "only 4 batches after the warm-up", NULL, NULL },
  { "busy machine",
    { .workers = 2, .throughput = 1270, .wait_p50 = 0.05, .copy = 1.6, .step = 50, .util = 0.96, .cpu_percent = 50,
      .cpu_ms_per_sample = 0.3, .other_cpu = 80 },
    LS_LIMIT_GPU, "GPU-bound", NULL, "the machine was busy: other processes used 80 % of a core", NULL, NULL },
  { "other CPU not recorded",
    { .workers = 2, .throughput = 1270, .wait_p50 = 0.05, .copy = 1.6, .step = 50, .util = 0.96, .cpu_percent = 50,
      .cpu_ms_per_sample = 0.3, .other_cpu = -1 },
    LS_LIMIT_GPU, "GPU-bound", NULL, NULL, NULL, "busy" },
  { "no device (sink none)",
    { .workers = 2, .throughput = 5000, .wait_p50 = 12, .cpu_percent = 195, .cpu_ms_per_sample = 0.4,
      .sink_none = TRUE, .other_cpu = 0 },
    LS_LIMIT_LOADING, "no GPU consumer (sink none)", "both cores busy", NULL, NULL, NULL },
  { "pin arena has no PyTorch equivalent",
    { .workers = 2, .pin = "arena", .throughput = 1270, .wait_p50 = 0.05, .copy = 1.6, .step = 50, .util = 0.96,
      .cpu_percent = 50, .cpu_ms_per_sample = 0.3, .other_cpu = 0 },
    LS_LIMIT_GPU, "GPU-bound", NULL, NULL, NULL, NULL },
};

static void
test_run_verdicts (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (run_cases); i++)
    {
      const run_case *c = &run_cases[i];
      g_autoptr (JsonObject) o = summary_of (&c->f);
      ls_verdict v;
      ls_verdict_for_run (o, 0, &v);
      g_autofree char *text = ls_verdict_text (&v);
      g_test_message ("%s:\n%s", c->name, text);
      g_assert_cmpstr (ls_limit_name (v.limit), ==, ls_limit_name (c->limit));
      g_assert_nonnull (strstr (v.headline, c->headline));
      if (c->finding)
        g_assert_true (any_contains (v.findings, c->finding));
      if (c->warning)
        g_assert_true (any_contains (v.warnings, c->warning));
      if (c->no_warning)
        g_assert_false (any_contains (v.warnings, c->no_warning));
      if (c->suggested)
        g_assert_nonnull (v.suggested && strstr (v.suggested, c->suggested) ? v.suggested : NULL);
      g_assert_nonnull (v.dataloader);
      g_assert_true (g_str_has_prefix (v.dataloader, "DataLoader(dataset, batch_size=64"));
      if (c->f.pin && strcmp (c->f.pin, "arena") == 0)
        g_assert_nonnull (strstr (v.dataloader, "no DataLoader equivalent"));
      /* The JSON says the same. */
      g_autoptr (JsonNode) node = ls_verdict_to_json (&v);
      JsonObject *j = json_node_get_object (node);
      g_assert_cmpstr (json_object_get_string_member (j, "limit"), ==, ls_limit_name (c->limit));
      g_assert_cmpstr (json_object_get_string_member (j, "headline"), ==, v.headline);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (j, "findings")), ==, v.findings->len);
      ls_verdict_clear (&v);
    }
}

/* ---- a PyTorch script's runs (--target pytorch) ------------------------ */

/* A script run as the runner records it: no device copy (sink none on the
 * CPU), the step between batches measured as compute_ms, the target. */
static JsonObject *
script_summary (gint64 workers, double wait, double step, double cpu_percent, double getitem_ms)
{
  fig f = { .workers = workers, .throughput = 64 * 1000 / (wait + step), .wait_p50 = wait, .cpu_percent = cpu_percent,
            .cpu_ms_per_sample = 1, .sink_none = TRUE, .other_cpu = 0 };
  JsonObject *o = summary_of (&f);
  json_object_set_object_member (o, "compute_ms", dist (step, 0));
  JsonObject *t = json_object_new ();
  json_object_set_string_member (t, "kind", "pytorch");
  json_object_set_string_member (t, "script", "train.py");
  json_object_set_object_member (o, "target", t);
  if (getitem_ms > 0)
    {
      JsonObject *st = json_object_new ();
      json_object_set_double_member (st, "getitem", getitem_ms);
      json_object_set_double_member (st, "collate", getitem_ms / 50);
      json_object_set_object_member (o, "stages_ms", st);
    }
  return o;
}

static void
test_script_verdicts (void)
{
  ls_verdict v;

  /* The ImageFolder + ResNet-18 example on the CPU: a 1,100 ms step, a
   * 31 ms wait at 0 workers. The loader is not what limits it. */
  {
    g_autoptr (JsonObject) o = script_summary (0, 31, 1100, 100, 0);
    ls_verdict_for_run (o, 2, &v);
    g_autofree char *text = ls_verdict_text (&v);
    g_test_message ("step-bound script:\n%s", text);
    g_assert_cmpstr (ls_limit_name (v.limit), ==, "step");
    g_assert_nonnull (strstr (v.headline, "step-bound: the training step on the CPU takes 1100 ms per batch"));
    g_assert_true (any_contains (v.findings, "more than 3 % faster"));
    g_assert_cmpstr (v.gain, ==, "at most 3 % faster: the step takes 1100 ms, the wait 31 ms");
    g_assert_nonnull (strstr (text, "  Expected:   at most 3 % faster"));
    g_assert_null (v.suggested); /* no knob to turn: not num_workers */
    g_autoptr (JsonNode) node = ls_verdict_to_json (&v);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "expected_gain"), ==, v.gain);
    ls_verdict_clear (&v);
  }
  /* The same at 2 workers: still the step, never "use more cores". */
  {
    g_autoptr (JsonObject) o = script_summary (2, 1.7, 1100, 195, 0);
    ls_verdict_for_run (o, 2, &v);
    g_assert_cmpint (v.limit, ==, LS_LIMIT_STEP);
    g_assert_false (any_contains (v.findings, "more cores"));
    ls_verdict_clear (&v);
  }
  /* A slow __getitem__ with idle cores: loading-bound, the stage named,
   * more workers suggested, the gain said. */
  {
    g_autoptr (JsonObject) o = script_summary (1, 200, 20, 60, 380);
    ls_verdict_for_run (o, 4, &v);
    g_autofree char *text = ls_verdict_text (&v);
    g_test_message ("loading-bound script:\n%s", text);
    g_assert_cmpint (v.limit, ==, LS_LIMIT_LOADING);
    g_assert_nonnull (strstr (v.headline, "the script waits 200 ms for each batch against a 20 ms training step on the CPU (91 %"));
    g_assert_true (any_contains (v.findings, "in the Dataset's __getitem__ (380 ms"));
    g_assert_nonnull (v.suggested);
    g_assert_nonnull (strstr (v.suggested, "num_workers="));
    /* On the CPU the workers share the step's cores: no "11x as fast". */
    g_assert_true (g_str_has_prefix (v.gain, "the wait is 91 % of each batch's time (the training step on the CPU "
                                             "takes 20 ms, the wait 200 ms)"));
    g_assert_null (strstr (text, "as fast"));
    ls_verdict_clear (&v);
  }
  /* Loadscope's own runs never get a script's gain line. */
  {
    fig f = { .workers = 2, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17,
              .cpu_percent = 190, .cpu_ms_per_sample = 3 };
    g_autoptr (JsonObject) o = summary_of (&f);
    ls_verdict_for_run (o, 2, &v);
    g_assert_null (v.gain);
    ls_verdict_clear (&v);
  }
}

static void
test_failed_run (void)
{
  fig f = { .workers = 2, .throughput = 640, .wait_p50 = 84, .copy = 1.6, .step = 20, .util = 0.17 };
  g_autoptr (JsonObject) o = summary_of (&f);
  json_object_set_string_member (o, "status", "failed");
  ls_verdict v;
  ls_verdict_for_run (o, 2, &v);
  g_assert_cmpint (v.limit, ==, LS_LIMIT_UNKNOWN);
  g_assert_nonnull (strstr (v.headline, "did not finish (failed)"));
  ls_verdict_clear (&v);
}

/* ---- sweeps ------------------------------------------------------------- */

static JsonArray *
sweep_of (const gint64 *workers, const double *throughput, const double *pss, guint n)
{
  JsonArray *a = json_array_new ();
  for (guint i = 0; i < n; i++)
    {
      fig f = { .workers = workers[i], .throughput = throughput[i], .wait_p50 = 40, .copy = 1.6, .step = 20,
                .util = 0.3, .cpu_percent = 100, .cpu_ms_per_sample = 1, .pss = pss ? pss[i] : 3e8,
                .other_cpu = 0 };
      json_array_add_object_element (a, summary_of (&f));
    }
  return a;
}

static void
test_sweep_within_spread (void)
{
  /* workers 2 and 4, three repeats each, ranges overlapping: either. */
  static const gint64 w[] = { 2, 4, 2, 4, 2, 4 };
  static const double t[] = { 1000, 1050, 1100, 980, 950, 1120 };
  static const double m[] = { 2e8, 3e8, 2e8, 3e8, 2e8, 3e8 };
  g_autoptr (JsonArray) a = sweep_of (w, t, m, G_N_ELEMENTS (w));
  ls_verdict v;
  ls_verdict_for_sweep (a, 2, &v);
  g_autofree char *text = ls_verdict_text (&v);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (v.recommendation, "workers=2 and workers=4 are within the spread of repeats: measuring "
                                              "cannot tell them apart, so the cheapest, workers=2, is the one to use"));
  g_assert_nonnull (strstr (v.recommendation, "Use 2 workers"));
  g_assert_nonnull (strstr (v.recommendation, "mean of 3, 950\u20131100"));
  g_assert_false (any_contains (v.warnings, "ran once"));
  ls_verdict_clear (&v);

  g_autoptr (GPtrArray) groups = ls_config_groups (a);
  g_assert_cmpuint (groups->len, ==, 2);
  const ls_config_group *g2 = groups->pdata[0];
  g_assert_cmpuint (g2->done, ==, 3);
  g_assert_cmpfloat_with_epsilon (g2->mean, (1000 + 1100 + 950) / 3.0, 1e-9);
  g_assert_cmpfloat (g2->min, ==, 950);
  g_assert_cmpfloat (g2->max, ==, 1100);
  g_assert_cmpint (g2->representative, ==, 0); /* the median run: 1000 */
  g_assert_cmpstr (g2->label, ==, "workers=2");
  g_assert_true (ls_config_groups_overlap (groups->pdata[0], groups->pdata[1]));
}

static void
test_sweep_clear_best (void)
{
  static const gint64 w[] = { 2, 4, 2, 4, 2, 4 };
  static const double t[] = { 1000, 2000, 1010, 2010, 990, 1990 };
  g_autoptr (JsonArray) a = sweep_of (w, t, NULL, G_N_ELEMENTS (w));
  ls_verdict v;
  ls_verdict_for_sweep (a, 2, &v);
  g_assert_nonnull (strstr (v.recommendation, "Use 4 workers (fork)"));
  g_assert_nonnull (strstr (v.recommendation, "the best throughput"));
  g_assert_null (strstr (v.recommendation, "spread of repeats"));
  g_assert_cmpint (v.index, ==, 1); /* the median of 2000, 2010, 1990 */
  ls_verdict_clear (&v);
}

static void
test_sweep_without_repeats (void)
{
  static const gint64 w[] = { 0, 2, 4 };
  static const double t[] = { 500, 1000, 1040 };
  static const double m[] = { 1e8, 2.1e8, 3.2e8 };
  g_autoptr (JsonArray) a = sweep_of (w, t, m, G_N_ELEMENTS (w));
  ls_verdict v;
  ls_verdict_for_sweep (a, 2, &v);
  g_autofree char *text = ls_verdict_text (&v);
  g_test_message ("%s", text);
  g_assert_true (any_contains (v.warnings, "each configuration ran once and the best two differ by 4 %"));
  g_assert_true (any_contains (v.findings, "memory grows 55 MB per worker: at 8 workers 540 MB"));
  g_assert_cmpstr (ls_limit_name (v.limit), ==, "loading");
  g_assert_true (g_str_has_prefix (text, "Recommendation: Use "));
  ls_verdict_clear (&v);
}

static void
test_sweep_busy_and_failed (void)
{
  static const gint64 w[] = { 1, 2 };
  static const double t[] = { 500, 1000 };
  g_autoptr (JsonArray) a = sweep_of (w, t, NULL, 2);
  json_object_set_double_member (json_object_get_object_member (json_array_get_object_element (a, 1), "machine_busy"),
                                 "other_cpu_percent", 140);
  ls_verdict v;
  ls_verdict_for_sweep (a, 2, &v);
  g_assert_true (any_contains (v.warnings, "the machine was busy during 1 of 2 runs (other processes used up to 140 %"));
  ls_verdict_clear (&v);

  g_autoptr (JsonArray) failed = json_array_new ();
  fig f = { .workers = 1 };
  JsonObject *o = summary_of (&f);
  json_object_set_string_member (o, "status", "failed");
  json_array_add_object_element (failed, o);
  ls_verdict_for_sweep (failed, 2, &v);
  g_assert_cmpint (v.index, ==, -1);
  g_assert_cmpint (v.limit, ==, LS_LIMIT_UNKNOWN);
  g_assert_null (v.dataloader);
  g_assert_nonnull (strstr (v.recommendation, "No run finished"));
  ls_verdict_clear (&v);
}

static void
test_machine_busy_arithmetic (void)
{
  /* 3 s of the machine's CPU over 2 s, 1 s of it ours: 100 % of a core. */
  g_assert_cmpfloat_with_epsilon (ls_machine_busy_other_percent (3000000000u, 1000000000u, 2.0), 100.0, 1e-9);
  /* Ticks are coarser than our own accounting: never below 0. */
  g_assert_cmpfloat (ls_machine_busy_other_percent (900000000u, 1000000000u, 1.0), ==, 0.0);
  g_assert_cmpfloat (ls_machine_busy_other_percent (1, 0, 0), <, 0);
}

static void
test_time_budget (void)
{
  g_assert_cmpfloat (ls_sweep_parse_duration ("90"), ==, 90);
  g_assert_cmpfloat (ls_sweep_parse_duration ("120s"), ==, 120);
  g_assert_cmpfloat (ls_sweep_parse_duration ("5m"), ==, 300);
  g_assert_cmpfloat (ls_sweep_parse_duration ("1.5h"), ==, 5400);
  g_assert_cmpfloat (ls_sweep_parse_duration ("soon"), <=, 0);
  g_assert_cmpfloat (ls_sweep_parse_duration ("-3s"), <=, 0);
  g_assert_cmpfloat (ls_sweep_parse_duration ("3 parsecs"), <=, 0);

  g_autoptr (ls_sweep_request) r = ls_sweep_request_new ();
  ls_sweep_request_add (r, LS_SWEEP_KNOB_DATASET, "synthetic");
  ls_sweep_request_add_int (r, LS_SWEEP_KNOB_WORKERS, 0);
  ls_sweep_request_add_int (r, LS_SWEEP_KNOB_WORKERS, 2);
  /* No --batches: the estimate cannot be told, so once. */
  g_assert_cmpuint (ls_sweep_repeat_for_budget (r, 3600, 2), ==, 1);
  ls_sweep_request_add (r, LS_SWEEP_KNOB_BATCHES, "10");
  double pass = ls_sweep_request_estimate_seconds (r, 2);
  g_assert_cmpfloat (pass, >, 0);
  g_assert_cmpuint (ls_sweep_repeat_for_budget (r, pass * 3.5, 2), ==, 3);
  g_assert_cmpuint (ls_sweep_repeat_for_budget (r, pass / 2, 2), ==, 1);
  g_assert_cmpuint (ls_sweep_repeat_for_budget (r, pass * 100, 2), ==, LS_SWEEP_BUDGET_REPEAT_MAX);
}

/* ---- end to end, on the simulated GPU ------------------------------------ */

static char *
run_cli (int *status, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = ls_test_loadscope_va (first, ap);
  va_end (ap);
  if (r.err && *r.err)
    g_test_message ("stderr: %s", r.err);
  g_free (r.err);
  *status = r.status;
  return r.out;
}

/* The verdict's limit of one `run --json`, and its machine_busy checked. */
static char *
limit_of_run (const char *size, const char *cost_us, const char *model_ms, const char *bandwidth, const char *batches)
{
  int status;
  g_autofree char *out = run_cli (&status, "run", "--dataset", "synthetic", "--count", "2000", "--size", size,
                                  "--sample-cost-us", cost_us, "--workers", "1", "--sink", "sim", "--model-ms",
                                  model_ms, "--sim-bandwidth-pageable", bandwidth, "--batches", batches, "--no-db",
                                  "--json", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  JsonObject *busy = json_object_get_object_member (o, "machine_busy");
  g_assert_nonnull (busy);
  g_assert_cmpint (json_object_get_int_member (busy, "cores"), >=, 1);
  g_assert_cmpfloat (json_object_get_double_member (busy, "other_cpu_percent"), >=, 0);
  g_assert_cmpfloat (json_object_get_double_member (busy, "span_s"), >, 0);
  JsonObject *v = json_object_get_object_member (o, "verdict");
  g_assert_nonnull (v);
  g_test_message ("%s: %s", json_object_get_string_member (v, "limit"), json_object_get_string_member (v, "headline"));
  return g_strdup (json_object_get_string_member (v, "limit"));
}

static void
test_e2e_loading_bound (void)
{
  /* 64 samples of 0.5 ms of CPU each against a 0.1 ms step: 300 to 1. */
  g_autofree char *limit = limit_of_run ("32x32", "500", "0.1", "6", "12");
  g_assert_cmpstr (limit, ==, "loading");
}

static void
test_e2e_gpu_bound (void)
{
  /* Free samples against a 100 ms step. */
  g_autofree char *limit = limit_of_run ("32x32", "0", "100", "6", "10");
  g_assert_cmpstr (limit, ==, "gpu");
}

static void
test_e2e_copy_bound (void)
{
  /* 3 MB a batch over a 0.02 GB/s link: about 150 ms a copy, a 1 ms step. */
  g_autofree char *limit = limit_of_run ("64x64", "0", "1", "0.02", "10");
  g_assert_cmpstr (limit, ==, "copy");
}

static void
test_e2e_epoch_boundary (void)
{
  /* Six epochs of four free batches with spawned, non-persistent workers:
   * every boundary starts two processes. The knob is named. */
  int status;
  g_autofree char *out = run_cli (&status, "run", "--dataset", "synthetic", "--count", "256", "--size", "8x8",
                                  "--sample-cost-us", "0", "--workers", "2", "--start", "spawn", "--sink", "sim",
                                  "--model-ms", "0.5", "--epochs", "6", "--no-db", NULL);
  g_assert_cmpint (status, ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "\nVerdict: "));
  g_assert_nonnull (strstr (out, "persistent_workers=True"));
}

static void
test_e2e_sweep_spread (void)
{
  int status;
  g_autofree char *out = run_cli (&status, "sweep", "--dataset", "synthetic", "--count", "640", "--size", "8x8",
                                  "--workers", "0,1", "--sink", "sim", "--model-ms", "1", "--batches", "10",
                                  "--repeat", "2", "--no-db", NULL);
  g_assert_cmpint (status, ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "\nSpread of repeats (throughput, samples/s):\n"));
  g_assert_nonnull (strstr (out, "  workers=0 "));
  g_assert_nonnull (strstr (out, "\nRecommendation: Use "));
  g_assert_nonnull (strstr (out, "(mean of 2, "));
  g_assert_nonnull (strstr (out, "\nVerdict: "));

  g_autofree char *bad = run_cli (&status, "sweep", "--dataset", "synthetic", "--workers", "0", "--repeat", "2",
                                  "--time-budget", "1m", "--no-db", NULL);
  g_assert_cmpint (status, ==, 2);
  g_autofree char *bad2 = run_cli (&status, "sweep", "--dataset", "synthetic", "--workers", "0", "--time-budget",
                                   "soon", "--no-db", NULL);
  g_assert_cmpint (status, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/verdict/runs", test_run_verdicts);
  g_test_add_func ("/app/verdict/script-runs", test_script_verdicts);
  g_test_add_func ("/app/verdict/failed-run", test_failed_run);
  g_test_add_func ("/app/verdict/sweep-within-spread", test_sweep_within_spread);
  g_test_add_func ("/app/verdict/sweep-clear-best", test_sweep_clear_best);
  g_test_add_func ("/app/verdict/sweep-without-repeats", test_sweep_without_repeats);
  g_test_add_func ("/app/verdict/sweep-busy-and-failed", test_sweep_busy_and_failed);
  g_test_add_func ("/app/verdict/machine-busy-arithmetic", test_machine_busy_arithmetic);
  g_test_add_func ("/app/verdict/time-budget", test_time_budget);
  g_test_add_func ("/app/verdict/e2e-loading-bound", test_e2e_loading_bound);
  g_test_add_func ("/app/verdict/e2e-gpu-bound", test_e2e_gpu_bound);
  g_test_add_func ("/app/verdict/e2e-copy-bound", test_e2e_copy_bound);
  g_test_add_func ("/app/verdict/e2e-epoch-boundary", test_e2e_epoch_boundary);
  g_test_add_func ("/app/verdict/e2e-sweep-spread", test_e2e_sweep_spread);
  return ls_test_run_checked_shm_only ();
}
