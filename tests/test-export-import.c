/* export (csv, json, sqlite bundles) and import: round trips into fresh
 * stores, runs kept once by uuid, the source machine kept, and every kind
 * of bad file rejected with its reason and the store left as it was. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "app/store/export-format-private.h"
#include "app/store/store-private.h"
#include "platform/sysinfo.h"
#include "test-cli-util.h"
#include "test-util.h"

static const char *tmp_dir;
static char *db; /* the source: a sweep of 2 runs and 1 run on its own */

/* Runs loadscope; busy_ms >= 0 sets LOADSCOPE_STORE_BUSY_MS. */
static ls_test_cli
run_cli_env (int busy_ms, const char *first, va_list ap)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) a);
  g_ptr_array_add (args, NULL);
  g_autofree char *busy = busy_ms >= 0 ? g_strdup_printf ("LOADSCOPE_STORE_BUSY_MS=%d", busy_ms) : NULL;
  const char *env[] = { busy, NULL };
  return ls_test_loadscope_env (env, (const char *const *) args->pdata);
}

static ls_test_cli
run_cli (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = run_cli_env (-1, first, ap);
  va_end (ap);
  return r;
}

static ls_test_cli
run_cli_busy (int busy_ms, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = run_cli_env (busy_ms, first, ap);
  va_end (ap);
  return r;
}

