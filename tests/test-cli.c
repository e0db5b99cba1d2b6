/* The command line as scripts use it: exit codes, the JSON summary, and a
 * clear message for every bad input. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "test-sql.h"
#include "test-cli-util.h"
#include "test-util.h"

static JsonObject *
parse_object (const char *text, JsonParser *parser)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

static void
test_run_prints_the_contract_summary (void)
{
  ls_test_cli r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "500", "--size", "32x32", "--sample-cost-us",
                          "100", "--workers", "2", "--epochs", "2", "--sink", "none", "--json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = parse_object (r.out, parser);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
  g_assert_true (json_object_get_null_member (o, "error"));
  g_assert_cmpstr (json_object_get_string_member (o, "sink"), ==, "none");
  g_assert_false (json_object_get_boolean_member (o, "simulated"));
  g_assert_true (json_object_get_null_member (o, "sink_note"));
  /* No device: no pin mode, no copy, no utilization. */
  g_assert_true (json_object_get_null_member (o, "pin"));
  g_assert_true (json_object_get_null_member (o, "copy_ms"));
  g_assert_true (json_object_get_null_member (o, "compute_ms"));
  g_assert_cmpint (json_object_get_int_member (o, "workers"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (o, "start"), ==, "fork");
  g_assert_cmpint (json_object_get_int_member (o, "prefetch"), ==, 2);
  g_assert_false (json_object_get_boolean_member (o, "persistent"));
  g_assert_cmpint (json_object_get_int_member (o, "batch_size"), ==, 64);
  g_assert_cmpint (json_object_get_int_member (o, "samples"), ==, 1000);
  g_assert_cmpfloat (json_object_get_double_member (o, "throughput_sps"), >, 0);
  JsonObject *wait = json_object_get_object_member (o, "batch_wait_ms");
  g_assert_cmpfloat (json_object_get_double_member (wait, "p50"), <=, json_object_get_double_member (wait, "p95"));
  g_assert_cmpfloat (json_object_get_double_member (wait, "p95"), <=, json_object_get_double_member (wait, "p99"));
  g_assert_cmpfloat (json_object_get_double_member (wait, "p99"), <=, json_object_get_double_member (wait, "max"));
  g_assert_true (json_object_get_null_member (o, "gpu_util_exact"));
  g_assert_true (json_object_get_null_member (o, "gpu_util_nvml"));
  JsonObject *mem = json_object_get_object_member (o, "memory");
  g_assert_cmpint (json_object_get_int_member (mem, "pss_peak_bytes"), >, 0);
  g_assert_cmpint (json_object_get_int_member (mem, "rss_peak_bytes"), >=,
                   json_object_get_int_member (mem, "pss_peak_bytes"));
  g_assert_cmpint (json_object_get_int_member (mem, "arena_bytes"), >, 0);
  /* Two epochs of new workers: four start-up times. */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "worker_startup_ms")), ==, 4);
  g_assert_cmpfloat (json_object_get_double_member (o, "time_to_first_batch_ms"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (o, "epoch_boundary_ms"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (o, "cpu_percent"), >, 0);
  g_assert_cmpint (json_object_get_int_member (o, "skipped_samples"), ==, 0);
  ls_test_cli_clear (&r);
}

static void
test_sim_sink_summary_is_labelled (void)
{
  ls_test_cli r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers", "2",
                          "--batch-size", "32", "--pin", "staging", "--model-ms", "5", "--sink", "sim", "--json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = parse_object (r.out, parser);
  g_assert_cmpstr (json_object_get_string_member (o, "sink"), ==, "sim");
  g_assert_true (json_object_get_boolean_member (o, "simulated"));
  g_assert_cmpstr (json_object_get_string_member (o, "device"), ==, "simulated");
  g_assert_cmpstr (json_object_get_string_member (o, "pin"), ==, "staging");
  g_assert_false (json_object_get_boolean_member (o, "non_blocking"));
  g_assert_cmpfloat (json_object_get_double_member (o, "model_ms"), ==, 5);
  double util = json_object_get_double_member (o, "gpu_util_exact");
  g_assert_cmpfloat (util, >, 0);
  g_assert_cmpfloat (util, <=, 1);
  g_assert_true (json_object_get_null_member (o, "gpu_util_nvml"));
  JsonObject *compute = json_object_get_object_member (o, "compute_ms");
  g_assert_cmpfloat (fabs (json_object_get_double_member (compute, "p50") - 5), <, 1e-6);
  JsonObject *copy = json_object_get_object_member (o, "copy_ms");
  g_assert_cmpfloat (json_object_get_double_member (copy, "p50"), >, 0);
  gint64 batch_bytes = json_object_get_int_member (o, "batch_bytes");
  g_assert_cmpint (batch_bytes, ==, 32 * 16 * 16 * 3 * 4);
  /* Staging copies each of the 20 batches once on the host. */
  g_assert_cmpint (json_object_get_int_member (o, "host_bytes_copied"), ==, 20 * batch_bytes);
  ls_test_cli_clear (&r);

  /* Without --json, the words say it too. */
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--model-ms", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "SIMULATED GPU"));
  g_assert_nonnull (strstr (r.out, "using the simulated GPU sink"));
  ls_test_cli_clear (&r);
}

static void
test_failed_run_exits_1_with_reason (void)
{
  ls_test_cli r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "300", "--size", "8x8", "--workers", "2",
                          "--crash-at", "100", "--json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();

  g_assert_cmpint (r.status, ==, 1);
  JsonObject *o = parse_object (r.out, parser);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "failed");
  const char *error = json_object_get_string_member (o, "error");
  g_assert_nonnull (strstr (error, "killed by signal 11 (SIGSEGV)"));
  g_assert_nonnull (strstr (r.err, error));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "300", "--size", "8x8", "--workers", "1",
               "--fail-every", "50", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "injected failure"));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "300", "--size", "8x8", "--workers", "1",
               "--fail-every", "50", "--on-error", "skip", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  o = parse_object (r.out, parser2);
  g_assert_cmpint (json_object_get_int_member (o, "skipped_samples"), ==, 6);
  ls_test_cli_clear (&r);
}

