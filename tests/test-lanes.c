/* A run's timeline as lanes (app/chart/chart-lanes.h, app/report/
 * chart-lanes-run.c): the lanes and spans the chart draws checked against
 * the store's batch rows (one lane per worker and one for the training
 * loop, each batch's build on the lane of the worker that built it), runs
 * recorded without where batches were built, the pointer mapped to a span,
 * and `export --run ID --chart lanes` as PNG, SVG and PDF. No timing is
 * asserted: spans are compared with the rows they come from. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "app/chart/chart-lanes.h"
#include "app/chart/chart-render.h"
#include "app/report/chart-store.h"
#include "test-cli-util.h"
#include "test-fonts.h"
#include "test-util.h"

static char *tmp_dir, *db_path;

typedef struct {
  gint64 seq, epoch, worker; /* worker -2: NULL */
  double ready, wait, start, end;
} batch_row;

static GArray *
batch_rows (gint64 run_id)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (batch_row));
  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT seq, epoch, worker, ready_ms, wait_ms, build_start_ms, build_end_ms "
                                       "FROM batch WHERE run_id = ? ORDER BY seq",
                                       -1, &st, NULL),
                   ==, SQLITE_OK);
  sqlite3_bind_int64 (st, 1, run_id);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      batch_row r = { sqlite3_column_int64 (st, 0),
                      sqlite3_column_int64 (st, 1),
                      sqlite3_column_type (st, 2) == SQLITE_NULL ? -2 : sqlite3_column_int64 (st, 2),
                      sqlite3_column_double (st, 3),
                      sqlite3_column_double (st, 4),
                      sqlite3_column_double (st, 5),
                      sqlite3_column_double (st, 6) };
      g_array_append_val (rows, r);
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return rows;
}

static void
sql_exec (const char *sql)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (db_path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
}

static ls_chart *
lanes_of (gint64 run_id)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open (db_path, &error);
  g_assert_no_error (error);
  ls_chart *chart = ls_chart_run_lanes (store, run_id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (chart);
  g_assert_nonnull (chart->lanes);
  return chart;
}

static gboolean
is_build (ls_span_kind k)
{
  return k != LS_SPAN_WAIT && k != LS_SPAN_STEP;
}

/* Every row's build on its worker's lane, from its build start, inside its
 * build's end; its wait on the loop's lane, ending when it was ready. */
static void
check_against_rows (const ls_chart *chart, GArray *rows, gint64 workers)
{
  const ls_chart_lanes *lanes = chart->lanes;
  g_assert_cmpuint (lanes->labels->len, ==, workers + 1);
  for (gint64 w = 0; w < workers; w++)
    {
      g_autofree char *want = g_strdup_printf ("worker %" G_GINT64_FORMAT, w);
      g_assert_cmpstr (lanes->labels->pdata[w], ==, want);
    }
  guint loop = lanes->labels->len - 1;
  g_assert_cmpstr (lanes->labels->pdata[loop], ==, "training loop");

  guint epochs = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const batch_row *r = &g_array_index (rows, batch_row, i);
      g_assert_cmpint (r->worker, >=, -1);
      g_assert_cmpint (r->worker, <, workers);
      g_assert_cmpfloat (r->end, >=, r->start);
      guint lane = r->worker < 0 ? loop : (guint) r->worker;
      double first = INFINITY, last = -INFINITY;
      guint builds = 0, waits = 0;
      for (guint k = 0; k < lanes->spans->len; k++)
        {
          const ls_lane_span *s = &g_array_index (lanes->spans, ls_lane_span, k);
          if (s->seq != r->seq)
            continue;
          g_assert_cmpint (s->epoch, ==, r->epoch);
          g_assert_cmpfloat (s->end_ms, >, s->start_ms);
          if (is_build (s->kind))
            {
              g_assert_cmpuint (s->lane, ==, lane);
              g_assert_cmpint (s->kind, <=, LS_SPAN_WRITE); /* the loader's four stages */
              first = MIN (first, s->start_ms);
              last = MAX (last, s->end_ms);
              builds++;
            }
          else if (s->kind == LS_SPAN_WAIT)
            {
              g_assert_cmpuint (s->lane, ==, loop);
              g_assert_cmpfloat_with_epsilon (s->end_ms, r->ready, 1e-9);
              g_assert_cmpfloat_with_epsilon (s->start_ms, r->ready - r->wait, 1e-9);
              waits++;
            }
          else
            g_assert_cmpuint (s->lane, ==, loop);
        }
      if (r->end > r->start)
        {
          g_assert_cmpuint (builds, >, 0);
          g_assert_cmpfloat_with_epsilon (first, r->start, 1e-6);
          g_assert_cmpfloat (last, <=, r->end + 1e-6);
        }
      g_assert_cmpuint (waits, ==, r->wait > 0 ? 1 : 0);
      if (i > 0 && r->epoch != g_array_index (rows, batch_row, i - 1).epoch)
        {
          g_assert_cmpuint (epochs, <, lanes->epochs->len);
          const ls_lane_mark *m = &g_array_index (lanes->epochs, ls_lane_mark, epochs);
          g_assert_cmpint (m->epoch, ==, r->epoch);
          g_assert_cmpfloat_with_epsilon (m->t_ms, r->ready - r->wait, 1e-9);
          epochs++;
        }
    }
  g_assert_cmpuint (epochs, ==, lanes->epochs->len);
}

