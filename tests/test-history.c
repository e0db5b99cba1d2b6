/* history, show and compare over a store the command line filled: a sweep
 * of two simulated-GPU runs, a run without a device over two epochs, and a
 * run that failed (a worker crashed). */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "app/core/recommend.h"
#include "app/core/run-options.h"
#include "app/sweep/sweep-text.h"
#include "app/report/compare-table.h"
#include "test-cli-util.h"
#include "test-util.h"

static char *tmp_dir;
static char *db;

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

static guint
count_lines (const char *text)
{
  guint n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

/* The history as JSON, newest first. */
static JsonArray *
history_json (void)
{
  ls_test_cli r = ls_test_loadscope ("history", "--db", db, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse (r.out);
  ls_test_cli_clear (&r);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  return json_array_ref (json_node_get_array (root));
}

/* The run of the history (newest first) at `index`, as an id string. */
static char *
run_id_at (guint index)
{
  g_autoptr (JsonArray) runs = history_json ();
  return g_strdup_printf ("%" G_GINT64_FORMAT,
                          json_object_get_int_member (json_array_get_object_element (runs, index), "id"));
}

static void
record_runs (void)
{
  ls_test_cli r = ls_test_loadscope ("sweep", "--dataset", "synthetic", "--count", "256", "--size", "16x16", "--workers", "0,1",
                          "--sink", "sim", "--model-ms", "1", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "320", "--size", "16x16", "--workers", "2", "--epochs", "2",
               "--sink", "none", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "256", "--size", "8x8", "--workers", "1", "--crash-at", "2",
               "--sink", "none", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 1);
  ls_test_cli_clear (&r);
}

static void
test_history_table (void)
{
  ls_test_cli r = ls_test_loadscope ("history", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "ID "));
  g_assert_nonnull (strstr (r.out, "IMG/S"));
  g_assert_nonnull (strstr (r.out, "WAIT P95"));
  g_assert_nonnull (strstr (r.out, "PSS MB"));
  /* The knobs runs may differ in alone: batch, prefetch, persistence,
   * model step, and the sweep a run belongs to. */
  const char *header = r.out;
  const char *columns[] = { "BATCH", "PF", "PERS", "MODEL", "SWEEP" };
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    g_assert_nonnull (strstr (header, columns[i]));
  /* Run 1 is the sweep's run without workers: start, prefetch and
   * persistence are "-" there, the model step is 1 ms, the sweep is 1. */
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  const char *run1 = NULL;
  for (guint i = 1; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "1 "))
      run1 = lines[i];
  g_assert_nonnull (run1);
  g_assert_cmpuint (strlen (run1), ==, strlen (lines[0]));
  gsize model_end = (gsize) (strstr (lines[0], "MODEL") - lines[0]) + strlen ("MODEL");
  gsize pf_end = (gsize) (strstr (lines[0], " PF ") - lines[0]) + 3;
  gsize sweep_end = strlen (lines[0]);
  g_assert_cmpint (run1[model_end - 1], ==, '1');
  g_assert_cmpint (run1[model_end], ==, ' ');
  g_assert_cmpint (run1[pf_end - 1], ==, '-');
  g_assert_cmpint (run1[sweep_end - 1], ==, '1');
  /* A header, four runs and the note on the simulated GPU. */
  g_assert_cmpuint (count_lines (r.out), ==, 6);
  g_assert_nonnull (strstr (r.out, "sim*"));
  g_assert_nonnull (strstr (r.out, "* simulated GPU"));
  g_assert_nonnull (strstr (r.out, "failed"));
  g_assert_nonnull (strstr (r.out, ls_test_host_name ()));
  /* Newest first: the failed run, recorded last, is the first line. */
  const char *first = strchr (r.out, '\n') + 1;
  g_assert_cmpint (g_ascii_strtoll (first, NULL, 10), ==, 4);
  g_assert_nonnull (strstr (first, "failed"));
  g_assert_true (strstr (first, "failed") < strchr (first, '\n'));
  ls_test_cli_clear (&r);
}

