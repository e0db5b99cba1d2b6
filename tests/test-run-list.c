/* What the window reads through app/: the runs of a store as a list model
 * (app/store/run-list.h), loaded here and in a thread; exports whose format
 * the file name says (app/report/export-file.h); the compare table with its
 * differs flags and per-cent deltas (app/report/compare-table.h); a sweep's
 * charts read in a thread (app/report/sweep-charts.h). Over a store the
 * command line fills: a sweep of two simulated-GPU runs (workers 0 and 1)
 * and one run outside any sweep. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-render.h"
#include "app/report/chart-store.h"
#include "app/chart/chart-axis.h"
#include "app/report/chart-compare.h"
#include "app/report/compare-table.h"
#include "app/store/store-named.h"
#include "app/report/export-file.h"
#include "app/report/sweep-charts.h"
#include "app/store/run-list.h"
#include "app/store/store-query.h"
#include "test-fonts.h"
#include "test-cli-util.h"
#include "test-util.h"

static char *tmp_dir;
static char *db;

static void
run_cli (int expected, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = ls_test_loadscope_va (first, ap);
  va_end (ap);
  g_assert_cmpint (r.status, ==, expected);
  ls_test_cli_clear (&r);
}

static void
record_runs (void)
{
  run_cli (0, "sweep", "--dataset", "synthetic", "--count", "128", "--size", "16x16", "--batch-size", "16",
           "--workers", "0,1", "--sink", "sim", "--model-ms", "1", "--db", db, NULL);
  run_cli (0, "run", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--batch-size", "16", "--sink", "none",
           "--db", db, NULL);
}

/* Run ids: the sweep's are 1 (0 workers) and 2 (1 worker), the lone run 3. */

static void
test_run_list_load (void)
{
  g_autoptr (LsRunList) list = ls_run_list_new (db);
  g_autoptr (GError) error = NULL;
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0);
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (list)) == LS_TYPE_RUN_ROW);
  g_assert_true (ls_run_list_load (list, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);

  /* Newest first. */
  g_autoptr (LsRunRow) newest = g_list_model_get_item (G_LIST_MODEL (list), 0);
  g_autoptr (LsRunRow) oldest = g_list_model_get_item (G_LIST_MODEL (list), 2);
  g_assert_null (g_list_model_get_item (G_LIST_MODEL (list), 3));
  g_assert_cmpint (ls_run_row_get_id (newest), ==, 3);
  g_assert_cmpint (ls_run_row_get_sweep_id (newest), ==, 0);
  g_assert_false (ls_run_row_get_simulated (newest));
  g_assert_cmpstr (ls_run_row_get_status (newest), ==, "done");
  g_assert_cmpint (ls_run_row_get_id (oldest), ==, 1);
  g_assert_cmpint (ls_run_row_get_sweep_id (oldest), ==, 1);
  g_assert_true (ls_run_row_get_simulated (oldest));
  gint64 id = 0;
  g_object_get (oldest, "id", &id, NULL);
  g_assert_cmpint (id, ==, 1);

  /* What a row shows: the consumer, and no prefetch or persistence
   * without workers. */
  JsonObject *run = ls_run_row_get_run (oldest);
  g_assert_cmpstr (json_object_get_string_member (run, "sink_shown"), ==, "sim GPU");
  g_assert_true (json_object_get_null_member (run, "prefetch_shown"));
  g_assert_cmpstr (json_object_get_string_member (run, "persistent_shown"), ==, "–");
  JsonObject *second = ls_run_row_get_run (ls_run_list_find (list, 2));
  g_assert_cmpint (json_object_get_int_member (second, "prefetch_shown"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (second, "persistent_shown"), ==, "off");
  g_assert_cmpstr (json_object_get_string_member (ls_run_row_get_run (newest), "sink_shown"), ==, "none");
  g_assert_null (ls_run_list_find (list, 99));

  /* The history's filter: any case, any of the shown text fields. */
  g_assert_true (ls_run_row_matches (oldest, NULL));
  g_assert_true (ls_run_row_matches (oldest, ""));
  g_assert_true (ls_run_row_matches (oldest, "SIM gpu"));
  g_assert_false (ls_run_row_matches (newest, "sim gpu"));
  g_assert_true (ls_run_row_matches (newest, "DONE"));
  g_assert_false (ls_run_row_matches (newest, "no such text"));
}

typedef struct {
  GMainLoop *loop;
  guint changes, added, removed;
  gboolean ok;
  GError *error;
} async_state;

static void
on_items_changed (GListModel *model, guint position, guint removed, guint added, async_state *state)
{
  state->changes++;
  state->added += added;
  state->removed += removed;
}

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  async_state *state = data;
  state->ok = ls_run_list_load_finish (LS_RUN_LIST (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

static void
test_run_list_load_async (void)
{
  g_autoptr (LsRunList) list = ls_run_list_new (db);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  async_state state = { .loop = loop };
  g_signal_connect (list, "items-changed", G_CALLBACK (on_items_changed), &state);

  ls_run_list_load_async (list, NULL, on_loaded, &state);
  g_assert_true (ls_run_list_is_loading (list));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0); /* not before the thread is done */
  g_main_loop_run (loop);
  g_assert_no_error (state.error);
  g_assert_true (state.ok);
  g_assert_false (ls_run_list_is_loading (list));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);
  g_assert_cmpuint (state.changes, ==, 1); /* one items-changed for the whole load */
  g_assert_cmpuint (state.added, ==, 3);

  /* Again: the rows are replaced in one change, 3 out and 3 in. */
  ls_run_list_load_async (list, NULL, on_loaded, &state);
  g_main_loop_run (loop);
  g_assert_true (state.ok);
  g_assert_cmpuint (state.changes, ==, 2);
  g_assert_cmpuint (state.removed, ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);

  /* Cancelled: the items stay as they were. */
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  ls_run_list_load_async (list, cancel, on_loaded, &state);
  g_main_loop_run (loop);
  g_assert_false (state.ok);
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&state.error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);
  g_assert_cmpuint (state.changes, ==, 2);
}