static gint64
query_int (const char *path, const char *sql)
{
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  gint64 v = -1;
  g_assert_cmpint (sqlite3_open_v2 (path, &s, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (s, sql, -1, &st, NULL), ==, SQLITE_OK);
  if (sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (s);
  return v;
}

static void expect_rejected (const char *store, const char *file, const char *says, int status);

static double
query_double (const char *path, const char *sql)
{
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  double v = NAN;
  g_assert_cmpint (sqlite3_open_v2 (path, &s, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (s, sql, -1, &st, NULL), ==, SQLITE_OK);
  if (sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_double (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (s);
  return v;
}

static void
exec_sql (const char *path, const char *sql)
{
  sqlite3 *s = NULL;
  char *msg = NULL;
  g_assert_cmpint (sqlite3_open (path, &s), ==, SQLITE_OK);
  if (sqlite3_exec (s, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
  sqlite3_close (s);
}

/* "runs/batches/samples/workers/machines/sweeps" of a store. */
static char *
row_counts (const char *path)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                          "/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                          query_int (path, "SELECT count (*) FROM run"), query_int (path, "SELECT count (*) FROM batch"),
                          query_int (path, "SELECT count (*) FROM sample"),
                          query_int (path, "SELECT count (*) FROM worker"),
                          query_int (path, "SELECT count (*) FROM machine"),
                          query_int (path, "SELECT count (*) FROM sweep"));
}

static JsonNode *
load_json (const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

static void
save_json (JsonNode *root, const char *path)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (GError) error = NULL;
  json_generator_set_root (gen, root);
  g_assert_true (json_generator_to_file (gen, path, &error));
  g_assert_no_error (error);
}

/* A fresh store, created by the CLI (an empty history). */
static char *
fresh_store (const char *name)
{
  char *path = ls_test_tmp_path (name);
  g_autofree char *glob = g_strconcat (path, "-wal", NULL);
  g_unlink (path);
  g_unlink (glob);
  g_autoptr (GError) error = NULL;
  ls_store *s = ls_store_open (path, &error);
  g_assert_no_error (error);
  ls_store_close (s);
  return path;
}

static char *
export_to (const char *format, const char *name, const char *what, const char *ref)
{
  char *out = ls_test_tmp_path (name);
  ls_test_cli r = ref ? run_cli ("export", what, ref, "--format", format, "-o", out, "--force", "--db", db, NULL)
                     : run_cli ("export", what, "--format", format, "-o", out, "--force", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "exported "));
  ls_test_cli_clear (&r);
  return out;
}

static void
record_runs (void)
{
  ls_test_cli r = run_cli ("sweep", "--dataset", "synthetic", "--count", "256", "--size", "16x16", "--workers", "0,1",
                          "--sink", "sim", "--model-ms", "1", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = run_cli ("run", "--dataset", "synthetic", "--count", "320", "--size", "16x16", "--workers", "2", "--sink",
               "none", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
}

/* Every column of the store is exported and checked on import: a schema
 * step that adds one must say how (app/store/export-format.c). */
static void
test_fields_cover_the_schema (void)
{
  const ls_record_kind *kinds[] = { &ls_record_machine, &ls_record_sweep, &ls_record_run,
                                    &ls_record_batch,   &ls_record_sample, &ls_record_worker };
  g_autofree char *store = fresh_store ("schema.sqlite");
  sqlite3 *s = NULL;

  g_assert_cmpint (sqlite3_open (store, &s), ==, SQLITE_OK);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *sql = g_strdup_printf ("PRAGMA table_info (%s)", kinds[k]->table);
      sqlite3_stmt *st = NULL;
      guint columns = 0;
      g_assert_cmpint (sqlite3_prepare_v2 (s, sql, -1, &st, NULL), ==, SQLITE_OK);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          const char *col = (const char *) sqlite3_column_text (st, 1);
          columns++;
          if (strcmp (col, "id") == 0 || strcmp (col, "run_id") == 0)
            continue;
          const char *name = strcmp (col, "machine_id") == 0 ? "machine_fingerprint"
                             : strcmp (col, "sweep_id") == 0 ? "sweep_uuid"
                                                             : col;
          if (!ls_record_field (kinds[k], name))
            g_error ("%s.%s is neither exported nor checked on import", kinds[k]->table, col);
        }
      sqlite3_finalize (st);
      g_assert_cmpuint (columns, >, 0);
    }
  sqlite3_close (s);
  /* The rows of a run do not hide its own fields in JSON. */
  for (guint k = 3; k < G_N_ELEMENTS (kinds); k++)
    g_assert_null (ls_record_field (&ls_record_run, kinds[k]->plural));
}

static void
test_export_csv (void)
{
  g_autofree char *path = export_to ("csv", "runs.csv", "--all", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\r\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 3 + 1); /* header, 3 runs, "" after the last */
  g_auto (GStrv) header = g_strsplit (lines[0], ",", -1);
  static const char *const want[] = { "run_id", "uuid", "workers", "start_method", "batch_size", "prefetch",
                                      "persistent", "pin", "sink", "simulated", "status", "throughput_sps",
                                      "wait_p50_ms", "wait_p95_ms", "wait_p99_ms", "gpu_util_exact", "gpu_util_nvml",
                                      "pss_peak_bytes", "cpu_percent", "time_to_first_batch_ms", "machine_hostname",
                                      "machine_os", "machine_cpu_model", "machine_fingerprint", "sweep_uuid" };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_true (g_strv_contains ((const char *const *) header, want[i]));
  g_assert_false (g_strv_contains ((const char *const *) header, "summary"));
  for (guint i = 1; i <= 3; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], ",", -1);
      g_assert_cmpuint (g_strv_length (cells), ==, g_strv_length (header));
      g_assert_nonnull (strstr (lines[i], ls_test_host_name ()));
    }

  /* Numbers in the fewest digits that read back exactly: the timeout 60
   * as "60", the throughput as the store has it, not 17 digits of noise. */
  guint tput_col = 0, timeout_col = 0, run_col = 0;
  for (guint i = 0; header[i]; i++)
    {
      if (strcmp (header[i], "throughput_sps") == 0)
        tput_col = i;
      if (strcmp (header[i], "timeout_s") == 0)
        timeout_col = i;
    }
  g_assert_cmpuint (tput_col, >, 0);
  for (guint i = 1; i <= 3; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], ",", -1);
      gint64 id = g_ascii_strtoll (cells[run_col], NULL, 10);
      g_autofree char *sql = g_strdup_printf ("SELECT throughput_sps FROM run WHERE id = %" G_GINT64_FORMAT, id);
      g_assert_cmpstr (cells[timeout_col], ==, "60");
      g_assert_cmpfloat (g_ascii_strtod (cells[tput_col], NULL), ==, query_double (db, sql));
      /* Shorter than the 17 significant digits %.17g writes, unless needed. */
      char longest[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (longest, sizeof longest, "%.17g", query_double (db, sql));
      g_assert_cmpuint (strlen (cells[tput_col]), <=, strlen (longest));
    }
  /* 0.1 and a third, as the exporter writes them. */
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_assert_cmpstr (ls_format_double (buf, sizeof buf, 0.1), ==, "0.1");
  g_assert_cmpstr (ls_format_double (buf, sizeof buf, 1234.5), ==, "1234.5");
  g_assert_cmpstr (ls_format_double (buf, sizeof buf, 60), ==, "60");
  g_assert_cmpfloat (g_ascii_strtod (ls_format_double (buf, sizeof buf, 1.0 / 3), NULL), ==, 1.0 / 3);
  g_assert_cmpfloat (g_ascii_strtod (ls_format_double (buf, sizeof buf, 6.02214076e23), NULL), ==, 6.02214076e23);

  g_autofree char *batches = ls_test_tmp_path ("batches.csv");
  ls_test_cli r = run_cli ("export", "--all", "--format", "csv", "--batches", "-o", batches, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_autofree char *btext = NULL;
  g_assert_true (g_file_get_contents (batches, &btext, NULL, NULL));
  g_auto (GStrv) blines = g_strsplit (btext, "\r\n", -1);
  g_assert_cmpstr (blines[0], ==,
                   "run_id,seq,epoch,batch,samples,ready_ms,wait_ms,copy_ms,compute_ms,read_ms,decode_ms,transform_ms,"
                   "write_ms,idle_ms,busy_ms,sampler_ms,getitem_ms,collate_ms,handoff_ms,pin_ms,worker,build_start_ms,build_end_ms");
  g_assert_cmpint (g_strv_length (blines), ==, 1 + query_int (db, "SELECT count (*) FROM batch") + 1);
  g_assert_true (g_str_has_prefix (blines[1], "1,0,0,0,64,"));

  /* To stdout. */
  r = run_cli ("export", "--run", "3", "--format", "csv", "-o", "-", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "run_id,uuid,"));
  g_assert_nonnull (strstr (r.out, "\r\n3,"));
  ls_test_cli_clear (&r);
}

static void
test_export_json (void)
{
  g_autofree char *path = export_to ("json", "all.json", "--all", NULL);
  g_autoptr (JsonNode) root = load_json (path);
  JsonObject *o = json_node_get_object (root);

  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "loadscope-export");
  g_assert_cmpint (json_object_get_int_member (o, "version"), ==, LS_STORE_SCHEMA_VERSION);
  g_assert_nonnull (json_object_get_string_member (o, "exported_at"));
  JsonArray *machines = json_object_get_array_member (o, "machines");
  g_assert_cmpuint (json_array_get_length (machines), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (machines, 0), "hostname"), ==,
                   ls_test_host_name ());
  JsonArray *sweeps = json_object_get_array_member (o, "sweeps");
  g_assert_cmpuint (json_array_get_length (sweeps), ==, 1);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_array_get_object_element (sweeps, 0), "grid")));
  JsonArray *runs = json_object_get_array_member (o, "runs");
  g_assert_cmpuint (json_array_get_length (runs), ==, 3);

  guint batches = 0, samples = 0, workers = 0;
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      /* The run's own knob and figure, apart from its rows. */
      g_assert_cmpint (json_object_get_int_member (run, "workers"), ==, i);
      g_assert_cmpint (json_object_get_int_member (run, "samples"), >, 0);
      g_assert_true (g_uuid_string_is_valid (json_object_get_string_member (run, "uuid")));
      g_assert_cmpuint (strlen (json_object_get_string_member (run, "machine_fingerprint")), ==, 32);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (json_object_get_member (run, "summary")));
      g_assert_cmpint (json_object_get_boolean_member (run, "persistent"), ==, FALSE);
      g_assert_true (json_object_has_member (run, "throughput_sps"));
      g_assert_false (json_object_has_member (run, "id"));
      batches += json_array_get_length (json_object_get_array_member (run, "batches"));
      samples += json_array_get_length (json_object_get_array_member (run, "series"));
      workers += json_array_get_length (json_object_get_array_member (run, "worker_processes"));
    }
  g_assert_cmpint (batches, ==, query_int (db, "SELECT count (*) FROM batch"));
  g_assert_cmpint (samples, ==, query_int (db, "SELECT count (*) FROM sample"));
  g_assert_cmpint (workers, ==, query_int (db, "SELECT count (*) FROM worker"));
  JsonObject *b0 = json_array_get_object_element (
      json_object_get_array_member (json_array_get_object_element (runs, 0), "batches"), 0);
  g_assert_cmpint (json_object_get_int_member (b0, "seq"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (b0, "samples"), ==, 64);
  g_assert_cmpfloat (json_object_get_double_member (b0, "compute_ms"), ==, 1.0);

  /* One run outside the sweep: no sweep exported with it. */
  g_autofree char *one = export_to ("json", "one.json", "--run", "3");
  g_autoptr (JsonNode) one_root = load_json (one);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (one_root), "runs")), ==,
                    1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (one_root), "sweeps")),
                    ==, 0);
  g_autofree char *sweep = export_to ("json", "sweep.json", "--sweep", "1");
  g_autoptr (JsonNode) sweep_root = load_json (sweep);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (sweep_root), "runs")),
                    ==, 2);
}

