/* A run's timeline window (ui/ls-timeline-window.h) under Xvfb: it reads
 * a recorded run's lanes in a thread and shows one lane per worker and
 * one for the training loop; the span under a point is described in exact
 * figures; zoom in, out and back; a run that is not there says so;
 * History's Timeline opens the selected run's, and so does Results'
 * Timeline… menu. The window is saved as PNG at 1024x700 and 1600x1000,
 * light and dark
 * ($LS_ARTIFACTS/gui-timeline-*.png), drawn by GTK's own renderer. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "app/chart/chart-lanes.h"
#include "test-gui-util.h"
#include "test-util.h"
#include "ui/ls-history-page.h"
#include "ui/ls-chart-view.h"
#include "ui/ls-results-page.h"
#include "ui/ls-run-page.h"
#include "ui/ls-timeline-window.h"
#include "ui/ls-window.h"

static char *tmp_dir, *db;
static LsTimelineWindow *win;

static gboolean
loaded (void)
{
  return ls_timeline_window_is_loaded (win, NULL);
}

/* The window as GTK draws it, into path. */
static void
save_png (GtkWidget *widget, const char *name)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_assert_cmpint (w, >, 0);
  GdkPaintable *paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (widget));
  GdkTexture *texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  const char *dir = g_getenv ("LS_ARTIFACTS");
  g_mkdir_with_parents (dir ? dir : ".", 0755);
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  g_object_unref (paintable);
}

/* A context to measure with (nothing is drawn into it). */
static cairo_t *
cr2 (void)
{
  static cairo_t *cr;
  if (!cr)
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
      cr = cairo_create (s);
      cairo_surface_destroy (s);
    }
  return cr;
}

static LsTimelineWindow *
open_window (gint64 run_id, int width, int height)
{
  win = ls_timeline_window_new (NULL, db, run_id);
  gtk_window_set_default_size (GTK_WINDOW (win), width, height);
  gtk_window_present (GTK_WINDOW (win));
  ls_test_gui_iterate_until (loaded, 60);
  g_assert_true (loaded ());
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  return win;
}