static void
test_workers (void)
{
  g_autoptr (GArray) rows = batch_rows (1);
  g_autoptr (ls_chart) chart = lanes_of (1);
  g_assert_cmpuint (rows->len, ==, 16);
  check_against_rows (chart, rows, 2);
  g_assert_cmpuint (chart->lanes->epochs->len, ==, 1);
  /* Both workers built batches, each on its own lane. */
  gboolean built[2] = { FALSE, FALSE };
  for (guint i = 0; i < rows->len; i++)
    if (g_array_index (rows, batch_row, i).worker >= 0)
      built[g_array_index (rows, batch_row, i).worker] = TRUE;
  g_assert_true (built[0] && built[1]);
}

static void
test_no_workers (void)
{
  g_autoptr (GArray) rows = batch_rows (2);
  g_autoptr (ls_chart) chart = lanes_of (2);
  g_assert_cmpuint (rows->len, ==, 5);
  for (guint i = 0; i < rows->len; i++)
    g_assert_cmpint (g_array_index (rows, batch_row, i).worker, ==, -1);
  check_against_rows (chart, rows, 0);
}

/* A run recorded before the store kept where batches were built: only the
 * loop, and a note that says why. */
static void
test_not_recorded (void)
{
  g_autofree char *copy = g_build_filename (tmp_dir, "old.sqlite", NULL);
  g_autofree char *keep = g_strdup (db_path);
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (db_path, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, (gssize) len, NULL));
  g_free (db_path);
  db_path = g_strdup (copy);
  sql_exec ("UPDATE batch SET worker = NULL, build_start_ms = NULL, build_end_ms = NULL WHERE run_id = 1");
  g_autoptr (ls_chart) chart = lanes_of (1);
  g_free (db_path);
  db_path = g_strdup (keep);
  const ls_chart_lanes *lanes = chart->lanes;
  g_assert_cmpuint (lanes->labels->len, ==, 3); /* the run's 2 workers stay named */
  for (guint k = 0; k < lanes->spans->len; k++)
    g_assert_false (is_build (g_array_index (lanes->spans, ls_lane_span, k).kind));
  g_assert_cmpuint (chart->notes->len, >, 0);
  g_assert_nonnull (strstr (chart->notes->pdata[0], "not recorded"));
}