static void
test_export_sqlite (void)
{
  g_autofree char *path = export_to ("sqlite", "sweep.sqlite", "--sweep", "1");
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);

  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_cmpint (query_int (path, "PRAGMA user_version"), ==, LS_STORE_SCHEMA_VERSION);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM run"), ==, 2);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM sweep"), ==, 1);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM machine"), ==, 1);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM batch"), ==,
                   query_int (db, "SELECT count (*) FROM batch WHERE run_id IN (1, 2)"));
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM worker"), ==,
                   query_int (db, "SELECT count (*) FROM worker WHERE run_id IN (1, 2)"));
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM sample"), ==,
                   query_int (db, "SELECT count (*) FROM sample WHERE run_id IN (1, 2)"));

  /* An existing file is kept unless --force. */
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", path, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "already exists"));
  ls_test_cli_clear (&r);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM run"), ==, 2);
  r = run_cli ("export", "--all", "--format", "sqlite", "-o", path, "--force", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (query_int (path, "SELECT count (*) FROM run"), ==, 3);
}

static void
test_export_bad_usage (void)
{
  g_autofree char *out = ls_test_tmp_path ("chart.png");
  struct {
    const char *args[8];
    const char *says;
  } cases[] = {
    { { "--all", "--format", "png", "--chart", "wait", "-o", out }, "not a chart of the whole store" },
    { { "--all", "--format", "xml", "-o", out }, "must be csv, json, sqlite, png, svg or pdf" },
    { { "--format", "csv", "-o", out }, "one of --run ID, --sweep ID or --all" },
    { { "--all", "--run", "1", "--format", "csv", "-o", out }, "one of --run ID" },
    { { "--all", "--format", "csv" }, "-o FILE is required" },
    { { "--all", "--format", "json", "--batches", "-o", out }, "--batches is for --format csv" },
    { { "--run", "77", "--format", "csv", "-o", out }, "no run '77'" },
    { { "--sweep", "77", "--format", "csv", "-o", out }, "no sweep '77'" },
    { { "--all", "--format", "sqlite", "-o", "-" }, "cannot go to stdout" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char **a = cases[i].args;
      ls_test_cli r = run_cli ("export", "--db", db, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
      if (r.status != 2 || !strstr (r.err, cases[i].says))
        g_error ("case %u: exit %d, out '%s', err '%s' (wanted 2 and '%s')", i, r.status, r.out, r.err,
                 cases[i].says);
      ls_test_cli_clear (&r);
    }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* The counts on the first line, then one line per run of the file with
 * its id here: "  imported as run 4 (was 1 on host)" or "  already here
 * as run 1 (uuid 3f2a1b9c on host)". */
static void
assert_imported (ls_test_cli *r, int imported, int present, const char *file)
{
  g_autofree char *want = g_strdup_printf ("imported %d run%s (%d already present) from %s\n", imported,
                                           imported == 1 ? "" : "s", present, file);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_true (g_str_has_prefix (r->out, want));
  g_auto (GStrv) lines = g_strsplit (r->out + strlen (want), "\n", -1);
  int n_imported = 0, n_present = 0;
  for (guint i = 0; lines[i] && lines[i][0]; i++)
    {
      n_imported += g_str_has_prefix (lines[i], "  imported as run ");
      n_present += g_str_has_prefix (lines[i], "  already here as run ");
      g_assert_nonnull (strstr (lines[i], " on "));
    }
  g_assert_cmpint (n_imported, ==, imported);
  g_assert_cmpint (n_present, ==, present);
  ls_test_cli_clear (r);
}

static void
test_import_json_round_trip (void)
{
  g_autofree char *file = export_to ("json", "rt.json", "--all", NULL);
  g_autofree char *store = fresh_store ("from-json.sqlite");

  ls_test_cli r = run_cli ("import", file, "--db", store, NULL);
  assert_imported (&r, 3, 0, file);
  g_autofree char *once = row_counts (store);
  g_autofree char *source = row_counts (db);
  g_assert_cmpstr (once, ==, source);
  /* Twice: kept once, by uuid. */
  r = run_cli ("import", file, "--db", store, NULL);
  assert_imported (&r, 0, 3, file);
  g_autofree char *twice = row_counts (store);
  g_assert_cmpstr (twice, ==, once);

  /* The same runs, figures and knobs. */
  const char *same = "SELECT count (*) FROM run a JOIN src.run b USING (uuid) WHERE a.throughput_sps IS b.throughput_sps "
                     "AND a.workers = b.workers AND a.pin IS b.pin AND a.summary IS NOT NULL "
                     "AND a.wait_p95_ms IS b.wait_p95_ms AND a.started_at = b.started_at AND a.status = b.status";
  sqlite3 *s = NULL;
  sqlite3_stmt *st = NULL;
  g_autofree char *attach_sql = g_strdup_printf ("ATTACH '%s' AS src", db);
  g_assert_cmpint (sqlite3_open (store, &s), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (s, attach_sql, NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (s, same, -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (st, 0), ==, 3);
  sqlite3_finalize (st);
  sqlite3_close (s);

  r = run_cli ("history", "--db", store, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "sim*"));
  ls_test_cli_clear (&r);
}

static void
test_import_bundle_round_trip (void)
{
  g_autofree char *file = export_to ("sqlite", "rt.sqlite", "--all", NULL);
  g_autofree char *json = export_to ("json", "rt2.json", "--all", NULL);
  g_autofree char *store = fresh_store ("from-bundle.sqlite");

  ls_test_cli r = run_cli ("import", file, "--db", store, NULL);
  assert_imported (&r, 3, 0, file);
  g_autofree char *once = row_counts (store);
  g_autofree char *source = row_counts (db);
  g_assert_cmpstr (once, ==, source);
  r = run_cli ("import", file, "--db", store, NULL);
  assert_imported (&r, 0, 3, file);
  /* The JSON export of the same runs adds nothing either. */
  r = run_cli ("import", json, "--db", store, NULL);
  assert_imported (&r, 0, 3, json);
  g_autofree char *after = row_counts (store);
  g_assert_cmpstr (after, ==, once);
  /* The bundle was read from a copy: untouched. */
  g_assert_cmpint (query_int (file, "SELECT count (*) FROM run"), ==, 3);

  /* Into a store with a run of its own: the bundle's runs get new ids, and
   * the import says which. */
  g_autofree char *ids = fresh_store ("ids.sqlite");
  r = run_cli ("run", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--sink", "none", "--db", ids, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = run_cli ("import", file, "--db", ids, NULL);
  g_autofree char *was_1 = g_strdup_printf ("  imported as run 2 (was 1 on %s)\n", ls_test_host_name ());
  g_assert_nonnull (strstr (r.out, was_1));
  assert_imported (&r, 3, 0, file);
  r = run_cli ("import", file, "--db", ids, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (o, "runs_imported"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (o, "runs_present"), ==, 3);
  JsonArray *runs = json_object_get_array_member (o, "runs");
  g_assert_cmpuint (json_array_get_length (runs), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      g_autofree char *sql = g_strdup_printf ("SELECT id FROM run WHERE uuid = '%s'",
                                              json_object_get_string_member (run, "uuid"));
      g_assert_cmpint (json_object_get_int_member (run, "run_id"), ==, query_int (ids, sql));
      g_assert_cmpint (json_object_get_int_member (run, "run_id"), ==,
                       json_object_get_int_member (run, "source_run_id") + 1);
      g_assert_cmpstr (json_object_get_string_member (run, "status"), ==, "present");
      g_assert_cmpstr (json_object_get_string_member (run, "source_host"), ==, ls_test_host_name ());
    }
  ls_test_cli_clear (&r);
  /* A CSV export is for spreadsheets, and the refusal says what imports. */
  g_autofree char *csv = export_to ("csv", "not-importable.csv", "--all", NULL);
  expect_rejected (ids, csv, "import reads the .json and .sqlite bundles made by `loadscope export", 2);
}

/* The export as if another machine (a Windows box) had recorded it, with
 * its runs renamed and the last one still running. */
static JsonNode *
as_other_machine (const char *file)
{
  JsonNode *root = load_json (file);
  JsonObject *o = json_node_get_object (root);
  JsonObject *m = json_array_get_object_element (json_object_get_array_member (o, "machines"), 0);
  json_object_set_string_member (m, "hostname", "win-box");
  json_object_set_string_member (m, "os", "Windows 10.0 build 19045");
  json_object_set_string_member (m, "kernel", "10.0.19045");
  json_object_set_string_member (m, "container", "podman");
  g_autofree char *fp = ls_machine_fingerprint ("win-box", "Windows 10.0 build 19045",
                                                json_object_get_string_member (m, "cpu_model"),
                                                json_object_get_int_member (m, "logical_cores"),
                                                json_object_get_int_member (m, "ram_bytes"), "podman");
  json_object_set_string_member (m, "fingerprint", fp);
  JsonArray *sweeps = json_object_get_array_member (o, "sweeps");
  for (guint i = 0; i < json_array_get_length (sweeps); i++)
    json_object_set_string_member (json_array_get_object_element (sweeps, i), "machine_fingerprint", fp);
  JsonArray *runs = json_object_get_array_member (o, "runs");
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      g_autofree char *uuid = g_uuid_string_random ();
      json_object_set_string_member (run, "uuid", uuid);
      json_object_set_string_member (run, "machine_fingerprint", fp);
      if (i + 1 == json_array_get_length (runs))
        {
          json_object_set_string_member (run, "status", "running");
          json_object_set_null_member (run, "finished_at");
        }
    }
  return root;
}

static void
test_import_keeps_the_source_machine (void)
{
  g_autofree char *file = export_to ("json", "mine.json", "--all", NULL);
  g_autofree char *other = ls_test_tmp_path ("other.json");
  g_autoptr (JsonNode) root = as_other_machine (file);
  save_json (root, other);
  g_autofree char *store = fresh_store ("two-machines.sqlite");

  ls_test_cli r = run_cli ("import", file, "--db", store, NULL);
  assert_imported (&r, 3, 0, file);
  r = run_cli ("import", other, "--db", store, NULL);
  assert_imported (&r, 3, 0, other);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM machine"), ==, 2);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM run r JOIN machine m ON m.id = r.machine_id "
                                     "WHERE m.hostname = 'win-box' AND m.os LIKE 'Windows%'"),
                   ==, 3);
  /* Whether each is a container, and which kind, travels with it; this
   * machine's is what it says of itself. */
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM machine WHERE hostname = 'win-box' AND container = 'podman'"),
                   ==, 1);
  ls_sysinfo info;
  ls_error err = { 0 };
  g_assert_cmpint (ls_sysinfo_read (&info, &err), ==, LS_OK);
  /* Windows cannot tell: NULL, "not known". */
  g_autofree char *mine = g_strdup_printf ("SELECT count (*) FROM machine WHERE hostname != 'win-box' AND "
                                           "container IS %s%s%s",
                                           info.container[0] ? "'" : "", info.container[0] ? info.container : "NULL",
                                           info.container[0] ? "'" : "");
  g_assert_cmpint (query_int (store, mine), ==, 1);
  /* The sweep is the same sweep (same uuid): kept once. */
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM sweep"), ==, 1);
  /* A run still running when exported cannot end here. */
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM run WHERE status = 'running'"), ==, 0);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM run WHERE status = 'interrupted' AND error LIKE "
                                     "'%still running when it was exported%' AND runner_pid IS NULL"),
                   ==, 1);

  r = run_cli ("history", "--db", store, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "win-box"));
  g_assert_nonnull (strstr (r.out, "interrupted"));
  ls_test_cli_clear (&r);
  /* Importing into a store of this machine does not replace the other. */
  r = run_cli ("run", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--sink", "none", "--db", store,
               NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM machine"), ==, 2);
}

