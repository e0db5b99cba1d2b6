/* The what-if model (app/analysis/whatif-model.h) on workloads whose answer
 * is known in closed form, and `loadscope whatif` / `tune` through the
 * command line: the JSON's shape and basis, the memory budget never
 * exceeded, bad inputs named. No assertion depends on how fast this
 * machine is. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "app/analysis/tune.h"
#include "app/analysis/whatif-model.h"
#include "test-util.h"

#define B 32

static void
base_params (ls_whatif_params *p, guint workers, double cores, double build, double copy, double compute)
{
  ls_whatif_params_init (p);
  p->workers = workers;
  p->cores = cores;
  p->t_build_ms = build;
  p->copy_ms = copy;
  p->compute_ms = compute;
  p->batch_size = B;
  p->last_batch_samples = B;
  p->batches_per_epoch = 400;
  p->batches = 400;
  p->warmup = MAX (workers, 1u);
  p->persistent = TRUE;
}

static void
assert_near (double got, double want, double rel)
{
  if (fabs (got - want) > rel * fabs (want) + 1e-9)
    g_error ("got %g, want %g (within %.1f %%)", got, want, rel * 100);
}

/* GPU-bound: throughput = 1 / (copy + compute), GPU busy = compute share,
 * no wait. */
static void
test_consumer_bound (void)
{
  ls_whatif_params p;
  ls_whatif_prediction cf, sim;

  base_params (&p, 4, 8, 10, 1, 20);
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 21.0, 1e-9);
  assert_near (cf.gpu_util_exact, 20.0 / 21.0, 1e-9);
  g_assert_false (cf.loader_bound);
  g_assert_cmpfloat (cf.wait_p50_ms, ==, 0);
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.01);
  assert_near (sim.gpu_util_exact, cf.gpu_util_exact, 0.01);
  g_assert_cmpfloat (sim.wait_p95_ms, <, 0.01);

  /* Non-blocking: the copy overlaps the step. */
  p.non_blocking = TRUE;
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 20.0, 1e-9);
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.01);
}

/* Loading-bound with W <= C: W / T_build. */
static void
test_loader_bound (void)
{
  ls_whatif_params p;
  ls_whatif_prediction cf, sim;

  base_params (&p, 1, 4, 20, 1, 5);
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 20.0, 1e-9);
  g_assert_true (cf.loader_bound);
  assert_near (cf.wait_p50_ms, 20.0 - 1.0, 1e-9);
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.01);
  assert_near (sim.wait_p50_ms, 19.0, 0.01);
  assert_near (sim.gpu_util_exact, 5.0 / 20.0, 0.02);

  /* Two workers, twice the rate. */
  base_params (&p, 2, 4, 40, 1, 5);
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 2 * 1000.0 / 40.0, 1e-9);
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.01);

  /* Twice the workers, twice the rate (still W <= C). */
  p.workers = 4;
  p.warmup = 4;
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, B * 4 * 1000.0 / 40.0, 0.01);
}

/* W > C: the cores are shared, so C / T_build whatever W. */
static void
test_contention (void)
{
  ls_whatif_params p;
  ls_whatif_prediction cf, sim;

  base_params (&p, 4, 2, 40, 1, 5);
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 2 * 1000.0 / 40.0, 1e-9);
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.02);
  p.workers = 8;
  p.warmup = 8;
  ls_whatif_simulate (&p, 2, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.02);
  /* Faster storage shortens only the read part. */
  p.read_fraction = 0.5;
  p.storage_speed = 2;
  assert_near (ls_whatif_build_ms (&p), 30.0, 1e-9);
  /* Fewer cores: proportionally less. */
  p.read_fraction = 0;
  p.cores = 1;
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 40.0, 1e-9);
}

/* 0 workers: the runner builds, then copies; the step overlaps the next
 * build. */
static void
test_no_workers (void)
{
  ls_whatif_params p;
  ls_whatif_prediction cf, sim;

  base_params (&p, 0, 2, 10, 1, 5);
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 11.0, 1e-9);
  assert_near (cf.wait_p50_ms, 10.0, 1e-9);
  ls_whatif_simulate (&p, 1, &sim);
  assert_near (sim.throughput_sps, cf.throughput_sps, 0.01);
  assert_near (sim.wait_p95_ms, 10.0, 1e-6);
  /* A GPU-bound step: copy + step. */
  p.compute_ms = 30;
  ls_whatif_closed_form (&p, &cf);
  assert_near (cf.throughput_sps, B * 1000.0 / 31.0, 1e-9);
}