typedef struct {
  const char *args[8];
  const char *message;
} bad_input;

static void
test_bad_usage_exits_2_naming_the_problem (void)
{
  static const bad_input cases[] = {
    { { "run", NULL }, "--dataset is missing" },
    { { "run", "--dataset", "synthetic", "--workers", "-1", NULL }, "--workers -1" },
    { { "run", "--dataset", "synthetic", "--size", "224", NULL }, "--size 224: expected WIDTHxHEIGHT" },
    { { "run", "--dataset", "synthetic", "--start", "thread", NULL }, "--start thread: expected fork or spawn" },
    { { "run", "--dataset", "synthetic", "--persistent", "maybe", NULL }, "--persistent maybe: expected on or off" },
    { { "run", "--dataset", "synthetic", "--prefetch", "0", NULL }, "--prefetch 0" },
    { { "run", "--dataset", "synthetic", "--count", "0", NULL }, "--count 0" },
    { { "run", "--dataset", "synthetic", "--on-error", "ignore", NULL }, "--on-error ignore: expected fail or skip" },
    { { "run", "--dataset", "synthetic", "--workers", "two", NULL }, "--workers" },
    { { "run", "--dataset", "synthetic", "--bogus", NULL }, "--bogus" },
    { { "run", "--dataset", "synthetic", "extra", NULL }, "unexpected argument 'extra'" },
    { { "frobnicate", NULL }, "unknown command 'frobnicate'" },
    { { "run", "--dataset", "synthetic", "--sink", "tpu", NULL }, "--sink tpu: expected auto, cuda, sim or none" },
    { { "run", "--dataset", "synthetic", "--pin", "yes", NULL }, "--pin yes: expected off, staging or arena" },
    { { "run", "--dataset", "synthetic", "--model-ms", "-1", NULL }, "--model-ms -1" },
    { { "run", "--dataset", "synthetic", "--non-blocking", "sometimes", NULL }, "--non-blocking sometimes" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *const *a = cases[i].args;
      ls_test_cli r = ls_test_loadscopev (a);
      g_test_message ("case %zu: %s", i, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].message));
      ls_test_cli_clear (&r);
    }
}

