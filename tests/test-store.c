/* The run store and sweeps: migrations, bad files, a runner killed in the
 * middle of a run, a sweep that goes on, and what a sweep records. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>

#include "app/core/error-bridge.h"
#include "app/store/run-recorder.h"
#include "app/store/store-private.h"
#include "app/store/store-query.h"
#include "test-sql.h"
#include "test-cli-util.h"
#include "test-util.h"

static const char *tmp_dir;

static void
test_old_store_is_migrated (void)
{
  g_autofree char *path = ls_test_tmp_path ("v1.sqlite");
  g_autoptr (GError) error = NULL;
  ls_store *store = ls_store_open_existing (path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &error);

  g_assert_no_error (error);
  g_assert_true (ls_store_migrate_to (store, 1, &error));
  g_assert_cmpint (ls_store_schema_version (store), ==, 1);
  /* A run as version 1 wrote it: its figures only in the summary. */
  g_assert_true (ls_store_exec (
      store,
      "INSERT INTO machine (fingerprint, hostname, os, kernel, arch, cpu_model, logical_cores, ram_bytes) "
      "VALUES ('f', 'h', 'os', 'k', 'x86_64', 'cpu', 2, 1);"
      "INSERT INTO sweep (uuid, machine_id, started_at, status, grid, configurations, repeat) "
      "VALUES ('s1', 1, '2026-11-01T00:00:00Z', 'done', '{}', 1, 1);"
      "INSERT INTO run (uuid, machine_id, sweep_id, started_at, status, dataset, format, workers, start_method, batch_size, "
      "prefetch, persistent, shuffle, drop_last, in_order, seed, timeout_s, on_error, output, epochs, max_batches, "
      "warmup, sink, simulated, summary) VALUES ('u1', 1, 1, '2026-11-01T00:00:00Z', 'done', 'd', 'jpeg-dir', 2, 'fork', "
      "64, 2, 0, 1, 0, 1, 0, 60, 'fail', 'f32-chw', 1, 0, 2, 'none', 0, "
      "'{\"throughput_sps\": 1234.5, \"batch_wait_ms\": {\"p50\": 1.5}, \"memory\": {\"pss_peak_bytes\": 99}}');"
      "INSERT INTO batch (run_id, seq, epoch, batch, samples, ready_ms, wait_ms) VALUES (1, 0, 0, 0, 64, 1, 1);",
      &error));
  g_assert_no_error (error);
  ls_store_close (store);

  store = ls_store_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ls_store_schema_version (store), ==, LS_STORE_SCHEMA_VERSION);
  ls_store_close (store);
  g_autofree char *t = ls_test_sql_text (path, "SELECT throughput_sps || '/' || wait_p50_ms || '/' || pss_peak_bytes FROM run");
  g_assert_cmpstr (t, ==, "1234.5/1.5/99");
  /* The old batch row gained the device columns, empty. */
  g_assert_cmpint (ls_test_sql_int (path, "SELECT count(*) FROM batch WHERE copy_ms IS NULL"), ==, 1);
  /* Version 3 rebuilt the sweep table: the run keeps its sweep, which can
   * now fail with a reason, and references are enforced again after. */
  g_assert_cmpint (ls_test_sql_int (path, "SELECT sweep_id FROM run WHERE uuid = 'u1'"), ==, 1);
  store = ls_store_open (path, &error);
  g_assert_no_error (error);
  g_assert_true (ls_store_sweep_end (store, 1, "failed", "no class folders", &error));
  g_assert_no_error (error);
  g_autofree char *why = ls_test_sql_text (path, "SELECT status || ': ' || error FROM sweep WHERE id = 1");
  g_assert_cmpstr (why, ==, "failed: no class folders");
  /* Version 5: a sweep from before has no owner, so no open touches it. */
  g_assert_cmpint (ls_test_sql_int (path, "SELECT count(*) FROM sweep WHERE owner_pid IS NULL"), ==, 1);
  g_assert_true (ls_store_exec (store, "DELETE FROM sweep WHERE id = 1", &error));
  ls_store_close (store);
  g_assert_cmpint (ls_test_sql_int (path, "SELECT count(*) FROM run WHERE sweep_id IS NULL"), ==, 1);
}