/* Variance: a fixed seed gives the same answer; spread raises p95 above
 * p50; a GPU twice as fast halves the step. */
static void
test_variance_and_seed (void)
{
  static const double mult[] = { 0.5, 0.75, 1.0, 1.0, 1.25, 1.5 };
  ls_whatif_params p;
  ls_whatif_prediction a, b;

  base_params (&p, 1, 2, 20, 1, 5);
  p.multipliers = mult;
  p.n_multipliers = G_N_ELEMENTS (mult);
  ls_whatif_simulate (&p, 3, &a);
  ls_whatif_simulate (&p, 3, &b);
  g_assert_cmpfloat (a.throughput_sps, ==, b.throughput_sps);
  g_assert_cmpfloat (a.wait_p95_ms, ==, b.wait_p95_ms);
  g_assert_cmpfloat (a.wait_p95_ms, >, a.wait_p50_ms + 2);
  assert_near (a.throughput_sps, B * 1000.0 / 20.0, 0.05);

  double pct[] = { 4, 1, 3, 2 };
  assert_near (ls_whatif_percentile (pct, 4, 50), 2.5, 1e-12);
  assert_near (ls_whatif_percentile (pct, 4, 95), 3.85, 1e-12);
}

static void
test_parse (void)
{
  double v;
  g_assert_true (ls_tune_parse_size ("4G", &v));
  assert_near (v, 4.0 * 1024 * 1024 * 1024, 1e-12);
  g_assert_true (ls_tune_parse_size ("512MiB", &v));
  assert_near (v, 512.0 * 1024 * 1024, 1e-12);
  g_assert_true (ls_tune_parse_size ("1000", &v));
  g_assert_false (ls_tune_parse_size ("banana", &v));
  g_assert_false (ls_tune_parse_size ("-1G", &v));
  g_assert_false (ls_tune_parse_size ("4Q", &v));
  g_assert_true (ls_tune_parse_duration ("2m", &v));
  assert_near (v, 120, 1e-12);
  g_assert_true (ls_tune_parse_duration ("90s", &v));
  g_assert_false (ls_tune_parse_duration ("soon", &v));
}

/* ------------------------------------------------------------ the command line */

static char *tmp_dir;

static const char *
loadscope (void)
{
  const char *p = g_getenv ("LOADSCOPE");
  if (!p)
    g_error ("LOADSCOPE is not set: run the tests with `meson test`");
  return p;
}

#define SMALL "--dataset", "synthetic", "--count", "192", "--size", "32x32", "--sample-cost-us", "200", "--batch-size", \
              "16", "--batches", "24", "--sink", "sim", "--model-ms", "2"

/* Runs loadscope with args; its exit status, stdout and stderr. */
static int
run (char **out, char **err, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list ap;
  g_ptr_array_add (argv, (gpointer) loadscope ());
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error))
    g_error ("%s", error->message);
  g_autoptr (GError) exit_error = NULL;
  if (g_spawn_check_wait_status (status, &exit_error))
    return 0;
  return g_error_matches (exit_error, G_SPAWN_EXIT_ERROR, exit_error->code) ? exit_error->code : 128;
}

static JsonObject *
parse_object (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (parser, text, -1, &error))
    g_error ("not JSON: %s\n%s", error->message, text);
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_object_ref (json_node_get_object (root));
}

