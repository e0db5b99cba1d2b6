/* Results at the sizes a desktop gives it, in light and dark: a loader
 * sweep, a script sweep (tests/probe-standin), a one-configuration sweep
 * and a sweep whose runs all failed, recorded by the CLI before the
 * window starts. The window opens on the latest (its failures said, not a
 * check mark), each sweep is picked from Results' own picker, and at
 * 1024x700 (the smallest window), 1200x780 (the default) and 1600x1000
 * every chart keeps a plot of at least 240 x 140 px with its axis titles
 * whole. A toast with <, > and & shows its whole text. Screenshots are
 * kept (LS_ARTIFACTS). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/chart/chart-render.h"
#include "app/core/settings.h"
#include "ui/ls-application.h"
#include "ui/ls-chart-view.h"
#include "ui/ls-history-page-private.h"
#include "ui/ls-results-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-window.h"
#include "test-gui-util.h"
#include "test-util.h"

static char *home, *db;
static LsResultsPage *results;
static LsHistoryPage *history;

static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history) && ls_history_page_count_runs (history) > 0;
}

#define MIN_PLOT_W 240
#define MIN_PLOT_H 140

/* A sweep by the CLI into the test's store. */
static void
record (const char *const *extra)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  g_ptr_array_add (argv, "sweep");
  for (const char *const *a = extra; *a; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, "--db");
  g_ptr_array_add (argv, db);
  g_ptr_array_add (argv, NULL);
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (home, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  /* a sweep whose runs all failed exits non-zero: recorded all the same */
}

static gboolean
results_read (void)
{
  return !ls_results_page_is_loading (results) && ls_results_page_get_sweep_id (results) > 0;
}

/* Every chart of the page, at the window's size now: the plot keeps its
 * room and the axis titles are not cut. */
/* No x label of the chart, as laid out at the widget's size, overlaps
 * another (they are thinned or turned upright instead). */
static void
assert_x_labels_apart (LsChartView *view)
{
  const ls_chart *chart = ls_chart_view_get_chart (view);
  g_assert_nonnull (chart);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  g_autoptr (GArray) boxes = ls_chart_x_label_boxes (chart, cr, gtk_widget_get_width (GTK_WIDGET (view)),
                                                     gtk_widget_get_height (GTK_WIDGET (view)));
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  if (ls_chart_view_n_points (view) > 0)
    g_assert_cmpuint (boxes->len, >, 0);
  for (guint a = 0; a < boxes->len; a++)
    for (guint b = a + 1; b < boxes->len; b++)
      {
        const ls_chart_box *p = &g_array_index (boxes, ls_chart_box, a), *q = &g_array_index (boxes, ls_chart_box, b);
        gboolean apart = p->x + p->w <= q->x + 0.5 || q->x + q->w <= p->x + 0.5 || p->y + p->h <= q->y + 0.5
                         || q->y + q->h <= p->y + 0.5;
        if (!apart)
          g_test_message ("  x labels %u and %u overlap: %.1f+%.1f and %.1f+%.1f", a, b, p->x, p->w, q->x, q->w);
        g_assert_true (apart);
      }
}

static void
assert_charts_fit (const char *what, int w, int h, const char *theme)
{
  g_autofree char *shot = g_strdup_printf ("results-%s-%dx%d-%s.png", what, w, h, theme);
  ls_test_gui_screenshot (shot);
  for (guint i = 0; i < ls_results_page_n_charts (results); i++)
    {
      LsChartView *chart = ls_results_page_get_chart (results, i);
      graphene_rect_t plot;
      gboolean whole = FALSE;
      g_test_message ("%s %dx%d %s chart %u: %dx%d", what, w, h, theme, i, gtk_widget_get_width (GTK_WIDGET (chart)),
                      gtk_widget_get_height (GTK_WIDGET (chart)));
      g_assert_true (ls_chart_view_get_plot_area (chart, &plot, &whole));
      g_test_message ("  plot %.0fx%.0f, titles %s", plot.size.width, plot.size.height, whole ? "whole" : "cut");
      g_assert_cmpfloat (plot.size.width, >=, MIN_PLOT_W);
      g_assert_cmpfloat (plot.size.height, >=, MIN_PLOT_H);
      g_assert_true (whole);
      assert_x_labels_apart (chart);
    }
}

/* The picker's entry of a sweep: newest first. */
static void
pick (guint n_sweeps, gint64 sweep_id)
{
  GtkDropDown *picker = ls_test_gui_find_child (GTK_WIDGET (results), GTK_TYPE_DROP_DOWN);
  g_assert_nonnull (picker);
  gtk_drop_down_set_selected (picker, (guint) (n_sweeps - sweep_id));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  ls_test_gui_iterate_until (results_read, 60);
  g_assert_cmpint (ls_results_page_get_sweep_id (results), ==, sweep_id);
}