static void
test_bad_files_are_refused (void)
{
  g_autofree char *future = ls_test_tmp_path ("future.sqlite");
  g_autofree char *junk = ls_test_tmp_path ("junk.sqlite");
  g_autoptr (GError) error = NULL;
  ls_store *store = ls_store_open (future, &error);

  g_assert_no_error (error);
  g_assert_true (ls_store_exec (store, "PRAGMA user_version = 99", &error));
  ls_store_close (store);
  store = ls_store_open (future, &error);
  g_assert_null (store);
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_VERSION);
  g_assert_nonnull (strstr (error->message, "newer Loadscope"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (junk, "these are not the bytes of an SQLite database, not at all", -1, NULL));
  store = ls_store_open (junk, &error);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, "not a Loadscope store"));
  g_assert_nonnull (strstr (error->message, junk));
}

static void
test_read_only_store_is_a_clear_error (void)
{
  g_autofree char *path = ls_test_tmp_path ("ro.sqlite");
  g_autoptr (GError) error = NULL;
  ls_store *store = ls_store_open (path, &error);
  g_assert_no_error (error);
  gint64 machine = ls_store_this_machine (store, NULL, NULL, &error);
  ls_store_close (store);

  store = ls_store_open_existing (path, SQLITE_OPEN_READONLY, &error);
  g_assert_no_error (error);
  ls_run_config config;
  ls_run_result so_far;
  memset (&config, 0, sizeof config);
  memset (&so_far, 0, sizeof so_far);
  ls_pool_config_init (&config.pool);
  g_strlcpy (config.pool.dataset.kind, "synthetic", sizeof config.pool.dataset.kind);
  g_assert_null (ls_run_recorder_begin (store, machine, 0, &config, &so_far, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_READONLY);
  g_assert_nonnull (strstr (error->message, "cannot be written"));
  ls_store_close (store);
}

/* ls_store_rows: the store's reader for reports, with no SQLite type in
 * sight: columns by type, nulls, the end, a missing row, bad SQL. */
static void
test_rows_read_a_query (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = ls_test_tmp_path ("rows.sqlite");
  g_autoptr (ls_store) store = ls_store_open (path, &error);
  g_assert_no_error (error);
  gint64 machine = ls_store_this_machine (store, NULL, NULL, &error);
  g_assert_no_error (error);

  g_autoptr (ls_store_rows) rows
      = ls_store_rows_new (store, "SELECT id, hostname, NULL, 1.5 FROM machine WHERE id = ?", &machine, 1,
                           "reading machines", &error);
  g_assert_no_error (error);
  g_assert_true (ls_store_rows_next (rows, &error));
  g_assert_cmpint (ls_store_rows_get_int (rows, 0), ==, machine);
  g_autofree char *host = ls_store_rows_dup_text (rows, 1);
  g_assert_cmpstr (host, ==, ls_test_host_name ());
  g_assert_cmpstr (ls_store_rows_get_text (rows, 1), ==, host);
  g_assert_true (ls_store_rows_is_null (rows, 2));
  g_assert_null (ls_store_rows_dup_text (rows, 2));
  g_assert_true (isnan (ls_store_rows_get_double (rows, 2)));
  g_assert_cmpfloat (ls_store_rows_get_double (rows, 3), ==, 1.5);
  g_assert_false (ls_store_rows_next (rows, &error));
  g_assert_no_error (error);

  g_autoptr (ls_store_rows) one
      = ls_store_rows_new_for_id (store, "SELECT hostname FROM machine WHERE id = ?", machine, "machine", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ls_store_rows_get_text (one, 0), ==, host);
  g_assert_false (ls_store_rows_next (one, &error));
  g_assert_no_error (error);

  g_assert_null (ls_store_rows_new_for_id (store, "SELECT hostname FROM machine WHERE id = ?", 999, "machine", &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_suffix (error->message, ": no machine 999"));
  g_clear_error (&error);

  g_assert_null (ls_store_rows_new (store, "SELECT nothing FROM nowhere", NULL, 0, "reading nowhere", &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_SQL);
  g_assert_nonnull (strstr (error->message, "reading nowhere: "));
  g_clear_error (&error);

  /* show's readers: a machine with no runs has no workers and no samples. */
  g_autoptr (JsonArray) workers = ls_store_run_workers (store, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (workers), ==, 0);
  g_assert_cmpint (ls_store_run_n_samples (store, 1, &error), ==, 0);
  g_assert_no_error (error);
}

/* The one ls_error -> GError bridge keeps the message and maps the code. */
static void
test_loader_errors_become_gerrors (void)
{
  static const struct {
    int code;
    ls_loader_error want;
  } map[] = {
    { LS_OK, LS_LOADER_ERROR_FAILED },           { LS_ERR_OS, LS_LOADER_ERROR_OS },
    { LS_ERR_TIMEOUT, LS_LOADER_ERROR_TIMEOUT }, { LS_ERR_INVALID, LS_LOADER_ERROR_INVALID },
    { LS_ERR_NOT_FOUND, LS_LOADER_ERROR_NOT_FOUND }, { LS_ERR_EXEC, LS_LOADER_ERROR_EXEC },
    { LS_ERR_CLOSED, LS_LOADER_ERROR_CLOSED },   { LS_ERR_NOMEM, LS_LOADER_ERROR_NOMEM },
    { LS_ERR_UNSUPPORTED, LS_LOADER_ERROR_UNSUPPORTED }, { -99, LS_LOADER_ERROR_FAILED },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    g_assert_cmpint (ls_loader_error_from_code (map[i].code), ==, map[i].want);

  ls_error err = { 0 };
  GError *error = NULL;
  ls_error_set (&err, LS_ERR_NOT_FOUND, "/data/imgs: %s", "no such folder");
  g_assert_false (ls_error_to_gerror (&err, &error));
  g_assert_error (error, LS_LOADER_ERROR, LS_LOADER_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/data/imgs: no such folder");
  g_clear_error (&error);

  ls_error_clear (&err);
  g_assert_false (ls_error_to_gerror (&err, &error));
  g_assert_error (error, LS_LOADER_ERROR, LS_LOADER_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "unknown error");
  g_clear_error (&error);
  g_assert_false (ls_error_to_gerror (&err, NULL));
}

static void
test_killed_runner_leaves_an_interrupted_run (void)
{
  g_autofree char *db = ls_test_tmp_path ("killed.sqlite");
  g_autoptr (GError) error = NULL;
  /* About 3 ms per batch, far longer than the test waits. */
  g_autoptr (GSubprocess) runner
      = ls_test_cli_start (&error, "run", "--dataset", "synthetic", "--count", "200000", "--size", "8x8", "--sample-cost-us",
                   "200", "--batch-size", "16", "--workers", "1", "--sink", "none", "--db", db, NULL);
  g_assert_no_error (error);

  gint64 seen = 0;
  for (int i = 0; i < 400 && seen < 20; i++)
    {
      g_usleep (25000);
      seen = ls_test_sql_int (db, "SELECT count(*) FROM batch");
    }
  g_assert_cmpint (seen, >=, 20);
  g_subprocess_force_exit (runner); /* SIGKILL; TerminateProcess on Windows */
  g_subprocess_wait (runner, NULL, NULL);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'"), ==, 1);

  /* The next open finds the dead runner's run. */
  ls_store *store = ls_store_open (db, &error);
  g_assert_no_error (error);
  ls_store_close (store);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'interrupted'"), ==, 1);
  g_autofree char *why = ls_test_sql_text (db, "SELECT error FROM run");
  g_assert_nonnull (strstr (why, "stopped before the run finished"));
  /* Everything committed before the kill is there, and the file is sound. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), >=, seen);
  g_autofree char *check = ls_test_sql_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");
}

static void
test_sweep_records_every_configuration (void)
{
  g_autofree char *db = ls_test_tmp_path ("sweep.sqlite");
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GSubprocess) sweep
      = ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers", "0,1,2",
                   "--pin", "off,staging", "--batches", "10", "--model-ms", "1", "--db", db, "--json", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (sweep, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  if (g_subprocess_get_exit_status (sweep) != 0)
    g_test_message ("loadscope sweep: stdout:\n%s\nstderr:\n%s", out, err);
  g_assert_cmpint (g_subprocess_get_exit_status (sweep), ==, 0);

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonArray *runs = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (runs), ==, 6);
  for (guint i = 0; i < 6; i++)
    {
      JsonObject *o = json_array_get_object_element (runs, i);
      g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
      g_assert_cmpint (json_object_get_int_member (o, "workers"), ==, i / 2);
      g_assert_cmpstr (json_object_get_string_member (o, "pin"), ==, i % 2 ? "staging" : "off");
      g_assert_cmpint (json_object_get_int_member (o, "run_id"), >, 0);
    }
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE sweep_id = 1 AND status = 'done'"), ==, 6);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), ==, 60);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT configurations FROM sweep WHERE status = 'done'"), ==, 6);
}

#ifdef G_OS_UNIX /* kills the runner by the pid the store holds */
static void
test_sweep_goes_on_after_a_runner_dies (void)
{
  g_autofree char *db = ls_test_tmp_path ("sweep-kill.sqlite");
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GSubprocess) sweep
      = ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "4000", "--size", "8x8", "--sample-cost-us",
                   "300", "--batch-size", "16", "--workers", "1,2", "--sink", "none", "--batches", "150", "--db", db,
                   NULL);
  g_assert_no_error (error);

  /* Kill the first configuration's runner once it has recorded batches. */
  gint64 pid = 0;
  for (int i = 0; i < 400 && pid <= 0; i++)
    {
      g_usleep (25000);
      if (ls_test_sql_int (db, "SELECT count(*) FROM batch") >= 10)
        pid = ls_test_sql_int (db, "SELECT runner_pid FROM run WHERE status = 'running'");
    }
  g_assert_cmpint (pid, >, 0);
  g_assert_cmpint (kill ((pid_t) pid, SIGKILL), ==, 0);
  g_subprocess_communicate_utf8 (sweep, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  g_test_message ("%s", err);
  /* One run lost: the sweep says so in its status, and finished the rest. */
  g_assert_cmpint (g_subprocess_get_exit_status (sweep), ==, 1);
  g_assert_nonnull (strstr (err, "ended without a summary"));
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'interrupted'"), ==, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done' AND workers = 2"), ==, 1);
}
#endif

static void
test_sweep_refuses_bad_values_before_running (void)
{
  g_autofree char *db = ls_test_tmp_path ("sweep-bad.sqlite");
  struct {
    const char *knob, *value, *message;
  } cases[] = {
    { "--workers", "0,-1", "--workers -1" },
    { "--pin", "off,maybe", "--pin maybe" },
    { "--epochs", "1,2", "--epochs 1,2: this knob takes one value" },
    { "--workers", "1,,2", "an empty value" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (GSubprocess) sweep = ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", cases[i].knob,
                                                 cases[i].value, "--db", db, NULL);
      g_subprocess_communicate_utf8 (sweep, NULL, NULL, &out, &err, &error);
      g_test_message ("%s", err);
      g_assert_cmpint (g_subprocess_get_exit_status (sweep), ==, 2);
      g_assert_nonnull (strstr (err, cases[i].message));
    }
  /* Nothing ran. */
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS) && ls_test_sql_int (db, "SELECT count(*) FROM run") > 0);
}

/* A sweep killed outright (its process and its runner) is marked
 * interrupted by the next writing open, with its run; one whose owner
 * still runs is left alone, and so is one without an owner. */
#ifdef G_OS_UNIX /* kills the sweep and its runner by pid, reuses this pid */
static void
test_killed_sweep_is_marked_interrupted (void)
{
  g_autofree char *db = ls_test_tmp_path ("killed-sweep.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) sweep
      = ls_test_cli_start (&error, "sweep", "--dataset", "synthetic", "--count", "200000", "--size", "8x8", "--sample-cost-us",
                   "200", "--batch-size", "16", "--workers", "1,2", "--sink", "none", "--db", db, NULL);
  g_assert_no_error (error);
  gint64 runner = 0;
  for (int i = 0; i < 4800 && runner <= 0; i++)
    {
      g_usleep (25000);
      if (g_file_test (db, G_FILE_TEST_EXISTS) && ls_test_sql_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'batch'") == 1
          && ls_test_sql_int (db, "SELECT count(*) FROM batch") >= 5)
        runner = ls_test_sql_int (db, "SELECT runner_pid FROM run WHERE status = 'running'");
    }
  g_assert_cmpint (runner, >, 0);
  /* While it runs, an open leaves it alone. */
  ls_store *store = ls_store_open (db, &error);
  g_assert_no_error (error);
  ls_store_close (store);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM sweep WHERE status = 'running'"), ==, 1);

  g_subprocess_send_signal (sweep, SIGKILL);
  g_subprocess_wait (sweep, NULL, NULL);
  g_assert_cmpint (kill ((pid_t) runner, SIGKILL), ==, 0);
  for (int i = 0; i < 400 && kill ((pid_t) runner, 0) == 0; i++)
    g_usleep (10000); /* reaped by init once its parent is gone */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM sweep WHERE status = 'running'"), ==, 1);

  store = ls_store_open (db, &error);
  g_assert_no_error (error);
  /* A sweep whose owner pid is this process's, but with another start
   * time: a reused pid, not its owner. And one without an owner. */
  g_assert_true (ls_store_exec (store,
                                "INSERT INTO sweep (uuid, machine_id, started_at, status, grid, configurations, repeat, "
                                "owner_pid, owner_start) SELECT 'reused', machine_id, started_at, 'running', grid, 1, 1, "
                                "owner_pid, 1 FROM sweep WHERE id = 1;"
                                "INSERT INTO sweep (uuid, machine_id, started_at, status, grid, configurations, repeat) "
                                "SELECT 'ownerless', machine_id, started_at, 'running', grid, 1, 1 FROM sweep WHERE id = 1",
                                &error));
  g_autofree char *reuse = g_strdup_printf ("UPDATE sweep SET owner_pid = %d WHERE uuid = 'reused'", (int) getpid ());
  g_assert_true (ls_store_exec (store, reuse, &error));
  g_assert_no_error (error);
  ls_store_close (store);
  store = ls_store_open (db, &error);
  g_assert_no_error (error);
  ls_store_close (store);
  g_autofree char *why = ls_test_sql_text (db, "SELECT status || ': ' || error FROM sweep WHERE id = 1");
  g_assert_nonnull (strstr (why, "interrupted: its process (pid "));
  g_assert_nonnull (strstr (why, "stopped before the sweep finished"));
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM sweep WHERE uuid = 'reused' AND status = 'interrupted'"),
                   ==, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM sweep WHERE uuid = 'ownerless' AND status = 'running'"),
                   ==, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'"), ==, 0);
  g_autofree char *check = ls_test_sql_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");
}
#endif

/* A run with slow batches (1.5 s each) holds no write transaction between
 * them: another writer that waits at most 100 ms for the lock gets
 * through every time while the run goes on. */
static void
test_slow_run_does_not_lock_out_writers (void)
{
  g_autofree char *db = ls_test_tmp_path ("slow.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) runner
      = ls_test_cli_start (&error, "run", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--batch-size", "8",
                   "--batches", "6", "--warmup", "1", "--sink", "sim", "--model-ms", "1500", "--db", db, NULL);
  g_assert_no_error (error);
  for (int i = 0; i < 2400 && !(g_file_test (db, G_FILE_TEST_EXISTS)
                                && ls_test_sql_int (db, "SELECT count(*) FROM sqlite_master WHERE name = 'batch'") == 1
                                && ls_test_sql_int (db, "SELECT count(*) FROM batch") >= 1);
       i++)
    g_usleep (25000);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), >=, 1);

  g_setenv ("LOADSCOPE_STORE_BUSY_MS", "100", TRUE);
  ls_store *store = ls_store_open (db, &error);
  g_assert_no_error (error);
  gint64 machine = ls_store_this_machine (store, NULL, NULL, &error);
  g_assert_no_error (error);
  guint writes = 0;
  for (int i = 0; i < 12 && ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'") == 1; i++)
    {
      /* A write of its own, as another runner's would be. */
      gint64 id = ls_store_sweep_begin (store, machine, "{}", 1, 1, &error);
      g_assert_no_error (error);
      g_assert_cmpint (id, >, 0);
      g_assert_true (ls_store_sweep_end (store, id, "done", NULL, &error));
      g_assert_no_error (error);
      writes++;
      g_usleep (400000);
    }
  ls_store_close (store);
  g_unsetenv ("LOADSCOPE_STORE_BUSY_MS");
  g_assert_true (g_subprocess_wait_check (runner, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("%u writes while the run went on", writes);
  g_assert_cmpuint (writes, >=, 3);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done'"), ==, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch"), ==, 6);
}

#ifdef G_OS_UNIX
#include <sys/wait.h>
#include <unistd.h>

/* Several processes opening one new store at once (a sweep's runners, the
 * window and a CLI command): each reads the schema version before any has
 * written it, and each must still end with the whole schema, no step taken
 * twice ("duplicate column name"). Released together by a pipe's close. */
static void
test_concurrent_first_opens (void)
{
  enum { ROUNDS = 5, OPENERS = 4 };
  for (int round = 0; round < ROUNDS; round++)
    {
      g_autofree char *name = g_strdup_printf ("concurrent-%d.sqlite", round);
      g_autofree char *path = ls_test_tmp_path (name);
      int gate[2];
      g_assert_cmpint (pipe (gate), ==, 0);
      pid_t pids[OPENERS];
      for (int i = 0; i < OPENERS; i++)
        {
          pids[i] = fork ();
          g_assert_cmpint (pids[i], >=, 0);
          if (pids[i] == 0)
            {
              char c;
              close (gate[1]);
              while (read (gate[0], &c, 1) > 0)
                ;
              GError *error = NULL;
              ls_store *store = ls_store_open (path, &error);
              if (!store)
                {
                  fprintf (stderr, "opener %d: %s\n", i, error->message);
                  _exit (1);
                }
              ls_store_close (store);
              _exit (0);
            }
        }
      close (gate[0]);
      close (gate[1]); /* all of them go */
      for (int i = 0; i < OPENERS; i++)
        {
          int status = 0;
          g_assert_cmpint (waitpid (pids[i], &status, 0), ==, pids[i]);
          g_assert_true (WIFEXITED (status));
          g_assert_cmpint (WEXITSTATUS (status), ==, 0);
        }
      g_assert_cmpint (ls_test_sql_int (path, "PRAGMA user_version"), ==, LS_STORE_SCHEMA_VERSION);
    }
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("ls-store-XXXXXX");
  g_test_add_func ("/app/store/old-store-is-migrated", test_old_store_is_migrated);
#ifdef G_OS_UNIX
  g_test_add_func ("/app/store/concurrent-first-opens", test_concurrent_first_opens);
#endif
  g_test_add_func ("/app/store/bad-files-are-refused", test_bad_files_are_refused);
  g_test_add_func ("/app/store/read-only-store-is-a-clear-error", test_read_only_store_is_a_clear_error);
  g_test_add_func ("/app/store/rows-read-a-query", test_rows_read_a_query);
  g_test_add_func ("/app/store/loader-errors-become-gerrors", test_loader_errors_become_gerrors);
  g_test_add_func ("/app/store/killed-runner-leaves-an-interrupted-run", test_killed_runner_leaves_an_interrupted_run);
  g_test_add_func ("/app/sweep/records-every-configuration", test_sweep_records_every_configuration);
#ifdef G_OS_UNIX
  g_test_add_func ("/app/sweep/goes-on-after-a-runner-dies", test_sweep_goes_on_after_a_runner_dies);
#endif
  g_test_add_func ("/app/sweep/refuses-bad-values-before-running", test_sweep_refuses_bad_values_before_running);
#ifdef G_OS_UNIX
  g_test_add_func ("/app/sweep/killed-sweep-is-marked-interrupted", test_killed_sweep_is_marked_interrupted);
#endif
  g_test_add_func ("/app/store/slow-run-does-not-lock-out-writers", test_slow_run_does_not_lock_out_writers);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_tmp_dir_remove ();
  return rc;
}