static void
test_whatif_cli (void)
{
  g_autofree char *db = g_build_filename (tmp_dir, "whatif.sqlite", NULL);
  g_autofree char *out = NULL, *err = NULL;

  int rc = run (&out, &err, "sweep", SMALL, "--workers", "0,1", "--db", db, "--quiet", NULL);
  g_assert_cmpint (rc, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Run 2 (1 worker) with 2 workers: its sweep sibling, run 1, is in the basis. */
  rc = run (&out, &err, "whatif", "--run", "2", "--workers", "2", "--gpu-speed", "2", "--json", "--db", db, NULL);
  if (rc != 0)
    g_error ("whatif: %s", err);
  g_autoptr (JsonObject) o = parse_object (out);
  JsonObject *pred = json_object_get_object_member (o, "predicted");
  g_assert_nonnull (pred);
  g_assert_cmpfloat (json_object_get_double_member (pred, "throughput_sps"), >, 0);
  double util = json_object_get_double_member (pred, "gpu_util_exact");
  g_assert_cmpfloat (util, >=, 0);
  g_assert_cmpfloat (util, <=, 1);
  JsonObject *wait = json_object_get_object_member (pred, "batch_wait_ms");
  g_assert_true (json_object_has_member (wait, "p50") && json_object_has_member (wait, "p95"));
  g_assert_cmpfloat (json_object_get_double_member (wait, "p95"), >=, json_object_get_double_member (wait, "p50"));
  JsonArray *basis = json_object_get_array_member (o, "basis");
  g_assert_cmpuint (json_array_get_length (basis), ==, 2);
  g_assert_cmpint (json_array_get_int_element (basis, 0), ==, 2);
  g_assert_cmpint (json_array_get_int_element (basis, 1), ==, 1);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Words, and the run alone. */
  rc = run (&out, &err, "whatif", "--run", "1", "--alone", "--db", db, NULL);
  g_assert_cmpint (rc, ==, 0);
  g_assert_nonnull (strstr (out, "samples/s"));
  g_assert_nonnull (strstr (out, "Basis: run 1\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Bad inputs, named. */
  /* -1 was taken as "not given"; 1e308 was "must be above 0". */
  static const char *const bad[][3] = {
    { "--workers", "-3", "--workers -3: must be between 0 and 256" },
    { "--workers", "-1", "--workers -1: must be between 0 and 256" },
    { "--workers", "257", "--workers 257: must be between 0 and 256" },
    { "--workers", "2x", "--workers 2x: not a whole number" },
    { "--prefetch", "0", "--prefetch 0: must be between 1 and 64" },
    { "--prefetch", "-1", "--prefetch -1: must be between 1 and 64" },
    { "--model-ms", "-1", "--model-ms -1: must be at least 0 and at most 60000" },
    { "--model-ms", "nan", "--model-ms nan: not a number" },
    { "--gpu-speed", "0", "--gpu-speed 0: must be above 0" },
    { "--gpu-speed", "-1", "--gpu-speed -1: must be above 0 and at most 1000" },
    { "--gpu-speed", "1e308", "--gpu-speed 1e308: must be above 0 and at most 1000" },
    { "--gpu-speed", "inf", "--gpu-speed inf: must be above 0 and at most 1000" },
    { "--cores", "-1", "--cores -1: must be above 0 and at most 4096" },
    { "--cores", "1e9", "--cores 1e9: must be above 0 and at most 4096" },
    { "--storage-speed", "-1", "--storage-speed -1: must be above 0 and at most 1000" },
    { "--storage-speed", "", "--storage-speed : not a number" },
    { "--run", "999", "999" },
  };
  /* GLib's spawn on Windows drops an empty argument from the command line
   * it builds, so there "" never reaches loadscope.exe: that case is POSIX's. */
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
#ifdef G_OS_WIN32
      if (!*bad[i][1])
        continue;
#endif
      const char *run_ref = strcmp (bad[i][0], "--run") == 0 ? bad[i][1] : "1";
      rc = strcmp (bad[i][0], "--run") == 0 ? run (&out, &err, "whatif", "--run", run_ref, "--db", db, NULL)
                                             : run (&out, &err, "whatif", "--run", "1", bad[i][0], bad[i][1], "--db", db, NULL);
      g_assert_cmpint (rc, ==, 2);
      if (!strstr (err, bad[i][2]))
        g_error ("'%s' not named in: %s", bad[i][2], err);
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
    }
  rc = run (&out, &err, "whatif", "--db", db, NULL);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, "--run"));
}