static void
test_help_and_version (void)
{
  ls_test_cli r = ls_test_loadscope ("--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Usage: loadscope COMMAND"));
  g_assert_nonnull (strstr (r.out, "run --dataset"));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("run", "--help-all", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--sample-cost-us"));
  g_assert_nonnull (strstr (r.out, "--crash-at"));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("--version", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "loadscope "));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("machine", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "cores:"));
  /* Whether a GPU and NVML answered, and why not when they did not. */
  g_assert_nonnull (strstr (r.out, "\nGPU:       "));
  g_assert_nonnull (strstr (r.out, "\nNVML:      "));
  ls_test_cli_clear (&r);
}

static void
test_machine_json_says_whether_a_gpu_answered (void)
{
  ls_test_cli r = ls_test_loadscope ("machine", "--json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = parse_object (r.out, parser);
  g_assert_cmpint (json_object_get_int_member (o, "logical_cores"), >, 0);
  g_assert_cmpint (json_object_get_int_member (o, "ram_bytes"), >, 0);
  g_assert_cmpstr (json_object_get_string_member (o, "hostname"), ==, ls_test_host_name ());
  static const char *const parts[] = { "cuda", "nvml" };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      JsonObject *p = json_object_get_object_member (o, parts[i]);
      g_assert_nonnull (p);
      gboolean answered = json_object_get_boolean_member (p, "answered");
      /* Either a device, or the reason there is none. */
      g_assert_true (answered != json_object_get_null_member (p, "device"));
      g_assert_true (answered == json_object_get_null_member (p, "error"));
      if (!answered)
        g_test_message ("%s: %s", parts[i], json_object_get_string_member (p, "error"));
    }
  JsonObject *cuda = json_object_get_object_member (o, "cuda");
  g_assert_cmpstr (json_object_get_string_member (o, "sink_auto"), ==,
                   json_object_get_boolean_member (cuda, "answered") ? "cuda" : "sim");
  ls_test_cli_clear (&r);
}

/* With a driver that answers (the stand-in), machine names the device
 * and the driver's version and library, in words and in JSON. */
static void
test_machine_names_the_cuda_driver (void)
{
  const char *fake = g_getenv ("LS_FAKE_CUDA_DRIVER");
  if (!fake)
    {
      g_test_skip ("no stand-in CUDA driver in this build");
      return;
    }
  g_setenv ("LOADSCOPE_CUDA_LIBRARY", fake, TRUE);
  ls_test_cli r = ls_test_loadscope ("machine", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *want = g_strdup_printf ("\nGPU:       Fake GPU 0 (CUDA device 0, driver 13.0 from %s; runs use it "
                                           "with --sink auto)\n", fake);
  g_assert_nonnull (strstr (r.out, want));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("machine", "--json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *cuda = json_object_get_object_member (parse_object (r.out, parser), "cuda");
  g_assert_true (json_object_get_boolean_member (cuda, "answered"));
  g_assert_cmpstr (json_object_get_string_member (cuda, "device"), ==, "Fake GPU 0");
  g_assert_cmpstr (json_object_get_string_member (cuda, "driver"), ==, "13.0");
  g_assert_cmpstr (json_object_get_string_member (cuda, "library"), ==, fake);
  ls_test_cli_clear (&r);
  g_unsetenv ("LOADSCOPE_CUDA_LIBRARY");
}

/* One set of defaults, stated in --help and used by every run. */
static void
test_one_set_of_defaults (void)
{
  ls_test_cli r = ls_test_loadscope ("--help", NULL);
  g_assert_nonnull (strstr (r.out, "workers 0, batch 64, prefetch 2, persistent workers off, pin off, non-blocking off, "
                                   "start fork, model step 20 ms"));
  ls_test_cli_clear (&r);
  static const char *const commands[] = { "run", "sweep", "demo" };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      r = ls_test_loadscope (commands[i], "--help", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "batch 64, prefetch 2, persistent workers off"));
      g_assert_nonnull (strstr (r.out, "model step 20 ms"));
      ls_test_cli_clear (&r);
    }
  r = ls_test_loadscope ("run", "--help", NULL);
  g_assert_nonnull (strstr (r.out, "Samples per batch (default 64)"));
  g_assert_nonnull (strstr (r.out, "per batch, in ms (default 20)"));
  ls_test_cli_clear (&r);

  /* A run and a sweep with no knobs given run with them. */
  g_autoptr (JsonParser) parser = json_parser_new ();
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "128", "--size", "8x8", "--sink", "sim", "--no-db", "--json",
               NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *o = parse_object (r.out, parser);
  g_assert_cmpint (json_object_get_int_member (o, "batch_size"), ==, 64);
  g_assert_cmpint (json_object_get_int_member (o, "prefetch"), ==, 2);
  g_assert_false (json_object_get_boolean_member (o, "persistent"));
  g_assert_cmpfloat (json_object_get_double_member (o, "model_ms"), ==, 20);
  g_assert_cmpstr (json_object_get_string_member (o, "pin"), ==, "off");
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("sweep", "--dataset", "synthetic", "--count", "128", "--size", "8x8", "--sink", "sim", "--workers", "1",
               "--no-db", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p2 = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p2, r.out, -1, NULL));
  o = json_array_get_object_element (json_node_get_array (json_parser_get_root (p2)), 0);
  g_assert_cmpint (json_object_get_int_member (o, "batch_size"), ==, 64);
  g_assert_false (json_object_get_boolean_member (o, "persistent"));
  g_assert_cmpfloat (json_object_get_double_member (o, "model_ms"), ==, 20);
  ls_test_cli_clear (&r);
}