static void
test_run_list_missing_or_bad_store (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *missing = g_build_filename (tmp_dir, "nothing-here.sqlite", NULL);
  g_autoptr (LsRunList) list = ls_run_list_new (missing);
  g_assert_true (ls_run_list_load (list, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0);

  /* Not a store: an error, and the rows loaded before stay. */
  g_autofree char *junk = g_build_filename (tmp_dir, "junk.sqlite", NULL);
  g_assert_true (g_file_set_contents (junk, "this is not a database, not at all, not even close", -1, NULL));
  ls_run_list_set_db (list, db);
  g_assert_true (ls_run_list_load (list, &error));
  ls_run_list_set_db (list, junk);
  g_assert_cmpstr (ls_run_list_get_db (list), ==, junk);
  g_assert_false (ls_run_list_load (list, &error));
  g_assert_nonnull (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 3);
}

static GArray *
ids_of (gint64 first, ...)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  va_list ap;
  va_start (ap, first);
  for (gint64 id = first; id > 0; id = va_arg (ap, gint64))
    g_array_append_val (ids, id);
  va_end (ap);
  return ids;
}

static void
test_export_by_extension (void)
{
  ls_test_allow_wine_font_warnings ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) sweep_runs = ids_of ((gint64) 1, (gint64) 2, (gint64) 0);
  g_autoptr (GArray) lone = ids_of ((gint64) 3, (gint64) 0);

  g_assert_cmpint (ls_export_kind_for_path ("a/b.csv"), ==, LS_EXPORT_CSV);
  g_assert_cmpint (ls_export_kind_for_path ("b.db"), ==, LS_EXPORT_SQLITE);
  g_assert_cmpint (ls_export_kind_for_path ("b.pdf"), ==, LS_EXPORT_PDF);
  g_assert_cmpint (ls_export_kind_for_path ("b.txt"), ==, LS_EXPORT_UNKNOWN);
  g_assert_cmpint (ls_export_kind_for_path ("csv"), ==, LS_EXPORT_UNKNOWN);

  /* An extension that names no format: the file and the formats that are. */
  g_autofree char *txt = g_build_filename (tmp_dir, "runs.txt", NULL);
  g_assert_false (ls_export_by_extension (store, sweep_runs, txt, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, txt));
  g_assert_nonnull (strstr (error->message, ".csv, .json, .sqlite, .png, .svg or .pdf"));
  g_assert_false (g_file_test (txt, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* Charts of a run outside any sweep: the file and why. */
  g_autofree char *png = g_build_filename (tmp_dir, "lone.png", NULL);
  g_assert_false (ls_export_by_extension (store, lone, png, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, png));
  g_assert_nonnull (strstr (error->message, "charts are drawn for a sweep"));
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* A folder that is not there: the file in the message. */
  g_autofree char *nowhere = g_build_filename (tmp_dir, "no-such-folder", "runs.csv", NULL);
  g_assert_false (ls_export_by_extension (store, sweep_runs, nowhere, FALSE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, nowhere));
  g_clear_error (&error);

  /* A bundle where a file already is: refused, naming it. */
  g_autofree char *taken = g_build_filename (tmp_dir, "taken.sqlite", NULL);
  g_assert_true (g_file_set_contents (taken, "x", 1, NULL));
  g_assert_false (ls_export_by_extension (store, sweep_runs, taken, FALSE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, taken));
  g_clear_error (&error);

  /* Each format that works: CSV (a header and a row per run), indented
   * JSON, a bundle that opens as a store, the sweep's charts as SVG (the
   * lone run among the runs does not matter: the first sweep's charts). */
  g_autofree char *csv = g_build_filename (tmp_dir, "runs.csv", NULL);
  g_autofree char *json = g_build_filename (tmp_dir, "runs.json", NULL);
  g_autofree char *bundle = g_build_filename (tmp_dir, "runs.sqlite", NULL);
  g_autofree char *svg = g_build_filename (tmp_dir, "runs.svg", NULL);
  g_autoptr (GArray) all = ids_of ((gint64) 3, (gint64) 1, (gint64) 2, (gint64) 0);
  g_assert_true (ls_export_by_extension (store, all, csv, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (ls_export_by_extension (store, all, json, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (ls_export_by_extension (store, all, bundle, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (ls_export_by_extension (store, all, svg, TRUE, &error));
  g_assert_no_error (error);

  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  guint lines = 0;
  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  g_assert_cmpuint (lines, ==, 4);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (json, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"format\" : \"loadscope-export\""));
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<svg"));
  g_autoptr (ls_store) copy = ls_store_open_to_read (bundle, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) copied = ls_store_select_runs (copy, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (copied->len, ==, 3);
}

static void
test_compare_table (void)
{
  ls_test_allow_wine_font_warnings ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_assert_no_error (error);
  const gint64 ids[] = { 2, 1 };
  g_autoptr (ls_compare_table) table = ls_compare_table_load (store, ids, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ls_compare_table_n_runs (table), ==, 2);
  /* Loader runs: no row for a script's ranks and threads. */
  guint script_knobs = 0;
  for (guint k = 0; k < ls_n_run_knobs; k++)
    script_knobs += ls_run_knobs[k].script;
  g_assert_cmpuint (script_knobs, ==, 2);
  g_assert_cmpuint (table->rows->len, ==, ls_n_run_knobs - script_knobs + ls_n_run_figures);
  g_assert_null (ls_compare_table_find (table, "ranks"));

  /* The sweep's two runs differ in workers alone. */
  g_autoptr (GPtrArray) differing = ls_compare_table_differing_knobs (table);
  g_assert_cmpuint (differing->len, ==, 1);
  g_assert_cmpstr (differing->pdata[0], ==, "workers");
  const ls_compare_row *workers = ls_compare_table_find (table, "workers");
  g_assert_cmpint (workers->kind, ==, LS_COMPARE_KNOB);
  g_assert_true (workers->differs);
  g_assert_null (workers->delta);
  g_assert_cmpstr (workers->cells->pdata[0], ==, "1");
  g_assert_cmpstr (workers->cells->pdata[1], ==, "0");
  const ls_compare_row *pin = ls_compare_table_find (table, "pin");
  g_assert_false (pin->differs);
  g_assert_cmpstr (pin->cells->pdata[1], ==, "off");
  g_assert_null (ls_compare_table_find (table, "no_such_column"));

  /* Figures: each run's change against the first, as the stored values say. */
  JsonObject *first = table->runs->pdata[0], *second = table->runs->pdata[1];
  const ls_compare_row *tp = ls_compare_table_find (table, "throughput_sps");
  g_assert_cmpint (tp->kind, ==, LS_COMPARE_FIGURE);
  g_assert_false (tp->differs);
  g_assert_cmpstr (tp->label, ==, "throughput");
  /* The figures come first, the knobs after. */
  g_assert_true (table->rows->pdata[0] == tp);
  g_assert_cmpint (((ls_compare_row *) table->rows->pdata[ls_n_run_figures])->kind, ==, LS_COMPARE_KNOB);
  double a = json_object_get_double_member (first, "throughput_sps");
  double b = json_object_get_double_member (second, "throughput_sps");
  g_assert_cmpfloat_with_epsilon (tp->delta[0], 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (tp->delta[1], (b - a) / a * 100, 1e-9);
  /* As the charts show it: their unit and decimals. */
  g_autofree char *shown = ls_chart_format_value (LS_CHART_UNIT_SPS, b);
  g_assert_cmpstr (tp->cells->pdata[1], ==, shown);
  g_assert_true (g_str_has_suffix (tp->cells->pdata[1], " img/s"));
  /* More throughput is better, more wait is worse. */
  g_assert_cmpint (tp->better[0], ==, 0);
  g_assert_cmpint (tp->better[1], ==, fabs (tp->delta[1]) < LS_COMPARE_SAME_PERCENT ? 0 : b > a ? 1 : -1);
  g_autofree char *change = ls_compare_change_text (tp, 1);
  g_assert_nonnull (change);
  if (tp->better[1])
    g_assert_true (g_str_has_suffix (change, b > a ? ", better" : ", worse"));
  g_assert_null (ls_compare_change_text (tp, 0));
  const ls_compare_row *p50 = ls_compare_table_find (table, "wait_p50_ms");
  double wa = json_object_get_double_member (first, "wait_p50_ms"), wb = json_object_get_double_member (second, "wait_p50_ms");
  if (fabs (p50->delta[1]) >= LS_COMPARE_SAME_PERCENT)
    g_assert_cmpint (p50->better[1], ==, wb < wa ? 1 : -1);
  /* Never to three decimals past 1 ms: "21.2 ms", not "21.207". */
  g_assert_true (g_str_has_suffix (p50->cells->pdata[0], " ms") || g_str_has_suffix (p50->cells->pdata[0], " s")
                 || g_str_has_suffix (p50->cells->pdata[0], " \u00b5s"));
  /* The runs' waits overlaid under the table: one CDF a run, rising to 1. */
  ls_chart *cdf = ls_chart_runs_wait_cdf (store, ids, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cdf->series->len, ==, 2);
  for (guint i = 0; i < cdf->series->len; i++)
    {
      GArray *pts = ((ls_chart_series *) cdf->series->pdata[i])->points;
      g_assert_cmpuint (pts->len, >, 1);
      for (guint k = 1; k < pts->len; k++)
        {
          g_assert_cmpfloat (g_array_index (pts, ls_chart_point, k).x, >=, g_array_index (pts, ls_chart_point, k - 1).x);
          g_assert_cmpfloat (g_array_index (pts, ls_chart_point, k).y, >=, g_array_index (pts, ls_chart_point, k - 1).y);
        }
      g_assert_cmpfloat (g_array_index (pts, ls_chart_point, pts->len - 1).y, ==, 1.0);
    }
  g_assert_cmpstr (((ls_chart_series *) cdf->series->pdata[0])->label, ==, "run 2 (baseline)");
  ls_chart_free (cdf);
  g_assert_null (ls_chart_runs_wait_cdf (store, (const gint64[]) { 99999 }, 1, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* And their memory over time: one line a run, a point per sample the
   * store holds of it (fewer than 400: none left out), above zero. */
  ls_chart *memory = ls_chart_runs_memory (store, ids, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (memory->series->len, ==, 2);
  g_assert_cmpstr (((ls_chart_series *) memory->series->pdata[0])->label, ==, "run 2 (baseline)");
  for (guint i = 0; i < 2; i++)
    {
      gint64 id = ids[i];
      ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_MEMORY_SAMPLES, &id, 1, &error);
      g_assert_no_error (error);
      guint samples = 0;
      while (ls_store_rows_next (st, &error))
        samples++;
      ls_store_rows_free (st);
      GArray *pts = ((ls_chart_series *) memory->series->pdata[i])->points;
      g_assert_cmpuint (pts->len, ==, samples);
      for (guint k = 0; k < pts->len; k++)
        {
          g_assert_cmpfloat (g_array_index (pts, ls_chart_point, k).y, >, 0);
          if (k > 0)
            g_assert_cmpfloat (g_array_index (pts, ls_chart_point, k).x, >=, g_array_index (pts, ls_chart_point, k - 1).x);
        }
    }
  g_assert_cmpuint (ls_chart_n_points (memory), >, 0);
  ls_chart_free (memory);
  g_assert_null (ls_chart_runs_memory (store, (const gint64[]) { 99999 }, 1, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* The store they came from, for the window's read of the waits. */
  g_assert_nonnull (table->db);

  /* No NVML here: no value, no delta. */
  const ls_compare_row *nvml = ls_compare_table_find (table, "gpu_util_nvml");
  g_assert_cmpstr (nvml->cells->pdata[0], ==, "-");
  g_assert_true (isnan (nvml->delta[0]) && isnan (nvml->delta[1]));

  /* Deltas themselves: against |first|, none from a zero or a null. */
  g_autoptr (JsonObject) x = json_object_new ();
  g_autoptr (JsonObject) y = json_object_new ();
  double d = 0;
  json_object_set_double_member (x, "v", 200);
  json_object_set_double_member (y, "v", 150);
  g_assert_true (ls_compare_delta_percent (x, y, "v", &d));
  g_assert_cmpfloat_with_epsilon (d, -25, 1e-9);
  json_object_set_double_member (x, "v", -4);
  json_object_set_double_member (y, "v", -2);
  g_assert_true (ls_compare_delta_percent (x, y, "v", &d));
  g_assert_cmpfloat_with_epsilon (d, 50, 1e-9);
  json_object_set_double_member (x, "v", 0);
  g_assert_false (ls_compare_delta_percent (x, y, "v", &d));
  json_object_set_null_member (x, "v");
  g_assert_false (ls_compare_delta_percent (x, y, "v", &d));
  g_assert_false (ls_compare_delta_percent (y, x, "v", &d));

  /* A run that is not there: the store's error. */
  const gint64 bad[] = { 1, 99 };
  g_assert_null (ls_compare_table_load (store, bad, 2, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
}

static void
on_charts (GObject *source, GAsyncResult *result, gpointer data)
{
  GAsyncResult **out = data;
  *out = g_object_ref (result);
}

static void
test_sweep_charts_async (void)
{
  ls_test_allow_wine_font_warnings ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  ls_sweep_charts_load_async (db, 1, NULL, on_charts, &result);
  while (!result)
    g_main_context_iteration (NULL, TRUE);
  g_autoptr (GPtrArray) charts = ls_sweep_charts_load_finish (result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (charts->len, ==, ls_sweep_charts_n ());
  /* Every name the report lists, and the headline ones among them. */
  guint named = 0;
  while (ls_chart_sweep_names[named])
    named++;
  g_assert_cmpuint (ls_sweep_charts_n (), ==, named);
  g_assert_cmpuint (ls_sweep_charts_n (), >=, 3);
  for (guint i = 0; i < charts->len; i++)
    g_assert_cmpuint (ls_chart_n_points (charts->pdata[i]), >, 0);

  /* A sweep that is not there. */
  g_clear_object (&result);
  ls_sweep_charts_load_async (db, 42, NULL, on_charts, &result);
  while (!result)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (ls_sweep_charts_load_finish (result, &error));
  g_assert_error (error, LS_STORE_ERROR, LS_STORE_ERROR_NOT_FOUND);
}

/* A sweep with no GPU figure at all (sink none): its first chart's title
 * says throughput, not GPU utilization. */
static void
test_sweep_charts_without_gpu (void)
{
  ls_test_allow_wine_font_warnings ();
  g_autofree char *none_db = g_build_filename (tmp_dir, "no-gpu.sqlite", NULL);
  run_cli (0, "sweep", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--batch-size", "16", "--workers",
           "0,1", "--sink", "none", "--db", none_db, NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  ls_sweep_charts_load_async (none_db, 1, NULL, on_charts, &result);
  while (!result)
    g_main_context_iteration (NULL, TRUE);
  g_autoptr (GPtrArray) charts = ls_sweep_charts_load_finish (result, &error);
  g_assert_no_error (error);
  const ls_chart *first = charts->pdata[0];
  g_assert_cmpstr (first->title, ==, "Throughput vs workers");
  g_assert_null (strstr (first->title, "GPU"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ls-run-list-XXXXXX", NULL);
  db = g_build_filename (tmp_dir, "history.sqlite", NULL);
  record_runs ();
  g_test_add_func ("/app/run-list/load", test_run_list_load);
  g_test_add_func ("/app/run-list/load-async", test_run_list_load_async);
  g_test_add_func ("/app/run-list/missing-or-bad-store", test_run_list_missing_or_bad_store);
  g_test_add_func ("/app/run-list/sweep-charts-without-gpu", test_sweep_charts_without_gpu);
  g_test_add_func ("/app/export/by-extension", test_export_by_extension);
  g_test_add_func ("/app/compare/table", test_compare_table);
  g_test_add_func ("/app/report/sweep-charts-async", test_sweep_charts_async);
  int status = ls_test_run_checked_shm_only (); /* GTask threads, GSubprocess */
  ls_test_release_fonts (); /* the SVG export's font caches, for LeakSanitizer */
  ls_test_remove_tree (tmp_dir);
  g_free (db);
  g_free (tmp_dir);
  return status;
}