static void
test_history_json (void)
{
  g_autoptr (JsonArray) runs = history_json ();
  static const char *const fields[] = { "id", "uuid", "started_at", "machine", "dataset", "workers", "start", "pin",
                                        "sink", "simulated", "status", "throughput_sps", "wait_p50_ms", "wait_p95_ms",
                                        "gpu_util_exact", "gpu_util_nvml", "pss_peak_bytes", "sweep_uuid",
                                        "batch_size", "prefetch", "persistent", "model_ms", "non_blocking", "sweep_id" };

  g_assert_cmpuint (json_array_get_length (runs), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      JsonObject *o = json_array_get_object_element (runs, i);
      for (guint f = 0; f < G_N_ELEMENTS (fields); f++)
        g_assert_true (json_object_has_member (o, fields[f]));
      g_assert_cmpstr (json_object_get_string_member (o, "machine"), ==, ls_test_host_name ());
      g_assert_true (g_uuid_string_is_valid (json_object_get_string_member (o, "uuid")));
      if (i > 0)
        g_assert_cmpstr (json_object_get_string_member (o, "started_at"), <=,
                         json_object_get_string_member (json_array_get_object_element (runs, i - 1), "started_at"));
    }
  JsonObject *failed = json_array_get_object_element (runs, 0);
  g_assert_cmpstr (json_object_get_string_member (failed, "status"), ==, "failed");
#ifdef G_OS_WIN32
  g_assert_nonnull (strstr (json_object_get_string_member (failed, "error"), "0xC0000005 (access violation)"));
#else
  g_assert_nonnull (strstr (json_object_get_string_member (failed, "error"), "SIGSEGV"));
#endif
  g_assert_true (json_object_get_null_member (failed, "throughput_sps"));

  JsonObject *none = json_array_get_object_element (runs, 1);
  g_assert_cmpstr (json_object_get_string_member (none, "sink"), ==, "none");
  g_assert_false (json_object_get_boolean_member (none, "simulated"));
  g_assert_true (json_object_get_null_member (none, "pin"));
  g_assert_true (json_object_get_null_member (none, "gpu_util_exact"));
  g_assert_cmpint (json_object_get_int_member (none, "workers"), ==, 2);
  g_assert_cmpfloat (json_object_get_double_member (none, "throughput_sps"), >, 0);
  /* PSS is Linux's; Windows measures private bytes, in the same column */
  g_assert_cmpint (json_object_get_int_member (none, "memory_peak_bytes"), >, 0);

  JsonObject *sim = json_array_get_object_element (runs, 2);
  g_assert_cmpstr (json_object_get_string_member (sim, "sink"), ==, "sim");
  g_assert_true (json_object_get_boolean_member (sim, "simulated"));
  g_assert_cmpstr (json_object_get_string_member (sim, "pin"), ==, "off");
  g_assert_cmpfloat (json_object_get_double_member (sim, "gpu_util_exact"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (sim, "gpu_util_exact"), <=, 1);
  g_assert_cmpfloat (json_object_get_double_member (sim, "wait_p50_ms"), <=,
                     json_object_get_double_member (sim, "wait_p95_ms"));
  g_assert_false (json_object_get_null_member (sim, "sweep_uuid"));
  g_assert_true (json_object_get_null_member (none, "sweep_uuid"));
  g_assert_cmpint (json_object_get_int_member (sim, "sweep_id"), ==, 1);
  g_assert_true (json_object_get_null_member (none, "sweep_id"));
  g_assert_cmpfloat (json_object_get_double_member (sim, "model_ms"), ==, 1);
  g_assert_true (json_object_get_null_member (none, "model_ms"));
  g_assert_false (json_object_get_boolean_member (sim, "persistent"));
  g_assert_false (json_object_get_boolean_member (sim, "non_blocking"));
  g_assert_cmpint (json_object_get_int_member (none, "batch_size"), ==, 64);
  g_assert_cmpint (json_object_get_int_member (none, "prefetch"), ==, 2);
}

static void
test_history_sweep_and_limit (void)
{
  g_autoptr (JsonArray) runs = history_json ();
  g_autofree char *sweep = g_strndup (
      json_object_get_string_member (json_array_get_object_element (runs, 2), "sweep_uuid"), 8);

  ls_test_cli r = ls_test_loadscope ("history", "--db", db, "--json", "--sweep", sweep, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) only = parse (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (only)), ==, 2);
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("history", "--db", db, "--sweep", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_lines (r.out), ==, 4);
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("history", "--db", db, "--json", "--limit", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) one = parse (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (one)), ==, 1);
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("history", "--db", db, "--sweep", "99", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no sweep '99'"));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("history", "--db", db, "--limit", "-1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--limit"));
  ls_test_cli_clear (&r);

  r = ls_test_loadscope ("history", "--db", db, "extra", NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);
}