/* The lines of the table: from the header ("run ...") to the first line
 * that is not a row. */
static GPtrArray *
table_lines (const char *out)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  gboolean in = FALSE;
  for (guint i = 0; lines[i]; i++)
    {
      if (g_str_has_prefix (lines[i], "run "))
        in = TRUE;
      else if (in && !g_ascii_isdigit (lines[i][0]) && lines[i][0] != '-')
        break;
      if (in)
        g_ptr_array_add (rows, g_strdup (lines[i]));
    }
  return rows;
}

static void
test_sweep_prints_the_recommendation (void)
{
  ls_test_cli r = ls_test_loadscope ("sweep", "--dataset", "synthetic", "--count", "256", "--size", "8x8", "--workers", "0,1",
                          "--sink", "sim", "--model-ms", "1", "--no-db", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (GPtrArray) rows = table_lines (r.out);
  g_assert_cmpuint (rows->len, ==, 3);
  for (guint i = 1; i < rows->len; i++)
    g_assert_cmpuint (strlen (g_ptr_array_index (rows, i)), ==, strlen (g_ptr_array_index (rows, 0)));
  /* The run without workers shows no start method. */
  g_assert_null (strstr (g_ptr_array_index (rows, 1), "fork"));
  g_assert_nonnull (strstr (r.out, "\nRecommendation: Use "));
  g_assert_nonnull (strstr (r.out, "\n  DataLoader(dataset, batch_size=64, num_workers="));
  g_assert_null (strstr (r.out, "1 workers"));
  g_assert_null (strstr (r.out, "0 workers (fork)"));
  ls_test_cli_clear (&r);
}

/* A runner that refuses its input stops the sweep at once (every
 * configuration would be refused alike): exit 2, the reason, one runner,
 * the sweep recorded as failed. */
static void
test_sweep_stops_at_bad_input (void)
{
  g_autofree char *dir = g_dir_make_tmp ("loadscope-test-cli-XXXXXX", NULL);
  g_autofree char *flat = g_build_filename (dir, "flat", NULL);
  g_autofree char *db = g_build_filename (dir, "h.sqlite", NULL);
  g_assert_cmpint (g_mkdir_with_parents (flat, 0700), ==, 0);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/img%d.jpg", flat, i);
      g_assert_true (g_file_set_contents (name, "\xff\xd8\xff\xd9", 4, NULL));
    }
  ls_test_cli r = ls_test_loadscope ("sweep", "--dataset", flat, "--workers", "0,1,2", "--sink", "sim", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "found 3 JPEG files but no class folders"));
  g_assert_nonnull (strstr (r.err, "[1/3] workers=0: the runner refused its input"));
  g_assert_null (strstr (r.err, "[2/3]"));
  g_assert_null (strstr (r.out, "Recommendation"));
  ls_test_cli_clear (&r);
  g_autofree char *status = ls_test_sql_text (db, "SELECT status FROM sweep");
  g_assert_cmpstr (status, ==, "failed");
  ls_test_remove_tree (dir);
}