static void
test_timeline (void)
{
  LsTimelineWindow *w = open_window (1, 1024, 700);
  const char *error = NULL;
  g_assert_true (ls_timeline_window_is_loaded (w, &error));
  g_assert_null (error);
  LsTimelineView *view = ls_timeline_window_get_view (w);
  const ls_chart *chart = ls_timeline_view_get_chart (view);
  g_assert_nonnull (chart);
  g_assert_cmpuint (chart->lanes->labels->len, ==, 3);
  g_assert_cmpstr (chart->lanes->labels->pdata[2], ==, "training loop");
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));

  /* The lanes keep their room at the window's smallest size. */
  int vw = gtk_widget_get_width (GTK_WIDGET (view)), vh = gtk_widget_get_height (GTK_WIDGET (view));
  ls_lanes_layout l;
  ls_chart_lanes_layout (chart, cr2 (), vw, vh, &l);
  g_assert_true (l.has_plot);
  g_assert_cmpfloat (l.plot_w, >=, 600);
  g_assert_cmpfloat (l.lane_h, >=, 24);

  /* Hover: the middle of worker 0's widest span, in exact figures. The
   * widest, because this layout's text is measured on another cairo
   * context than the view's: the plot may start a pixel or two apart, and
   * a narrow span's middle would then be its neighbour's. */
  const ls_lane_span *first = NULL;
  double widest = 0;
  for (guint i = 0; i < chart->lanes->spans->len; i++)
    {
      const ls_lane_span *sp = &g_array_index (chart->lanes->spans, ls_lane_span, i);
      double w_px = (sp->end_ms - sp->start_ms) / (l.t_hi - l.t_lo) * l.plot_w;
      if (sp->lane == 0 && w_px > widest)
        {
          first = sp;
          widest = w_px;
        }
    }
  g_assert_nonnull (first);
  g_test_message ("worker 0's widest span: %.1f px", widest);
  g_assert_cmpfloat (widest, >=, 12);
  double x = l.plot_x + ((first->start_ms + first->end_ms) / 2 - l.t_lo) / (l.t_hi - l.t_lo) * l.plot_w;
  g_autofree char *said = ls_timeline_view_describe_at (view, x, l.plot_y + 0.5 * l.lane_h);
  g_assert_nonnull (said);
  g_autofree char *batch = g_strdup_printf ("batch %" G_GINT64_FORMAT " ", first->seq);
  g_assert_true (g_str_has_prefix (said, batch));
  g_assert_nonnull (strstr (said, "on worker 0"));
  g_assert_nonnull (strstr (said, ls_span_kind_label (first->kind)));
  g_assert_nonnull (strstr (said, " ms for "));
  g_assert_null (ls_timeline_view_describe_at (view, 2, 2));

  /* Zoom: in around the start, out past the whole run, back. */
  double lo, hi, full;
  ls_timeline_view_get_range (view, &lo, &full);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (full, ==, chart->lanes->t_end);
  ls_timeline_view_zoom_by (view, 4, 0);
  ls_timeline_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (lo, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, full / 4, 1e-9);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (w), "timeline.zoom-in", NULL));
  ls_timeline_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat_with_epsilon (hi - lo, full / 8, 1e-9);
  /* Pointing at a span (as the pointer's motion does) names it under the
   * lanes. Worker 1's first span may start after the first eighth of the
   * run (a slow start, as under ASan): zoom in around it, not at 0. */
  const ls_lane_span *second = NULL;
  for (guint i = 0; i < chart->lanes->spans->len && !second; i++)
    {
      const ls_lane_span *sp = &g_array_index (chart->lanes->spans, ls_lane_span, i);
      if (sp->lane == 1 && sp->end_ms > sp->start_ms)
        second = sp;
    }
  g_assert_nonnull (second);
  double mid = (second->start_ms + second->end_ms) / 2;
  ls_timeline_view_zoom_reset (view);
  ls_timeline_view_zoom_by (view, 8, mid / full);
  ls_timeline_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat (lo, <=, mid);
  g_assert_cmpfloat (hi, >=, mid);
  ls_chart_lanes_layout (chart, cr2 (), vw, vh, &l);
  ls_timeline_view_point_at (view, l.plot_x + (mid - l.t_lo) / (l.t_hi - l.t_lo) * l.plot_w, l.plot_y + 1.5 * l.lane_h);
  g_autofree char *hovered = NULL;
  g_object_get (view, "hovered", &hovered, NULL);
  g_assert_nonnull (hovered);
  g_assert_nonnull (strstr (hovered, "on worker 1"));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  save_png (GTK_WIDGET (w), "gui-timeline-zoomed.png");
  ls_timeline_view_zoom_by (view, 0.01, 0.5);
  ls_timeline_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat (lo, >=, 0);
  g_assert_cmpfloat_with_epsilon (hi, full, 1e-9);
  ls_timeline_view_zoom_by (view, 8, 0.5);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (w), "timeline.zoom-reset", NULL));
  ls_timeline_view_get_range (view, &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, full);
  gtk_window_destroy (GTK_WINDOW (w));

  /* Each size, light and dark. */
  static const int sizes[][2] = { { 1024, 700 }, { 1600, 1000 } };
  AdwStyleManager *style = adw_style_manager_get_default ();
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int dark = 0; dark < 2; dark++)
      {
        adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
        w = open_window (1, sizes[k][0], sizes[k][1]);
        g_autofree char *name = g_strdup_printf ("gui-timeline-%dx%d-%s.png", sizes[k][0], sizes[k][1],
                                                 dark ? "dark" : "light");
        save_png (GTK_WIDGET (w), name);
        gtk_window_destroy (GTK_WINDOW (w));
      }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

static LsHistoryPage *history;

static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history);
}

static LsTimelineWindow *
find_timeline_window (void)
{
  GListModel *tops = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (tops, i);
      if (LS_IS_TIMELINE_WINDOW (w))
        return LS_TIMELINE_WINDOW (w);
    }
  return NULL;
}

static gboolean
timeline_opened (void)
{
  win = find_timeline_window ();
  return win && ls_timeline_window_is_loaded (win, NULL);
}

/* The timeline window opened (from `from`, closed after it): run 1's,
 * with its two workers' lanes and the loop's. */
static void
assert_timeline_opened (GtkWidget *from)
{
  ls_test_gui_iterate_until (timeline_opened, 60);
  g_assert_true (timeline_opened ());
  const ls_chart *chart = ls_timeline_view_get_chart (ls_timeline_window_get_view (win));
  g_assert_nonnull (chart);
  g_assert_cmpuint (chart->lanes->labels->len, ==, 3);
  gtk_window_destroy (GTK_WINDOW (win));
  gtk_window_destroy (GTK_WINDOW (from));
}

/* History's Timeline: the selected run's timeline opens in its window. */
static void
test_from_history (void)
{
  g_type_class_unref (g_type_class_ref (LS_TYPE_WINDOW)); /* the templates' resource */
  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  history = g_object_new (LS_TYPE_HISTORY_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (history));
  ls_history_page_set_db (history, db);
  gtk_window_present (GTK_WINDOW (window));
  ls_history_page_reload (history);
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 1);
  g_assert_null (find_timeline_window ());

  GtkColumnView *view = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (view);
  g_assert_true (gtk_selection_model_select_item (gtk_column_view_get_model (view), 0, TRUE));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (history), "history.timeline", NULL));
  assert_timeline_opened (window);
}