static void
test_history_without_a_store (void)
{
  g_autofree char *missing = g_build_filename (tmp_dir, "none", "history.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("history", "--db", missing, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "no runs recorded yet"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("history", "--db", missing, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "[]\n");
  ls_test_cli_clear (&r);
  /* Reading creates nothing. */
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
}

static void
test_show_text (void)
{
  g_autoptr (JsonArray) runs = history_json ();
  JsonObject *sim = json_array_get_object_element (runs, 2);
  /* Nine characters take in the first hyphen: a prefix of digits alone
   * would be read as a run id (6 % of random uuids start that way). */
  g_autofree char *prefix = g_strndup (json_object_get_string_member (sim, "uuid"), 9);

  /* By uuid prefix. */
  ls_test_cli r = ls_test_loadscope ("show", prefix, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, json_object_get_string_member (sim, "uuid")));
  g_assert_nonnull (strstr (r.out, "status:              done"));
  g_assert_nonnull (strstr (r.out, "sink:                sim (SIMULATED GPU)"));
  g_assert_nonnull (strstr (r.out, "workers:             1"));
  g_assert_nonnull (strstr (r.out, "prefetch:            2"));
  g_assert_nonnull (strstr (r.out, "model (ms):          1"));
  g_assert_nonnull (strstr (r.out, "throughput:"));
  g_assert_nonnull (strstr (r.out, "samples/s"));
  g_assert_nonnull (strstr (r.out, "% (simulated)"));
  g_assert_nonnull (strstr (r.out, ls_test_host_name ()));
  g_assert_nonnull (strstr (r.out, "#0 epoch 0, pid "));
  g_assert_nonnull (strstr (r.out, "exited with code 0"));
  g_assert_nonnull (strstr (r.out, "recorded: 4 batches"));
  /* The device side per batch: the model step is 1 ms (modelled). */
  g_assert_nonnull (strstr (r.out, "copy per batch:"));
  g_assert_nonnull (strstr (r.out, "compute per batch:   1.000 ms"));
  g_assert_nonnull (strstr (r.out, "epochs:              1\n"));
  ls_test_cli_clear (&r);

  /* --batches: the epochs as run, not the 0 that stands for "as many as
   * needed": 7 batches of 8 from 40 samples take 2 epochs. */
  g_autofree char *other = g_build_filename (tmp_dir, "batches.sqlite", NULL);
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "40", "--size", "8x8", "--batch-size", "8", "--batches",
               "7", "--sink", "none", "--db", other, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("show", "1", "--db", other, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "epochs:              2 run (as many as the batches asked for)"));
  g_assert_null (strstr (r.out, "epochs:              0"));
  g_assert_nonnull (strstr (r.out, "batches:             7\n"));
  /* No device: no copy or compute to show. */
  g_assert_null (strstr (r.out, "copy per batch:"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("show", "1", "--db", other, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"epochs_run\" : 2"));
  ls_test_cli_clear (&r);

  /* By id: the failed run names its error. */
  g_autofree char *failed = run_id_at (0);
  r = ls_test_loadscope ("show", failed, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "status:              failed"));
  g_assert_nonnull (strstr (r.out, "error:"));