/* The window's hover: the middle of each span drawn maps back to it. */
static void
test_span_at (void)
{
  g_autoptr (ls_chart) chart = lanes_of (1);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1280, 800);
  cairo_t *cr = cairo_create (surface);
  ls_chart_render (chart, cr, 0, 0, 1280, 800, FALSE);
  ls_lanes_layout l;
  ls_chart_lanes_layout (chart, cr, 1280, 800, &l);
  g_assert_true (l.has_plot);
  g_assert_cmpfloat (l.lane_h, >, 10);
  guint hit = 0;
  for (guint i = 0; i < chart->lanes->spans->len; i++)
    {
      const ls_lane_span *s = &g_array_index (chart->lanes->spans, ls_lane_span, i);
      double x0 = l.plot_x + (s->start_ms - l.t_lo) / (l.t_hi - l.t_lo) * l.plot_w;
      double x1 = l.plot_x + (s->end_ms - l.t_lo) / (l.t_hi - l.t_lo) * l.plot_w;
      if (x1 - x0 < 4)
        continue; /* too thin to point at alone */
      int at = ls_chart_lanes_span_at (chart, &l, (x0 + x1) / 2, l.plot_y + (s->lane + 0.5) * l.lane_h);
      g_assert_cmpint (at, >=, 0);
      /* It, or one drawn over it there (a new worker set's first batch,
       * built by all its workers, overlaps the first worker's next build). */
      const ls_lane_span *found = &g_array_index (chart->lanes->spans, ls_lane_span, at);
      double t = (s->start_ms + s->end_ms) / 2;
      g_assert_cmpuint (found->lane, ==, s->lane);
      g_assert_cmpfloat (found->start_ms, <=, t);
      g_assert_cmpfloat (found->end_ms, >=, t);
      g_assert_true (found->seq == s->seq || (guint) at > i);
      hit++;
    }
  g_assert_cmpuint (hit, >, 0);
  g_assert_cmpint (ls_chart_lanes_span_at (chart, &l, 1, 1), ==, -1);
  /* Zoomed in on the first half: the time across the plot follows. */
  chart->lanes->view_lo = 0;
  chart->lanes->view_hi = chart->lanes->t_end / 2;
  ls_chart_lanes_layout (chart, cr, 1280, 800, &l);
  g_assert_cmpfloat_with_epsilon (l.t_hi, chart->lanes->t_end / 2, 1e-9);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static void
test_export (void)
{
  static const char *const formats[] = { "png", "svg", "pdf" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *name = g_strdup_printf ("lanes.%s", formats[i]);
      g_autofree char *out = g_build_filename (tmp_dir, name, NULL);
      ls_test_cli r = ls_test_loadscope ("export", "--db", db_path, "--run", "1", "--chart", "lanes", "--format",
                                         formats[i], "-o", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "(lanes)"));
      ls_test_cli_clear (&r);
      g_autofree char *data = NULL;
      gsize len = 0;
      g_assert_true (g_file_get_contents (out, &data, &len, NULL));
      g_assert_cmpuint (len, >, 1000);
      if (i == 0)
        {
          cairo_surface_t *png = cairo_image_surface_create_from_png (out);
          g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
          g_assert_cmpint (cairo_image_surface_get_width (png), ==, 1280);
          cairo_surface_destroy (png);
          const char *artifacts = g_getenv ("LS_ARTIFACTS");
          if (artifacts && g_mkdir_with_parents (artifacts, 0755) == 0)
            {
              g_autofree char *keep = g_build_filename (artifacts, "lanes-run.png", NULL);
              g_file_set_contents (keep, data, (gssize) len, NULL);
            }
        }
      if (i == 1) /* the lanes are named in the SVG's description */
        {
          g_assert_nonnull (strstr (data, "worker 0"));
          g_assert_nonnull (strstr (data, "worker 1"));
          g_assert_nonnull (strstr (data, "training loop"));
        }
    }
  /* An unknown chart names the run's charts, lanes among them. */
  ls_test_cli r = ls_test_loadscope ("export", "--db", db_path, "--run", "1", "--chart", "lane", "--format", "png",
                                     "-o", "x.png", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "lanes"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("loadscope-lanes-XXXXXX", NULL);
  db_path = g_build_filename (tmp_dir, "store.sqlite", NULL);
  g_autofree char *images = g_build_filename (tmp_dir, "imgs", NULL);
  ls_test_cli r = ls_test_loadscope ("make-dataset", "--format", "jpeg-dir", "--count", "64", "--size", "48x48",
                                     images, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  /* Run 1: 2 workers, 2 epochs of 8 batches; run 2: the loop builds its own. */
  r = ls_test_loadscope ("run", "--dataset", images, "--workers", "2", "--batch-size", "8", "--epochs", "2",
                         "--sink", "sim", "--model-ms", "2", "--db", db_path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("run", "--dataset", images, "--workers", "0", "--batch-size", "8", "--batches", "5",
                         "--sink", "sim", "--db", db_path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);

  g_test_add_func ("/lanes/workers", test_workers);
  g_test_add_func ("/lanes/no-workers", test_no_workers);
  g_test_add_func ("/lanes/not-recorded", test_not_recorded);
  g_test_add_func ("/lanes/span-at", test_span_at);
  g_test_add_func ("/lanes/export", test_export);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  ls_test_release_fonts ();
  g_free (tmp_dir);
  g_free (db_path);
  return rc;
}