/* Ctrl-C during a sweep: the interrupted run keeps the table's columns. */
static void
test_interrupted_sweep_keeps_the_columns (void)
{
  const char *exe = g_getenv ("LOADSCOPE");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("loadscope-test-cli-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "h.sqlite", NULL);
  const char *argv[] = { exe, "sweep", "--dataset", "synthetic", "--count", "100000", "--size", "8x8",
                         "--sample-cost-us", "2000", "--workers", "1,2", "--batch-size", "8", "--sink", "sim",
                         "--model-ms", "1", "--batches", "100000", "--db", db, NULL };
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                    &error);
  g_assert_no_error (error);
  /* Until the first run is recorded as running (read straight from the
   * store: a busy machine may take a while to start it). */
  gboolean running = FALSE;
  for (int i = 0; i < 1200 && !running; i++)
    {
      g_usleep (100000);
      running = g_file_test (db, G_FILE_TEST_EXISTS)
                && ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'") > 0;
    }
  if (!running)
    {
      g_subprocess_force_exit (proc);
      ls_test_cli late = { 0 };
      g_subprocess_communicate_utf8 (proc, NULL, NULL, &late.out, &late.err, NULL);
      g_test_message ("no run was recorded as running within 120 s; the sweep said: %s", late.err);
      ls_test_cli_clear (&late);
    }
  g_assert_true (running);
  g_usleep (300000);
  g_subprocess_send_signal (proc, SIGINT);
  ls_test_cli r = { 0 };
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 1);
  g_test_message ("%s%s", r.out, r.err);
  g_autoptr (GPtrArray) rows = table_lines (r.out);
  g_assert_cmpuint (rows->len, ==, 2);
  const char *header = g_ptr_array_index (rows, 0), *row = g_ptr_array_index (rows, 1);
  g_assert_cmpuint (strlen (row), ==, strlen (header));
  g_assert_nonnull (strstr (row, "interrupted"));
  g_assert_cmpint (strstr (row, "interrupted") - row, ==, strstr (header, "status") - header);
  g_assert_nonnull (strstr (r.err, "interrupted"));
  g_assert_nonnull (strstr (r.out, "Recommendation: No run finished"));
  ls_test_cli_clear (&r);
  ls_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/cli/run-prints-the-contract-summary", test_run_prints_the_contract_summary);
  g_test_add_func ("/app/cli/sim-sink-summary-is-labelled", test_sim_sink_summary_is_labelled);
  g_test_add_func ("/app/cli/failed-run-exits-1-with-reason", test_failed_run_exits_1_with_reason);
  g_test_add_func ("/app/cli/bad-usage-exits-2-naming-the-problem", test_bad_usage_exits_2_naming_the_problem);
  g_test_add_func ("/app/cli/help-and-version", test_help_and_version);
  g_test_add_func ("/app/cli/machine-json-says-whether-a-gpu-answered", test_machine_json_says_whether_a_gpu_answered);
  g_test_add_func ("/app/cli/machine-names-the-cuda-driver", test_machine_names_the_cuda_driver);
  g_test_add_func ("/app/cli/one-set-of-defaults", test_one_set_of_defaults);
  g_test_add_func ("/app/cli/sweep-prints-the-recommendation", test_sweep_prints_the_recommendation);
  g_test_add_func ("/app/cli/interrupted-sweep-keeps-the-columns", test_interrupted_sweep_keeps_the_columns);
  g_test_add_func ("/app/cli/sweep-stops-at-bad-input", test_sweep_stops_at_bad_input);
  return ls_test_run_checked_shm_only ();
}