#ifdef G_OS_WIN32
  g_assert_nonnull (strstr (r.out, "0xC0000005 (access violation)"));
#else
  g_assert_nonnull (strstr (r.out, "killed by signal 11"));
#endif
  ls_test_cli_clear (&r);
}

static void
test_show_json (void)
{
  g_autofree char *id = run_id_at (1);
  ls_test_cli r = ls_test_loadscope ("show", id, "--db", db, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse (r.out);
  JsonObject *o = json_node_get_object (root);

  /* The stored summary... */
  g_assert_cmpint (json_object_get_int_member (o, "run_id"), ==, g_ascii_strtoll (id, NULL, 10));
  g_assert_true (g_uuid_string_is_valid (json_object_get_string_member (o, "run_uuid")));
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (o, "sink"), ==, "none");
  g_assert_cmpint (json_object_get_int_member (o, "workers"), ==, 2);
  g_assert_true (json_object_has_member (o, "batch_wait_ms"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "worker_startup_ms")), ==, 4);
  /* ...with its machine, knobs, figures and workers. */
  JsonObject *machine = json_object_get_object_member (o, "machine");
  g_assert_cmpstr (json_object_get_string_member (machine, "hostname"), ==, ls_test_host_name ());
  g_assert_cmpint (json_object_get_int_member (machine, "logical_cores"), >, 0);
  g_assert_cmpuint (strlen (json_object_get_string_member (machine, "fingerprint")), ==, 32);
  JsonObject *knobs = json_object_get_object_member (o, "knobs");
  g_assert_cmpint (json_object_get_int_member (knobs, "workers"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (knobs, "epochs"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (knobs, "start_method"), ==, LS_RUN_DEFAULT_START_TEXT);
  g_assert_false (json_object_get_boolean_member (knobs, "persistent"));
  g_assert_true (json_object_get_null_member (knobs, "pin"));
  JsonObject *figures = json_object_get_object_member (o, "figures");
  g_assert_cmpfloat (json_object_get_double_member (figures, "throughput_sps"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (figures, "epoch_boundary_ms"), >, 0);
  g_assert_true (json_object_get_null_member (figures, "gpu_util_exact"));
  JsonArray *workers = json_object_get_array_member (o, "worker_processes");
  g_assert_cmpuint (json_array_get_length (workers), ==, 4);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (workers, 0), "pid"), >, 0);
  g_assert_cmpint (json_object_get_int_member (o, "batches_recorded"), ==, 10);
  ls_test_cli_clear (&r);
}

