/* Where a batch's build time goes: the stage sums of each batch against
 * the workers' own busy time (no timing assertions: each figure is only
 * compared with others of the same run), store schema 4 (migration and
 * the exchange format), and `run --diagnose --json`. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "app/core/run-summary.h"
#include "app/store/store-private.h"
#include "loader/jpeg.h"
#include "loader/run.h"
#include "test-sql.h"
#include "test-cli-util.h"
#include "test-util.h"

static const char *tmp_dir;

/* root/c<k>/i<j>.jpg, images of a few sizes. */
static char *
make_jpeg_dir (void)
{
  char *root = ls_test_tmp_path ("jpegs");
  for (int c = 0; c < 2; c++)
    {
      g_autofree char *cls = g_strdup_printf ("%s/c%d", root, c);
      g_assert_cmpint (g_mkdir_with_parents (cls, 0700), ==, 0);
      for (int i = 0; i < 12; i++)
        {
          int w = 96 + 13 * i, h = 80 + 7 * c;
          uint8_t *px = g_malloc ((size_t) w * h * 3);
          for (int k = 0; k < w * h * 3; k++)
            px[k] = (uint8_t) (k * 7 + i * 31 + c);
          uint8_t *jpeg = NULL;
          size_t len = 0;
          ls_error err = { 0 };
          g_assert_cmpint (ls_jpeg_encode (px, w, h, 3, 90, 0, &jpeg, &len, &err), ==, LS_OK);
          g_autofree char *file = g_strdup_printf ("%s/i%02d.jpg", cls, i);
          g_assert_true (g_file_set_contents (file, (const char *) jpeg, (gssize) len, NULL));
          free (jpeg);
          g_free (px);
        }
    }
  return root;
}

static const char *
jpeg_dir (void)
{
  static char *root;
  if (!root)
    root = make_jpeg_dir ();
  return root;
}

static void
run_jpeg (uint32_t workers, ls_run_result *r)
{
  ls_run_config c;
  ls_error err = { 0 };
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "jpeg-dir", sizeof c.pool.dataset.kind);
  g_strlcpy (c.pool.dataset.path, jpeg_dir (), sizeof c.pool.dataset.path);
  c.pool.dataset.width = c.pool.dataset.height = 32;
  c.pool.num_workers = workers;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER"); /* for spawn, Windows' default */
  c.pool.batch_size = 4;
  c.pool.epochs = 1;
  c.warmup = 1;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_NONE;
  c.sample_interval_ms = 100;
  g_assert_cmpint (ls_run (&c, r, &err), ==, LS_OK);
  g_assert_cmpint (r->status, ==, LS_RUN_DONE);
  g_assert_cmpuint (r->n_timeline, ==, 6);
}

/* Each batch: every stage measured, their sum within its builders' busy
 * time; the summary's totals are the batches' sums. */
static void
check_batches (const ls_run_result *r, gboolean in_process)
{
  double total[LS_N_STAGES] = { 0 };
  for (size_t i = 0; i < r->n_timeline; i++)
    {
      const ls_batch_record *b = &r->timeline[i];
      g_assert_cmpfloat (b->read_ms, >, 0);
      g_assert_cmpfloat (b->decode_ms, >, 0);
      g_assert_cmpfloat (b->transform_ms, >, 0);
      g_assert_cmpfloat (b->write_ms, >, 0);
      g_assert_cmpfloat (b->idle_ms, >=, 0);
      if (in_process)
        g_assert_cmpfloat (b->idle_ms, ==, 0);
      double stages = b->read_ms + b->decode_ms + b->transform_ms + b->write_ms;
      /* Rounding of ns to ms apart, the stages lie inside the busy time. */
      g_assert_cmpfloat (stages, <=, b->busy_ms + 1e-6);
      for (int k = 0; k < LS_N_STAGES; k++)
        total[k] += ls_batch_record_stage (b, k);
    }
  ls_stage_summary st;
  ls_run_stage_summary (r, &st);
  g_assert_true (st.valid);
  g_assert_cmpuint (st.measured_batches, ==, r->n_timeline - r->warmup_used);
  for (int k = 0; k < LS_N_STAGES; k++)
    g_assert_cmpfloat (fabs (st.total_ms[k] - total[k]), <=, 1e-9 * (1 + total[k]));
}