typedef void (*json_edit) (JsonObject *root);

static void
edit_negative_workers (JsonObject *o)
{
  json_object_set_int_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "workers", -1);
}
static void
edit_status_exploded (JsonObject *o)
{
  json_object_set_string_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "status", "exploded");
}
static void
edit_batch_size_zero (JsonObject *o)
{
  json_object_set_int_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "batch_size", 0);
}
static void
edit_wrong_type (JsonObject *o)
{
  json_object_set_string_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "prefetch", "2");
}
static void
edit_missing_field (JsonObject *o)
{
  json_object_remove_member (json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "seed");
}
static void
edit_bad_uuid (JsonObject *o)
{
  json_object_set_string_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "uuid", "not-a-uuid");
}
static void
edit_negative_wait (JsonObject *o)
{
  JsonObject *run = json_array_get_object_element (json_object_get_array_member (o, "runs"), 2);
  json_object_set_double_member (
      json_array_get_object_element (json_object_get_array_member (run, "batches"), 1), "wait_ms", -0.5);
}
static void
edit_huge_memory (JsonObject *o)
{
  json_object_set_int_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "pss_peak_bytes", G_MAXINT64);
}
static void
edit_unknown_machine (JsonObject *o)
{
  json_object_set_string_member (json_array_get_object_element (json_object_get_array_member (o, "runs"), 2),
                                 "machine_fingerprint", "0123456789abcdef0123456789abcdef");
}
static void
edit_forged_fingerprint (JsonObject *o)
{
  json_object_set_string_member (
      json_array_get_object_element (json_object_get_array_member (o, "machines"), 0), "hostname", "forged");
}
static void
edit_future_version (JsonObject *o)
{
  json_object_set_int_member (o, "version", LS_STORE_SCHEMA_VERSION + 1);
}
static void
edit_container_too_early (JsonObject *o)
{
  /* An export of version 10 had no container field. */
  json_object_set_int_member (o, "version", 10);
}
static void
edit_no_format (JsonObject *o)
{
  json_object_remove_member (o, "format");
}
static void
edit_unknown_field (JsonObject *o)
{
  json_object_set_int_member (json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "colour", 3);
}
static void
edit_duplicate_batch (JsonObject *o)
{
  JsonObject *run = json_array_get_object_element (json_object_get_array_member (o, "runs"), 2);
  JsonArray *batches = json_object_get_array_member (run, "batches");
  json_array_add_element (batches, json_node_copy (json_array_get_element (batches, 0)));
}
static void
edit_simulated_lie (JsonObject *o)
{
  json_object_set_boolean_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 0), "simulated", FALSE);
}
static void
edit_batches_not_array (JsonObject *o)
{
  json_object_set_string_member (
      json_array_get_object_element (json_object_get_array_member (o, "runs"), 2), "batches", "none");
}