static void
test_show_bad_usage (void)
{
  ls_test_cli r = ls_test_loadscope ("show", "999", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no run '999'"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("show", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "which run?"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("show", "not-hex!", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);

  /* A prefix two runs share is refused, not guessed. */
  g_autofree char *copy = g_build_filename (tmp_dir, "ambiguous.sqlite", NULL);
  g_autofree char *vacuum = g_strdup_printf ("VACUUM INTO '%s'", copy);
  sqlite3 *s = NULL;
  g_assert_cmpint (sqlite3_open (db, &s), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (s, vacuum, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (s);
  g_assert_cmpint (sqlite3_open (copy, &s), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (s,
                                 "UPDATE run SET uuid = 'abcd' || substr (uuid, 5) WHERE id IN (1, 2);"
                                 "UPDATE run SET uuid = '77771234' || substr (uuid, 9) WHERE id = 3",
                                 NULL, NULL, NULL),
                   ==, SQLITE_OK);
  sqlite3_close (s);
  r = ls_test_loadscope ("show", "abcd", "--db", copy, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "several"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("compare", "abcd", "3", "--db", copy, NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);
  /* A short number is an id only, never the start of a uuid by chance... */
  r = ls_test_loadscope ("show", "7777", "--db", copy, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no run '7777'"));
  ls_test_cli_clear (&r);
  /* ...but 8 digits are the first group of a uuid. */
  r = ls_test_loadscope ("show", "77771234", "--db", copy, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"run_id\" : 3"));
  ls_test_cli_clear (&r);
  /* Fewer than 4 characters of a uuid are not enough. */
  r = ls_test_loadscope ("show", "abc", "--db", copy, NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);
}

static void
test_compare_json (void)
{
  g_autofree char *a = run_id_at (3), *b = run_id_at (2), *c = run_id_at (1);
  ls_test_cli r = ls_test_loadscope ("compare", a, b, c, "--db", db, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse (r.out);
  JsonObject *o = json_node_get_object (root);

  JsonArray *runs = json_object_get_array_member (o, "runs");
  g_assert_cmpuint (json_array_get_length (runs), ==, 3);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (runs, 0), "run_id"), ==,
                   g_ascii_strtoll (a, NULL, 10));
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (runs, 0), "simulated"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (runs, 0), "machine"), ==,
                   ls_test_host_name ());

  static const char *const figures[] = { "throughput_sps", "wait_p50_ms", "wait_p95_ms", "wait_p99_ms",
                                         "gpu_util_exact", "gpu_util_nvml", "pss_peak_bytes", "rss_peak_bytes",
                                         "cpu_percent", "time_to_first_batch_ms", "epoch_boundary_ms" };
  JsonObject *f = json_object_get_object_member (o, "figures");
  for (guint i = 0; i < G_N_ELEMENTS (figures); i++)
    {
      JsonObject *fig = json_object_get_object_member (f, figures[i]);
      g_assert_nonnull (fig);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fig, "values")), ==, 3);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (fig, "delta_percent")), ==, 3);
    }
  JsonObject *t = json_object_get_object_member (f, "throughput_sps");
  JsonArray *values = json_object_get_array_member (t, "values");
  JsonArray *delta = json_object_get_array_member (t, "delta_percent");
  double v0 = json_array_get_double_element (values, 0), v1 = json_array_get_double_element (values, 1);
  g_assert_cmpfloat (json_array_get_double_element (delta, 0), ==, 0);
  g_assert_cmpfloat (fabs (json_array_get_double_element (delta, 1) - (v1 - v0) / v0 * 100), <, 1e-9);
  /* Each change marked as the window and the text mark it. */
  JsonArray *change = json_object_get_array_member (t, "change");
  g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (change, 0)));
  double d1 = json_array_get_double_element (delta, 1);
  g_assert_cmpstr (json_array_get_string_element (change, 1), ==,
                   fabs (d1) < LS_COMPARE_SAME_PERCENT ? "same" : d1 > 0 ? "better" : "worse");
  /* No NVML here, and none for the run without a device. */
  JsonArray *nvml = json_object_get_array_member (json_object_get_object_member (f, "gpu_util_nvml"), "delta_percent");
  g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (nvml, 1)));
  JsonArray *exact = json_object_get_array_member (json_object_get_object_member (f, "gpu_util_exact"), "values");
  g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (exact, 2)));

  JsonObject *differ = json_object_get_object_member (o, "knobs_differ");
  JsonArray *workers = json_object_get_array_member (differ, "workers");
  g_assert_cmpint (json_array_get_int_element (workers, 0), ==, 0);
  g_assert_cmpint (json_array_get_int_element (workers, 1), ==, 1);
  g_assert_cmpint (json_array_get_int_element (workers, 2), ==, 2);
  g_assert_true (json_object_has_member (differ, "sink"));
  g_assert_true (json_object_has_member (differ, "epochs"));
  g_assert_false (json_object_has_member (differ, "batch_size"));
  g_assert_false (json_object_has_member (differ, "start_method"));
  ls_test_cli_clear (&r);
}