static void
test_workers_sums (void)
{
  ls_run_result r;
  run_jpeg (2, &r);
  check_batches (&r, FALSE);

  /* Each worker: idle and busy cover its life from READY to STOP; its
   * stage times lie within its busy time; the delivered batches' busy
   * time is a part of the workers' (late tasks nobody took aside). */
  ls_stage_summary st;
  ls_run_stage_summary (&r, &st);
  g_assert_cmpuint (st.workers_reported, ==, r.n_workers);
  double busy_batches = 0;
  for (size_t i = 0; i < r.n_timeline; i++)
    busy_batches += r.timeline[i].busy_ms;
  for (size_t i = 0; i < r.n_workers; i++)
    {
      const ls_worker_info *w = &r.workers[i];
      g_assert_cmpuint (w->wall_ns, >, 0);
      g_assert_cmpuint (w->idle_ns + w->busy_ns, ==, w->wall_ns);
      g_assert_cmpuint (w->stages.read + w->stages.decode + w->stages.transform + w->stages.write, <=, w->busy_ns);
    }
  g_assert_cmpfloat (busy_batches, <=, st.workers_busy_ms + 1e-6);
  g_assert_cmpfloat (fabs (st.workers_idle_ms + st.workers_busy_ms - st.workers_wall_ms), <=, 1e-6 * st.workers_wall_ms);

  /* The summary carries the same. */
  ls_run_config c = { 0 };
  ls_pool_config_init (&c.pool);
  g_autoptr (JsonNode) node = ls_run_summary_json (&c, &r);
  JsonObject *stages = json_object_get_object_member (json_node_get_object (node), "stages_ms");
  g_assert_nonnull (stages);
  g_assert_cmpfloat (json_object_get_double_member (stages, "decode"), >, 0);
  g_assert_true (json_object_has_member (json_object_get_object_member (stages, "total"), "idle"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (stages, "workers"), "reported"), ==, 2);
  ls_run_result_clear (&r);
}

static void
test_in_process_sums (void)
{
  ls_run_result r;
  run_jpeg (0, &r);
  check_batches (&r, TRUE);
  ls_run_result_clear (&r);
}

static void
test_migration_keeps_data (void)
{
  g_autofree char *path = ls_test_tmp_path ("v3.sqlite");
  g_autoptr (GError) error = NULL;
  ls_store *store = ls_store_open_existing (path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &error);
  g_assert_no_error (error);
  g_assert_true (ls_store_migrate_to (store, 3, &error));
  g_assert_cmpint (ls_store_schema_version (store), ==, 3);
  g_assert_true (ls_store_exec (
      store,
      "INSERT INTO machine (fingerprint, hostname, os, kernel, arch, cpu_model, logical_cores, ram_bytes) "
      "VALUES ('f', 'h', 'os', 'k', 'x86_64', 'cpu', 2, 1);"
      "INSERT INTO run (uuid, machine_id, started_at, status, dataset, format, workers, start_method, batch_size, "
      "prefetch, persistent, shuffle, drop_last, in_order, seed, timeout_s, on_error, output, epochs, max_batches, "
      "warmup, sink, simulated, throughput_sps) VALUES ('u3', 1, '2026-11-01T00:00:00Z', 'done', 'd', 'jpeg-dir', 2, "
      "'fork', 64, 2, 0, 1, 0, 1, 0, 60, 'fail', 'f32-chw', 1, 0, 2, 'sim', 1, 321.5);"
      "INSERT INTO batch (run_id, seq, epoch, batch, samples, ready_ms, wait_ms, copy_ms, compute_ms, stage_ms) "
      "VALUES (1, 0, 0, 0, 64, 1.5, 2.5, 3.5, 20, 0);",
      &error));
  g_assert_no_error (error);
  ls_store_close (store);

  store = ls_store_open (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ls_store_schema_version (store), ==, LS_STORE_SCHEMA_VERSION);
  ls_store_close (store);
  g_autofree char *kept = ls_test_sql_text (
      path, "SELECT r.throughput_sps || '/' || b.wait_ms || '/' || b.copy_ms FROM run r JOIN batch b ON b.run_id = r.id");
  g_assert_cmpstr (kept, ==, "321.5/2.5/3.5");
  /* Not measured then: NULL, never 0. */
  g_assert_cmpint (ls_test_sql_int (path, "SELECT count(*) FROM batch WHERE read_ms IS NULL AND busy_ms IS NULL"), ==,
                   1);
  g_assert_cmpint (ls_test_sql_int (path, "SELECT count(*) FROM run WHERE stage_decode_ms IS NULL"), ==, 1);
}

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