static void
test_tune_cli (void)
{
  g_autofree char *db = g_build_filename (tmp_dir, "tune.sqlite", NULL);
  g_autofree char *out = NULL, *err = NULL;

  /* A budget below anything that can run: a clear error, after one run. */
  int rc = run (&out, &err, "tune", SMALL, "--memory-budget", "1M", "--db", db, "--quiet", NULL);
  g_assert_cmpint (rc, ==, 1);
  g_assert_nonnull (strstr (err, "memory budget"));
  g_assert_nonnull (strstr (err, "no configuration fits"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Without a store tune keeps its runs in a folder of its own in $TMPDIR,
   * and removes one a killed tune left (tmp-dir.h). */
  g_autofree char *stale = g_build_filename (g_get_tmp_dir (), "loadscope-tune-2147483600-killed", NULL);
  g_autofree char *stale_file = g_build_filename (stale, "tune.sqlite", NULL);
  g_assert_cmpint (g_mkdir_with_parents (stale, 0700), ==, 0);
  g_assert_true (g_file_set_contents (stale_file, "x", 1, NULL));
  rc = run (&out, &err, "tune", SMALL, "--memory-budget", "1M", "--no-db", "--quiet", NULL);
  g_assert_cmpint (rc, ==, 1);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* Bad inputs. */
  rc = run (&out, &err, "tune", SMALL, "--memory-budget", "lots", "--db", db, NULL);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, "--memory-budget 'lots'"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* Budgets out of range, named with their range (accepted before). */
  static const char *const bad[][3] = {
    { "--cpu-budget", "0", "--cpu-budget 0: must be between 1 and 256" },
    { "--cpu-budget", "-1", "--cpu-budget -1: must be between 1 and 256" },
    { "--cpu-budget", "257", "--cpu-budget 257: must be between 1 and 256" },
    { "--memory-budget", "1e30G", "--memory-budget '1e30G': must be between 1M and 1P" },
    { "--memory-budget", "1K", "--memory-budget '1K': must be between 1M and 1P" },
    { "--memory-budget", "-1", "--memory-budget '-1': not a size" },
    { "--time-budget", "100000h", "--time-budget '100000h': must be between 1s and 7 days" },
    { "--time-budget", "0.1s", "--time-budget '0.1s': must be between 1s and 7 days" },
    { "--time-budget", "-1", "--time-budget '-1': not a duration" },
    { "--max-runs", "-1", "--max-runs -1: must be between 3 and 1000" },
    { "--max-runs", "1", "--max-runs 1: must be between 3 and 1000" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      rc = run (&out, &err, "tune", SMALL, bad[i][0], bad[i][1], "--db", db, NULL);
      g_assert_cmpint (rc, ==, 2);
      if (!strstr (err, bad[i][2]))
        g_error ("'%s' not named in: %s", bad[i][2], err);
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
    }
  rc = run (&out, &err, "tune", SMALL, "--workers", "1,2", "--db", db, NULL);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, "--workers"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  rc = run (&out, &err, "tune", "--memory-budget", "4G", NULL);
  g_assert_cmpint (rc, ==, 2);
  g_assert_nonnull (strstr (err, "--dataset"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* A budget: every point measured within it, or flagged and not chosen. */
  const double budget = 2.0 * 1024 * 1024 * 1024;
  rc = run (&out, &err, "tune", SMALL, "--memory-budget", "2G", "--max-runs", "4", "--pin", "staging", "--json",
            "--db", db, NULL);
  if (rc != 0)
    g_error ("tune: %s", err);
  g_autoptr (JsonObject) o = parse_object (out);
  JsonObject *rec = json_object_get_object_member (o, "recommended");
  g_assert_nonnull (rec);
  g_assert_cmpstr (json_object_get_string_member (rec, "pin"), ==, "staging"); /* held fixed */
  g_assert_nonnull (strstr (json_object_get_string_member (o, "pytorch"), "DataLoader("));
  JsonObject *measured = json_object_get_object_member (o, "measured");
  g_assert_cmpfloat (json_object_get_double_member (measured, "pss_peak_bytes"), <=, budget);
  g_assert_cmpfloat (json_object_get_double_member (measured, "throughput_sps"), >, 0);
  g_assert_cmpint (json_object_get_int_member (o, "runs"), <=, 4);
  g_assert_cmpint (json_object_get_int_member (o, "runs"), >=, 2);
  g_assert_cmpfloat (json_object_get_double_member (o, "elapsed_s"), >, 0);
  JsonArray *points = json_object_get_array_member (o, "points");
  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonObject *p = json_array_get_object_element (points, i);
      g_assert_cmpstr (json_object_get_string_member (p, "pin"), ==, "staging");
      if (!json_object_get_boolean_member (p, "over_budget"))
        g_assert_cmpfloat (json_object_get_double_member (p, "pss_peak_bytes"), <=, budget);
    }
  /* Recorded as one sweep. */
  g_assert_cmpint (json_object_get_int_member (o, "sweep_id"), >, 0);
}

/* A PyTorch script's run: "GPU busy nan %" and a 0.0 ms model
 * step before. Made from a recorded run's export, its summary given the
 * script's target and its batches the script's step. */
static char *
script_run_export (const char *db, const char *name, gboolean stepped)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *file = g_build_filename (tmp_dir, name, NULL);
  g_unlink (file);
  int rc = run (&out, &err, "export", "--format", "json", "--all", "--db", db, "-o", file, NULL);
  if (rc != 0)
    g_error ("export: %s", err);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, file, NULL));
  JsonObject *r = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "runs"), 0);
  g_autofree char *uuid = g_uuid_string_random ();
  json_object_set_string_member (r, "uuid", uuid);
  json_object_set_null_member (r, "gpu_util_exact");
  JsonObject *target = json_object_new ();
  json_object_set_string_member (target, "kind", "pytorch");
  json_object_set_double_member (target, "step_share", 0.6);
  if (stepped)
    json_object_set_double_member (target, "step_ms_p50", 3.0);
  json_object_set_object_member (json_object_get_object_member (r, "summary"), "target", target);
  JsonArray *batches = json_object_get_array_member (r, "batches");
  for (guint i = 0; i < json_array_get_length (batches); i++)
    {
      JsonObject *b = json_array_get_object_element (batches, i);
      if (stepped)
        json_object_set_double_member (b, "compute_ms", 3.0);
      else
        {
          json_object_set_null_member (b, "compute_ms");
          json_object_set_null_member (b, "copy_ms");
          json_object_set_null_member (b, "stage_ms");
        }
    }
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, file, NULL));
  return g_steal_pointer (&file);
}