static void
test_compare_text (void)
{
  g_autofree char *a = run_id_at (3), *b = run_id_at (2);
  ls_test_cli r = ls_test_loadscope ("compare", a, b, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* Figures first, with the charts' units, each change marked. */
  g_assert_nonnull (strstr (r.out, "\nthroughput "));
  g_assert_nonnull (strstr (r.out, " img/s"));
  g_assert_null (strstr (r.out, "samples/s"));
  g_assert_nonnull (strstr (r.out, "batch wait p99 "));
  g_assert_nonnull (strstr (r.out, " ms"));
  g_assert_nonnull (strstr (r.out, "GPU util (NVML) "));
  g_assert_nonnull (strstr (r.out, "GPU util (exact) "));
  g_assert_null (strstr (r.out, ") ("));
  g_assert_nonnull (strstr (r.out, "epoch boundary "));
  g_assert_true (strstr (r.out, " %, better)") || strstr (r.out, " %, worse)"));
  g_assert_true (strstr (r.out, "figures (change against") < strstr (r.out, "knobs that differ:"));
  g_assert_nonnull (strstr (r.out, "knobs that differ:"));
  g_assert_nonnull (strstr (r.out, "\nworkers "));
  g_assert_nonnull (strstr (r.out, "sim*"));
  ls_test_cli_clear (&r);
}

static void
test_compare_unknown_run (void)
{
  g_autofree char *a = run_id_at (0);
  ls_test_cli r = ls_test_loadscope ("compare", a, "deadbeef", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "no run 'deadbeef'"));
  g_assert_cmpstr (r.out, ==, "");
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("compare", a, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "two runs or more"));
  ls_test_cli_clear (&r);
  g_autofree char *missing = g_build_filename (tmp_dir, "missing.sqlite", NULL);
  r = ls_test_loadscope ("compare", "1", "2", "--db", missing, NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);
}

static JsonObject *
summary (gint64 workers, const char *start, const char *pin, gboolean persistent, double throughput, double pss)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "status", "done");
  json_object_set_int_member (o, "workers", workers);
  json_object_set_string_member (o, "start", start);
  json_object_set_string_member (o, "pin", pin);
  json_object_set_boolean_member (o, "non_blocking", FALSE);
  json_object_set_int_member (o, "batch_size", 64);
  json_object_set_int_member (o, "prefetch", 2);
  json_object_set_boolean_member (o, "persistent", persistent);
  json_object_set_double_member (o, "throughput_sps", throughput);
  json_object_set_double_member (o, "gpu_util_exact", 0.5);
  json_object_set_boolean_member (o, "simulated", TRUE);
  JsonObject *mem = json_object_new ();
  json_object_set_int_member (mem, "pss_peak_bytes", (gint64) pss);
  json_object_set_object_member (o, "memory", mem);
  return o;
}

static void
recommend_one (JsonObject *o, ls_recommendation *rec)
{
  g_autoptr (JsonArray) a = json_array_new ();
  json_array_add_object_element (a, o);
  *rec = ls_recommend (a);
}

/* Its words: "1 worker", never "1 workers"; no start method, prefetch or
 * persistence with 0 workers; "persistent workers on", not a bare
 * "persistent"; and the DataLoader call PyTorch accepts. */