static void
expect_rejected (const char *store, const char *file, const char *says, int status)
{
  g_autofree char *before = row_counts (store);
  ls_test_cli r = run_cli ("import", file, "--db", store, NULL);
  if (r.status != status || !strstr (r.err, says))
    g_error ("importing %s: exit %d, '%s' (wanted %d and '%s')", file, r.status, r.err, status, says);
  g_assert_nonnull (strstr (r.err, file));
  g_assert_nonnull (strstr (r.err, "nothing was imported"));
  g_assert_cmpstr (r.out, ==, "");
  ls_test_cli_clear (&r);
  g_autofree char *after = row_counts (store);
  g_assert_cmpstr (after, ==, before);
}

static void
test_import_rejects_bad_json (void)
{
  g_autofree char *good = export_to ("json", "good.json", "--all", NULL);
  g_autofree char *other = ls_test_tmp_path ("other-good.json");
  g_autoptr (JsonNode) other_root = as_other_machine (good);
  save_json (other_root, other);
  /* A store with runs, so that "unchanged" means something; the bad files
   * are of the other machine: their first runs would be new. */
  g_autofree char *store = fresh_store ("target.sqlite");
  ls_test_cli r = run_cli ("import", good, "--db", store, NULL);
  assert_imported (&r, 3, 0, good);

  static const struct {
    json_edit edit;
    const char *says;
  } cases[] = {
    { edit_negative_workers, "runs[2].workers: -1 is out of range" },
    { edit_status_exploded, "runs[2].status: the text \"exploded\" is not one of" },
    { edit_batch_size_zero, "runs[2].batch_size: 0 is out of range" },
    { edit_wrong_type, "runs[2].prefetch: expected an integer, found the text \"2\"" },
    { edit_missing_field, "runs[2]: missing field 'seed'" },
    { edit_bad_uuid, "runs[2].uuid: expected a uuid" },
    { edit_negative_wait, "runs[2].batches[1].wait_ms: -0.5 is out of range" },
    { edit_huge_memory, "runs[2].pss_peak_bytes:" },
    { edit_unknown_machine, "runs[2].machine_fingerprint: no machine" },
    { edit_forged_fingerprint, "machines[0].fingerprint:" },
    { edit_future_version, "written by a newer Loadscope" },
    { edit_container_too_early, "machines[0]: field 'container' is not part of version 10 exports" },
    { edit_no_format, "not a Loadscope export" },
    { edit_unknown_field, "runs[2]: unknown field 'colour'" },
    { edit_duplicate_batch, "runs[2].batches[" },
    { edit_simulated_lie, "runs[0].simulated:" },
    { edit_batches_not_array, "runs[2].batches: expected an array" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) root = load_json (other);
      g_autofree char *name = g_strdup_printf ("bad-%u.json", i);
      g_autofree char *bad = ls_test_tmp_path (name);
      cases[i].edit (json_node_get_object (root));
      save_json (root, bad);
      expect_rejected (store, bad, cases[i].says, 2);
    }

  /* Files that are not exports at all. */
  g_autofree char *random = ls_test_tmp_path ("random.bin");
  guint8 bytes[4096];
  for (guint i = 0; i < sizeof bytes; i++)
    bytes[i] = (guint8) g_random_int ();
  g_assert_true (g_file_set_contents (random, (const char *) bytes, sizeof bytes, NULL));
  expect_rejected (store, random, "neither an SQLite bundle nor JSON", 2);
  g_autofree char *object = ls_test_tmp_path ("object.json");
  g_assert_true (g_file_set_contents (object, "{\"runs\": []}", -1, NULL));
  expect_rejected (store, object, "not a Loadscope export", 2);
  g_autofree char *history = ls_test_tmp_path ("history.json");
  r = run_cli ("history", "--db", db, "--json", NULL);
  g_assert_true (g_file_set_contents (history, r.out, -1, NULL));
  ls_test_cli_clear (&r);
  expect_rejected (store, history, "not a Loadscope export", 2);
  g_autofree char *empty = ls_test_tmp_path ("empty.json");
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  expect_rejected (store, empty, "not a Loadscope export", 2);
  g_autofree char *missing = ls_test_tmp_path ("missing.json");
  expect_rejected (store, missing, "cannot read it", 2);

  /* The good file still goes in afterwards. */
  r = run_cli ("import", other, "--db", store, NULL);
  assert_imported (&r, 3, 0, other);
}