static LsResultsPage *results;

static gboolean
results_loaded (void)
{
  return !ls_results_page_is_loading (results);
}

/* Results' Timeline…: a menu of the sweep's runs; its item opens the run's. */
static void
test_from_results (void)
{
  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  results = g_object_new (LS_TYPE_RESULTS_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (results));
  gtk_window_present (GTK_WINDOW (window));
  ls_results_page_open_sweep (results, db, 0);
  ls_test_gui_iterate_until (results_loaded, 60);
  GMenuModel *menu = ls_results_page_get_timeline_menu (results);
  g_assert_nonnull (menu);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 1);
  g_autofree char *label = NULL, *action = NULL;
  g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  g_assert_nonnull (strstr (label, "2 workers"));
  g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
  g_autoptr (GVariant) target = g_menu_model_get_item_attribute_value (menu, 0, G_MENU_ATTRIBUTE_TARGET, NULL);
  g_assert_cmpint (g_variant_get_int64 (target), ==, 1);
  g_assert_null (find_timeline_window ());
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (results), action, target));
  assert_timeline_opened (window);
}

/* The Run page's live wait chart marks where each epoch after the first
 * begins, as the timeline does, between the batches on either side. */
static void
test_live_epoch_marks (void)
{
  g_type_class_unref (g_type_class_ref (LS_TYPE_WINDOW)); /* the templates' resource */
  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  LsRunPage *page = g_object_new (LS_TYPE_RUN_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  ls_run_page_sweep_started (page, 1);
  ls_run_page_run_started (page, 1, 1, "workers 2");
  for (int seq = 0; seq < 30; seq++)
    {
      g_autofree char *line = g_strdup_printf ("{\"event\":\"batch\",\"seq\":%d,\"epoch\":%d,\"wait_ms\":%g}", seq,
                                               seq / 10, seq % 10 == 0 ? 12.0 : 1.5);
      g_autoptr (JsonNode) node = json_from_string (line, NULL);
      ls_run_page_event (page, json_node_get_object (node));
    }
  const ls_chart *chart = ls_chart_view_get_chart (LS_CHART_VIEW (ls_run_page_get_wait_chart (page)));
  g_assert_nonnull (chart);
  guint marks = 0;
  for (guint i = 0; i < chart->rules->len; i++)
    {
      const ls_chart_rule *r = &g_array_index (chart->rules, ls_chart_rule, i);
      if (r->axis != LS_CHART_X)
        continue;
      g_assert_cmpfloat (r->value, ==, marks == 0 ? 9.5 : 19.5);
      g_autofree char *want = g_strdup_printf ("epoch %u", marks + 1);
      g_assert_cmpstr (r->label, ==, want);
      marks++;
    }
  g_assert_cmpuint (marks, ==, 2);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  save_png (window, "gui-run-epoch-marks.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_missing_run (void)
{
  LsTimelineWindow *w = open_window (999, 800, 500);
  const char *error = NULL;
  g_assert_true (ls_timeline_window_is_loaded (w, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, "999"));
  g_assert_null (ls_timeline_view_get_chart (ls_timeline_window_get_view (w)));
  gtk_window_destroy (GTK_WINDOW (w));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  tmp_dir = g_dir_make_tmp ("loadscope-gui-timeline-XXXXXX", NULL);
  db = g_build_filename (tmp_dir, "runs.sqlite", NULL);
  const char *exe = g_getenv ("LOADSCOPE");
  g_assert_nonnull (exe);
  /* A sweep of one configuration: run 1, in sweep 1 (Results opens it). */
  const char *argv_run[] = { exe, "sweep", "--dataset", "synthetic", "--count", "192", "--size", "64x64",
                             "--sample-cost-us", "400", "--workers", "2", "--pin", "off", "--start", "fork",
                             "--batch-size", "16", "--epochs", "2", "--sink", "sim", "--model-ms", "4", "--db", db,
                             NULL };
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv_run, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  g_test_add_func ("/gui/timeline/lanes-hover-zoom", test_timeline);
  g_test_add_func ("/gui/timeline/missing-run", test_missing_run);
  g_test_add_func ("/gui/timeline/from-history", test_from_history);
  g_test_add_func ("/gui/timeline/from-results", test_from_results);
  g_test_add_func ("/gui/timeline/live-epoch-marks", test_live_epoch_marks);
  int rc = g_test_run ();
  cairo_destroy (cr2 ());
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (db);
  return rc;
}