static void
test_recommendation_words (void)
{
  ls_recommendation rec;

  recommend_one (summary (1, "fork", "staging", TRUE, 1000, 1e8), &rec);
  g_assert_cmpint (rec.index, ==, 0);
  g_assert_true (g_str_has_prefix (rec.reason, "Use 1 worker (fork), batch 64, prefetch 2, persistent workers on, "
                                                "pin staging: "));
  g_assert_cmpstr (rec.dataloader, ==,
                   "DataLoader(dataset, batch_size=64, num_workers=1, pin_memory=True, persistent_workers=True, "
                   "prefetch_factor=2)");
  ls_recommendation_clear (&rec);

  recommend_one (summary (0, "fork", "off", TRUE, 1000, 1e8), &rec);
  g_assert_true (g_str_has_prefix (rec.reason, "Use 0 workers (loading in the training process), batch 64, pin off: "));
  g_assert_null (strstr (rec.reason, "fork"));
  g_assert_null (strstr (rec.reason, "persistent"));
  g_assert_cmpstr (rec.dataloader, ==, "DataLoader(dataset, batch_size=64, num_workers=0, pin_memory=False)");
  ls_recommendation_clear (&rec);

  recommend_one (summary (4, "spawn", "off", FALSE, 1000, 1e8), &rec);
  g_assert_true (g_str_has_prefix (rec.reason, "Use 4 workers (spawn), batch 64, prefetch 2, persistent workers off"));
  g_assert_nonnull (strstr (rec.dataloader, "persistent_workers=False, prefetch_factor=2, "
                                            "multiprocessing_context=\"spawn\")"));
  ls_recommendation_clear (&rec);

  /* Within 5 % of the best, the one with less memory. */
  g_autoptr (JsonArray) a = json_array_new ();
  json_array_add_object_element (a, summary (2, "fork", "off", FALSE, 1000, 3e8));
  json_array_add_object_element (a, summary (1, "fork", "off", FALSE, 970, 2e8));
  rec = ls_recommend (a);
  g_assert_cmpint (rec.index, ==, 1);
  g_assert_nonnull (strstr (rec.reason, "within 5 % of the best (1000 samples/s)"));
  ls_recommendation_clear (&rec);

  /* Nothing finished: nothing to recommend, and no DataLoader line. */
  g_autoptr (JsonArray) failed = json_array_new ();
  JsonObject *f = summary (2, "fork", "off", FALSE, 1000, 1e8);
  json_object_set_string_member (f, "status", "failed");
  json_array_add_object_element (failed, f);
  rec = ls_recommend (failed);
  g_assert_cmpint (rec.index, ==, -1);
  g_assert_null (rec.dataloader);
  ls_recommendation_clear (&rec);
}

/* The progress line says "starting…" until the runner has said how many
 * batches it plans: never "batch 0/0". */
static void
test_sweep_progress_text (void)
{
  g_autofree char *starting = ls_sweep_progress_text (2, 8, "workers=1", 0, 0, FALSE, 7);
  g_assert_cmpstr (starting, ==, "[2/8] workers=1  starting\u2026  0:07 elapsed, ETA 0:49");
  g_autofree char *going = ls_sweep_progress_text (2, 8, "workers=1", 10, 40, TRUE, 7);
  g_assert_cmpstr (going, ==, "[2/8] workers=1  batch 10/40  0:07 elapsed, ETA 0:37");
  g_autofree char *first = ls_sweep_progress_text (1, 8, "workers=0", 0, 0, FALSE, 0);
  g_assert_null (strstr (first, "0/0"));
  g_assert_nonnull (strstr (first, "ETA --"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("loadscope-test-history-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  db = g_build_filename (tmp_dir, "history.sqlite", NULL);
  record_runs ();

  g_test_add_func ("/app/history/table-newest-first", test_history_table);
  g_test_add_func ("/app/history/json-fields", test_history_json);
  g_test_add_func ("/app/history/sweep-and-limit", test_history_sweep_and_limit);
  g_test_add_func ("/app/history/without-a-store", test_history_without_a_store);
  g_test_add_func ("/app/show/text", test_show_text);
  g_test_add_func ("/app/show/json", test_show_json);
  g_test_add_func ("/app/show/bad-usage-and-ambiguous-prefix", test_show_bad_usage);
  g_test_add_func ("/app/compare/json", test_compare_json);
  g_test_add_func ("/app/compare/text", test_compare_text);
  g_test_add_func ("/app/compare/unknown-run-exits-2", test_compare_unknown_run);
  g_test_add_func ("/app/recommend/words", test_recommendation_words);
  g_test_add_func ("/app/sweep/progress-text", test_sweep_progress_text);
  int status = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  g_free (db);
  g_free (tmp_dir);
  return status;
}