static void
test_import_rejects_bad_bundles (void)
{
  g_autofree char *good = export_to ("sqlite", "good.sqlite", "--all", NULL);
  g_autofree char *store = fresh_store ("target-b.sqlite");
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (good, &contents, &len, NULL));

  /* Truncated: cut at a page boundary and in the middle of one. */
  const gsize cuts[] = { 100, len / 2, len - 4096, len - 1000 };
  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    {
      g_autofree char *name = g_strdup_printf ("truncated-%u.sqlite", i);
      g_autofree char *bad = ls_test_tmp_path (name);
      g_assert_true (g_file_set_contents (bad, contents, (gssize) cuts[i], NULL));
      expect_rejected (store, bad, "damaged", 2);
    }

  struct {
    const char *name;
    const char *sql;
    const char *says;
  } cases[] = {
    { "future.sqlite", "PRAGMA user_version = 99", "written by a newer Loadscope (schema version 99" },
    { "no-schema.sqlite", "PRAGMA user_version = 0", "without Loadscope's schema" },
    { "orphan.sqlite", "PRAGMA foreign_keys = OFF; DELETE FROM run WHERE id = 3", "batches of no run" },
    { "exploded.sqlite", "PRAGMA ignore_check_constraints = ON; UPDATE run SET status = 'exploded' WHERE id = 2",
      "run 2.status: the text \"exploded\"" },
    { "negative.sqlite", "PRAGMA ignore_check_constraints = ON; UPDATE run SET workers = -4 WHERE id = 3",
      "run 3.workers: -4 is out of range" },
    { "text-number.sqlite", "UPDATE run SET prefetch = 'two' WHERE id = 1", "run 1.prefetch: expected an integer" },
    { "blob.sqlite", "UPDATE run SET dataset = x'00ff' WHERE id = 1", "run 1.dataset: expected text" },
    { "bad-summary.sqlite", "UPDATE run SET summary = '{not json' WHERE id = 2", "run 2.summary: expected a JSON object" },
    { "bad-batch.sqlite", "UPDATE batch SET samples = 20000000 WHERE run_id = 1 AND seq = 2",
      "batch seq 2 of run 1.samples: 20000000 is out of range" },
    { "bad-worker.sqlite", "UPDATE worker SET pid = -1 WHERE run_id = 3", "of run 3.pid: -1 is out of range" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *bad = ls_test_tmp_path (cases[i].name);
      g_assert_true (g_file_set_contents (bad, contents, (gssize) len, NULL));
      exec_sql (bad, cases[i].sql);
      expect_rejected (store, bad, cases[i].says, 2);
    }
  g_autofree char *counts = row_counts (store);
  g_assert_cmpstr (counts, ==, "0/0/0/0/0/0");
}