static void
test_whatif_script_run (void)
{
  g_autofree char *db = g_build_filename (tmp_dir, "script-source.sqlite", NULL);
  g_autofree char *scripts = g_build_filename (tmp_dir, "scripts.sqlite", NULL);
  g_autofree char *out = NULL, *err = NULL;
  int rc = run (&out, &err, "run", SMALL, "--workers", "1", "--db", db, NULL);
  g_assert_cmpint (rc, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_autofree char *stepped = script_run_export (db, "script-stepped.json", TRUE);
  g_autofree char *unstepped = script_run_export (db, "script-unstepped.json", FALSE);
  rc = run (&out, &err, "import", stepped, "--db", scripts, NULL);
  g_assert_cmpint (rc, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  rc = run (&out, &err, "import", unstepped, "--db", scripts, NULL);
  g_assert_cmpint (rc, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* The script's own step is the model step; its busy share what it measured. */
  rc = run (&out, &err, "whatif", "--run", "1", "--workers", "2", "--db", scripts, NULL);
  if (rc != 0)
    g_error ("whatif on a script's run: %s", err);
  g_assert_null (strstr (out, "nan"));
  g_assert_nonnull (strstr (out, "a 3.0 ms step (the script's, as measured)"));
  g_assert_nonnull (strstr (out, "in the script's step 60 %)"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* No step measured: said, not predicted from 0 ms. */
  rc = run (&out, &err, "whatif", "--run", "2", "--db", scripts, NULL);
  g_assert_cmpint (rc, ==, 1);
  g_assert_nonnull (strstr (err, "run 2 is a PyTorch script's run"));
  g_assert_nonnull (strstr (err, "no model step to predict from"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("loadscope-whatif-XXXXXX", NULL);
  g_test_add_func ("/whatif/model/consumer-bound", test_consumer_bound);
  g_test_add_func ("/whatif/model/loader-bound", test_loader_bound);
  g_test_add_func ("/whatif/model/contention", test_contention);
  g_test_add_func ("/whatif/model/no-workers", test_no_workers);
  g_test_add_func ("/whatif/model/variance-and-seed", test_variance_and_seed);
  g_test_add_func ("/whatif/tune/parse", test_parse);
  g_test_add_func ("/whatif/cli/whatif", test_whatif_cli);
  g_test_add_func ("/whatif/cli/tune", test_tune_cli);
  g_test_add_func ("/whatif/cli/script-run", test_whatif_script_run);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