/* A label at or below w showing exactly text (or, part, text in it). */
static gboolean
shows_text (GtkWidget *w, const char *text, gboolean part)
{
  if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w))
    {
      const char *shown = gtk_label_get_text (GTK_LABEL (w));
      if (part ? strstr (shown, text) != NULL : g_str_equal (shown, text))
        return TRUE;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    if (shows_text (c, text, part))
      return TRUE;
  return FALSE;
}

static gboolean
shows_label (GtkWidget *w, const char *text)
{
  return shows_text (w, text, FALSE);
}

/* History opens the sweep of one of its rows in Results. */
static void
open_from_history (AdwViewStack *stack, gint64 sweep)
{
  adw_view_stack_set_visible_child_name (stack, "history");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  guint n = ls_history_page_count_runs (history), row = 0;
  while (row < n && ls_history_page_row_sweep (history, row) != sweep)
    row++;
  g_assert_cmpuint (row, <, n);
  ls_history_page_open_row (history, row);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "results");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  ls_test_gui_iterate_until (results_read, 60);
  g_assert_cmpint (ls_results_page_get_sweep_id (results), ==, sweep);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  g_assert_cmpuint (ls_results_page_count_charts_with_data (results), ==, ls_results_page_n_charts (results));
}

static void
test_results_fit (void)
{
  const char *standin = g_getenv ("LS_PROBE_STANDIN");
  g_assert_nonnull (standin);
  g_autofree char *script = g_build_filename (home, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "# not run: the stand-in speaks the probe's protocol\n", -1, NULL));