/* A store at schema version 1, as the first Loadscope wrote it. */
static void
test_import_older_bundle_is_migrated (void)
{
  g_autofree char *old = ls_test_tmp_path ("v1.sqlite");
  g_autoptr (GError) error = NULL;
  ls_store *s = ls_store_open_existing (old, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &error);
  g_assert_no_error (error);
  g_assert_true (ls_store_migrate_to (s, 1, &error));
  g_assert_no_error (error);
  ls_store_close (s);
  g_autofree char *fp = ls_machine_fingerprint ("old-box", "Linux", "cpu", 4, 1 << 30, NULL);
  g_autofree char *sql = g_strdup_printf (
      "INSERT INTO machine (id, fingerprint, hostname, os, kernel, arch, cpu_model, logical_cores, ram_bytes) "
      "VALUES (1, '%s', 'old-box', 'Linux', '5.10', 'x86_64', 'cpu', 4, %d);"
      "INSERT INTO run (id, uuid, machine_id, started_at, finished_at, status, dataset, format, workers, "
      "start_method, batch_size, prefetch, persistent, shuffle, drop_last, in_order, seed, timeout_s, on_error, "
      "output, epochs, max_batches, warmup, sink, simulated, summary) VALUES (1, "
      "'0b7e6a52-1111-4c3e-8daf-ff4b00742d0b', 1, '2025-01-02T03:04:05.000Z', '2025-01-02T03:04:06.000Z', 'done', "
      "'/data/imgs', 'jpeg-dir', 4, 'spawn', 32, 2, 1, 1, 0, 1, 7, 0, 'fail', 'f32-chw', 1, 0, 4, 'none', 0, "
      "'{\"throughput_sps\": 1234.7, \"batch_wait_ms\": {\"p50\": 1.5, \"p95\": 3.0}, \"samples\": 320}');"
      "INSERT INTO batch (run_id, seq, epoch, batch, samples, ready_ms, wait_ms) VALUES (1, 0, 0, 0, 32, 10, 10);"
      "INSERT INTO worker (run_id, idx, epoch, pid, startup_ms, exit) VALUES (1, 0, 0, 4242, 80.5, 'exited with code 0');",
      fp, 1 << 30);
  exec_sql (old, sql);
  g_autofree char *store = fresh_store ("from-v1.sqlite");

  ls_test_cli r = run_cli ("import", old, "--db", store, NULL);
  assert_imported (&r, 1, 0, old);
  g_assert_cmpint (query_int (store, "SELECT CAST (throughput_sps * 10 AS INTEGER) FROM run"), ==, 12347);
  g_assert_cmpint (query_int (store, "SELECT samples FROM run"), ==, 320);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM run r JOIN machine m ON m.id = r.machine_id "
                                     "WHERE m.hostname = 'old-box'"),
                   ==, 1);
  g_assert_cmpint (query_int (store, "SELECT count (*) FROM batch WHERE copy_ms IS NULL"), ==, 1);
  /* Migrated in a copy: the file is as it was. */
  g_assert_cmpint (query_int (old, "PRAGMA user_version"), ==, 1);

  r = run_cli ("show", "0b7e6a52", "--db", store, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "old-box"));
  g_assert_nonnull (strstr (r.out, "1235 samples/s"));
  ls_test_cli_clear (&r);
}