#define STAGE_SQL(table, prefix)                                                                                       \
  "SELECT group_concat (printf ('%.9f,%.9f,%.9f,%.9f,%.9f,%.9f', " prefix "read_ms, " prefix "decode_ms, " prefix       \
  "transform_ms, " prefix "write_ms, " prefix "idle_ms, " prefix "busy_ms), ';') FROM " table

static void
test_export_import_round_trip (void)
{
  g_autofree char *a = ls_test_tmp_path ("a.sqlite");
  g_autofree char *b = ls_test_tmp_path ("b.sqlite");
  g_autofree char *bundle = ls_test_tmp_path ("a.json");
  int status;

  g_free (run_cli (&status, "run", "--dataset", jpeg_dir (), "--workers", "1", "--batch-size", "4", "--crop", "32",
                   "--sink", "sim", "--model-ms", "1", "--db", a, NULL));
  g_assert_cmpint (status, ==, 0);
  g_free (run_cli (&status, "export", "--all", "--format", "json", "-o", bundle, "--db", a, NULL));
  g_assert_cmpint (status, ==, 0);
  g_free (run_cli (&status, "import", bundle, "--db", b, NULL));
  g_assert_cmpint (status, ==, 0);

  g_autofree char *batches_a = ls_test_sql_text (a, STAGE_SQL ("batch", ""));
  g_autofree char *batches_b = ls_test_sql_text (b, STAGE_SQL ("batch", ""));
  g_assert_nonnull (batches_a);
  g_assert_cmpstr (batches_a, ==, batches_b);
  g_autofree char *run_a = ls_test_sql_text (a, STAGE_SQL ("run", "stage_"));
  g_autofree char *run_b = ls_test_sql_text (b, STAGE_SQL ("run", "stage_"));
  g_assert_nonnull (run_a);
  g_assert_cmpstr (run_a, ==, run_b);
  g_assert_cmpint (ls_test_sql_int (b, "SELECT count(*) FROM batch WHERE decode_ms > 0"), ==, 6);
}

static void
test_diagnose_json (void)
{
  int status;
  g_autofree char *out = run_cli (&status, "run", "--diagnose", "--json", "--dataset", jpeg_dir (), "--workers", "1",
                                  "--batch-size", "4", "--crop", "32", "--sink", "sim", "--model-ms", "1", NULL);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *d = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "diagnose");
  g_assert_nonnull (d);
  static const char *const parts[] = { "prepared", "warm", "cold" };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      JsonObject *p = json_object_get_object_member (d, parts[i]);
      g_assert_nonnull (p);
      g_assert_cmpstr (json_object_get_string_member (p, "status"), ==, "done");
      g_assert_cmpfloat (json_object_get_double_member (p, "batch_ms"), >, 0);
    }
  g_assert_cmpint (json_object_get_int_member (d, "files"), ==, 24);
  g_assert_cmpfloat (json_object_get_double_member (d, "gpu_ms_per_batch"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (d, "prep_stall_ms_per_batch"), >=, 0);
  g_assert_cmpfloat (json_object_get_double_member (d, "fetch_stall_ms_per_batch"), >=, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("loadscope-stages-XXXXXX");
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/stages/workers/sums-within-busy-time", test_workers_sums);
  g_test_add_func ("/stages/in-process/sums-within-busy-time", test_in_process_sums);
  g_test_add_func ("/stages/store/migration-3-to-4-keeps-data", test_migration_keeps_data);
  g_test_add_func ("/stages/store/export-import-round-trip", test_export_import_round_trip);
  g_test_add_func ("/stages/cli/diagnose-json", test_diagnose_json);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_tmp_dir_remove ();
  return rc;
}