#define DATA "--dataset", "synthetic", "--count", "256", "--size", "64x64", "--sample-cost-us", "600", \
             "--batch-size", "16", "--batches", "24", "--sink", "sim", "--model-ms", "6"
  const char *loader[] = { DATA, "--workers", "0,1,2", "--pin", "off,staging", NULL };
  const char *scripted[] = { "--target", "pytorch", "--python", standin, "--script", script, "--script-args",
                             "--batches 16 --step-ms 4", "--workers", "0,1", NULL };
  const char *one[] = { DATA, "--workers", "1", "--pin", "off", NULL };
  const char *failing[] = { "--target", "pytorch", "--python", standin, "--script", script, "--script-args",
                            "--batches 2 --exit 3", "--workers", "0,1", NULL };
  record (loader);
  record (scripted);
  record (one);
  record (failing);

  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_autoptr (LsApplication) app = ls_application_new (settings);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_application_activate (G_APPLICATION (app));
  LsWindow *window = LS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  results = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RESULTS_PAGE);
  g_assert_nonnull (results);
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  adw_view_stack_set_visible_child_name (stack, "results");

  /* The latest sweep, recorded before the window opened: its runs failed,
   * and Results says how many and why. */
  ls_test_gui_iterate_until (results_read, 60);
  g_assert_cmpint (ls_results_page_get_sweep_id (results), ==, 4);
  g_assert_cmpuint (ls_results_page_n_sweeps (results), ==, 4);
  const char *failures = ls_results_page_get_failures (results);
  g_assert_nonnull (failures);
  g_test_message ("failures: %s", failures);
  g_assert_true (g_str_has_prefix (failures, "2 of 2 failed: "));
  g_assert_nonnull (strstr (failures, "exit status 3"));
  ls_test_gui_screenshot ("results-failed.png");

  const struct {
    const char *what;
    gint64 sweep;
  } sweeps[] = { { "loader", 1 }, { "script", 2 }, { "one", 3 } };
  /* The default size is the one a first start gets: the schema's, which
   * the window took (the .ui's own is only a fallback). */
  g_autoptr (GVariant) default_w = g_settings_get_default_value (settings, "window-width");
  g_autoptr (GVariant) default_h = g_settings_get_default_value (settings, "window-height");
  int first_w = 0, first_h = 0;
  gtk_window_get_default_size (GTK_WINDOW (window), &first_w, &first_h);
  g_assert_cmpint (first_w, ==, g_variant_get_int32 (default_w));
  g_assert_cmpint (first_h, ==, g_variant_get_int32 (default_h));
  const int sizes[][2] = { { 1024, 700 }, { g_variant_get_int32 (default_w), g_variant_get_int32 (default_h) }, { 1600, 1000 } };
  AdwStyleManager *style = adw_style_manager_get_default ();
  for (guint s = 0; s < G_N_ELEMENTS (sweeps); s++)
    {
      pick (4, sweeps[s].sweep);
      g_assert_null (ls_results_page_get_failures (results));
      g_assert_cmpuint (ls_results_page_count_charts_with_data (results), >, 0);
      for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
        for (int dark = 0; dark < 2; dark++)
          {
            adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
            gtk_window_set_default_size (GTK_WINDOW (window), sizes[k][0], sizes[k][1]);
            ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
            assert_charts_fit (sweeps[s].what, sizes[k][0], sizes[k][1], dark ? "dark" : "light");
          }
      /* The charts below the first row, as one scrolls to them. */
      gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
      ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
      GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (ls_results_page_get_chart (results, 0)),
                                                     GTK_TYPE_SCROLLED_WINDOW);
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
      gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v));
      g_autofree char *bottom = g_strdup_printf ("results-%s-1024x700-scrolled.png", sweeps[s].what);
      ls_test_gui_screenshot (bottom);
      gtk_adjustment_set_value (v, 0);
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);

  /* History: the figures first, what every run shares in one line, a
   * failed run's reason, and any row's sweep opened in Results. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  history = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_HISTORY_PAGE);
  g_assert_nonnull (history);
  adw_view_stack_set_visible_child_name (stack, "history");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 11);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  ls_test_gui_screenshot ("history-1024x700.png");
  const char *folded = ls_history_page_folded_text (history);
  g_assert_nonnull (folded);
  g_test_message ("folded: %s", folded);
  g_assert_true (g_str_has_prefix (folded, "All 11 runs shown: "));
  g_assert_nonnull (strstr (folded, "Machine "));
  g_assert_false (ls_history_page_column_shown (history, "Machine"));
  g_assert_true (ls_history_page_column_shown (history, "img/s"));
  g_assert_true (ls_history_page_column_shown (history, "Status"));
  g_assert_true (shows_text (GTK_WIDGET (history), "failed: train.py ended with exit status 3", TRUE));
  open_from_history (stack, 1);
  ls_test_gui_screenshot ("history-opened-sweep-1.png");
  open_from_history (stack, 3);

  /* A filter that matches nothing says so, and what values there are. */
  adw_view_stack_set_visible_child_name (stack, "history");
  GtkSearchEntry *search = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_SEARCH_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (search), "no-such-machine");
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  g_assert_true (shows_text (GTK_WIDGET (history), "No run matches “no-such-machine”", TRUE));
  g_assert_true (shows_text (GTK_WIDGET (history), "Values recorded: ", TRUE));
  ls_test_gui_screenshot ("history-no-match.png");
  gtk_editable_set_text (GTK_EDITABLE (search), "");

  /* A message with markup's characters shows whole. */
  const char *message = "No JPEG files: expected <class>/<image>.jpg & a class folder > 0";
  ls_window_toast (window, message);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  g_assert_true (shows_label (GTK_WIDGET (window), message));
  ls_test_gui_screenshot ("results-toast.png");


  /* The menu's Style choice: applied at once and saved. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "color-scheme", g_variant_new_string ("dark"));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  g_assert_true (adw_style_manager_get_dark (style));
  g_autofree char *saved = g_settings_get_string (settings, "color-scheme");
  g_assert_cmpstr (saved, ==, "dark");
  g_action_group_activate_action (G_ACTION_GROUP (app), "color-scheme", g_variant_new_string ("default"));

  /* A dataset or script chosen is saved at once, not only on a clean close. */
  LsSetupPage *setup = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_SETUP_PAGE);
  g_assert_nonnull (setup);
  ls_setup_page_set_dataset (setup, home);
  ls_setup_page_set_script (setup, script);
  g_autofree char *dataset_saved = g_settings_get_string (settings, "last-dataset");
  g_autofree char *script_saved = g_settings_get_string (settings, "last-script");
  g_assert_cmpstr (dataset_saved, ==, home);
  g_assert_cmpstr (script_saved, ==, script);
  ls_test_gui_iterate_until (ls_test_gui_never, 1); /* their checks end */

  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
}

int
main (int argc, char **argv)
{
  /* A home of its own: store and settings. */
  home = g_dir_make_tmp ("ls-gui-results-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  db = g_build_filename (home, "runs.sqlite", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("LOADSCOPE_DB", db, TRUE);
  if (g_getenv ("LS_ARTIFACTS"))
    g_mkdir_with_parents (g_getenv ("LS_ARTIFACTS"), 0755);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/results/fit", test_results_fit);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (home);
  g_free (home);
  g_free (db);
  return rc;
}