static void
test_import_into_a_locked_store (void)
{
  g_autofree char *file = export_to ("json", "locked.json", "--all", NULL);
  g_autofree char *store = fresh_store ("locked.sqlite");
  sqlite3 *other = NULL;

  g_assert_cmpint (sqlite3_open (store, &other), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), ==, SQLITE_OK);
  ls_test_cli r = run_cli_busy (200, "import", file, "--db", store, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "locked by another program"));
  g_assert_nonnull (strstr (r.err, "nothing was imported"));
  /* It waited the busy time asked for, not the default 5 s (read from
   * what it says, not timed: a loaded machine stretches any timing). */
  g_assert_nonnull (strstr (r.err, "waited 0.2 s for it"));
  ls_test_cli_clear (&r);
  g_assert_cmpint (sqlite3_exec (other, "ROLLBACK", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (other);

  r = run_cli_busy (200, "import", file, "--db", store, NULL);
  assert_imported (&r, 3, 0, file);
}

static void
test_import_bad_usage (void)
{
  ls_test_cli r = run_cli ("import", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "which file?"));
  ls_test_cli_clear (&r);
  r = run_cli ("import", "a", "b", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 2);
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("loadscope-test-export-XXXXXX");
  g_assert_nonnull (tmp_dir);
  db = g_build_filename (tmp_dir, "source.sqlite", NULL);
  record_runs ();

  g_test_add_func ("/app/export/fields-cover-the-schema", test_fields_cover_the_schema);
  g_test_add_func ("/app/export/csv", test_export_csv);
  g_test_add_func ("/app/export/json", test_export_json);
  g_test_add_func ("/app/export/sqlite-bundle", test_export_sqlite);
  g_test_add_func ("/app/export/bad-usage-exits-2", test_export_bad_usage);
  g_test_add_func ("/app/import/json-round-trip-once-by-uuid", test_import_json_round_trip);
  g_test_add_func ("/app/import/bundle-round-trip-once-by-uuid", test_import_bundle_round_trip);
  g_test_add_func ("/app/import/keeps-the-source-machine", test_import_keeps_the_source_machine);
  g_test_add_func ("/app/import/rejects-bad-json", test_import_rejects_bad_json);
  g_test_add_func ("/app/import/rejects-bad-bundles", test_import_rejects_bad_bundles);
  g_test_add_func ("/app/import/older-bundle-is-migrated", test_import_older_bundle_is_migrated);
  g_test_add_func ("/app/import/locked-store-clear-error", test_import_into_a_locked_store);
  g_test_add_func ("/app/import/bad-usage-exits-2", test_import_bad_usage);
  int status = ls_test_run_checked_shm_only ();
  g_free (db);
  ls_test_tmp_dir_remove ();
  return status;
}
