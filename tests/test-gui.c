/* The workbench under Xvfb, as a user drives it: generate a small sample
 * dataset, run a 2-configuration sweep, read the charts and the history,
 * export a PNG and a bundle, import the bundle; a screenshot is kept. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/core/settings.h"
#include "app/report/sweep-charts.h"
#include "ui/ls-application.h"
#include "ui/ls-compare-window.h"
#include "ui/ls-history-page-private.h"
#include "ui/ls-results-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-window.h"
#include "ui/ls-window.h"
#include "test-gui-util.h"
#include "test-util.h"

static LsWindow *window;

static LsSetupPage *setup;
static LsResultsPage *results;
static LsHistoryPage *history;

static gboolean
dataset_ready (void)
{
  return ls_setup_page_get_dataset (setup) != NULL;
}

static gboolean
sweep_done (void)
{
  return ls_results_page_count_charts_with_data (results) > 0
         && gtk_widget_get_visible (GTK_WIDGET (gtk_widget_get_first_child (GTK_WIDGET (results)))) == FALSE;
}

static gboolean
dataset_checked (void)
{
  return !ls_setup_page_is_checking_dataset (setup);
}

/* The history reads the store in a thread. */
static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history);
}

/* Compare, export, import and report run in a thread. */
static gboolean
history_idle (void)
{
  return !ls_history_page_is_busy (history);
}

static gboolean
compare_open (void)
{
  return ls_history_page_compare_window (history) != NULL || !ls_history_page_is_busy (history);
}

/* A store job of the page that ended: it said what it set out to. */
static void
assert_job_said (const char *start)
{
  ls_test_gui_iterate_until (history_idle, 60);
  g_test_message ("%s", ls_history_page_last_message (history));
  g_assert_true (g_str_has_prefix (ls_history_page_last_message (history), start));
}

static gboolean
compare_read (void)
{
  GtkWindow *compare = ls_history_page_compare_window (history);
  return compare && !ls_compare_window_is_reading (LS_COMPARE_WINDOW (compare));
}

static void
show_page (const char *name)
{
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  adw_view_stack_set_visible_child_name (stack, name);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
}

static void
test_workbench_end_to_end (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_autoptr (LsApplication) app = ls_application_new (settings);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_application_activate (G_APPLICATION (app));
  window = LS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);

  setup = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_SETUP_PAGE);
  results = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RESULTS_PAGE);
  history = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_HISTORY_PAGE);
  g_assert_nonnull (setup);
  ls_test_gui_screenshot ("gui-setup-empty.png");

  /* A folder of JPEGs without class folders: what is wrong is said on the
   * page when it is chosen, and the sweep is refused with the reason. */
  g_autofree char *flat = g_build_filename (g_get_user_cache_dir (), "flat-jpegs", NULL);
  g_assert_cmpint (g_mkdir_with_parents (flat, 0700), ==, 0);
  for (int i = 0; i < 30; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/img%02d.jpg", flat, i);
      g_assert_true (g_file_set_contents (name, "\xff\xd8\xff\xd9", 4, NULL));
    }
  ls_setup_page_set_dataset (setup, flat);
  ls_test_gui_iterate_until (dataset_checked, 30);
  g_assert_nonnull (ls_setup_page_get_dataset_problem (setup));
  g_assert_nonnull (strstr (ls_setup_page_get_dataset_problem (setup), "found 30 JPEG files but no class folders"));
  {
    g_autoptr (GError) refused = NULL;
    g_autoptr (ls_sweep_request) none = ls_setup_page_get_request (setup, &refused);
    g_assert_null (none);
    g_assert_nonnull (strstr (refused->message, "no class folders"));
  }
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-setup-bad-dataset.png");

  /* Generate the (small) sample dataset from the Setup page. */
  ls_setup_page_set_dataset (setup, NULL);
  ls_setup_page_generate_sample (setup);
  ls_test_gui_iterate_until (dataset_ready, 120);
  g_assert_nonnull (ls_setup_page_get_dataset (setup));

  /* Two configurations: workers 0 and 1, pin off. */
  g_settings_set_string (settings, "workers", "0,1");
  g_settings_set_string (settings, "pin-modes", "off");
  g_settings_set_string (settings, "start-methods", "fork");
  g_settings_set_int (settings, "batch-size", 8);
  g_settings_set_int (settings, "batches-per-run", 6);
  g_settings_set_double (settings, "model-ms", 2);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-setup.png");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-run.png"); /* the live view, mid-sweep */
  ls_test_gui_iterate_until (sweep_done, 180);
  g_assert_cmpuint (ls_results_page_count_charts_with_data (results), ==, ls_sweep_charts_n ());
  ls_test_gui_screenshot ("gui-results.png");

  show_page ("history");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 2);
  ls_test_gui_screenshot ("gui-history.png");

  /* The smallest window the workbench is made for: every page still shows
   * its text at full size (charts scroll rather than shrink). */
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 650);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-history-900.png");
  show_page ("results");
  ls_test_gui_screenshot ("gui-results-900.png");
  show_page ("run");
  ls_test_gui_screenshot ("gui-run-900.png");
  show_page ("history");

  /* Export a PNG of the sweep's charts and a bundle, then import it. */
  const char *dir = g_getenv ("LS_ARTIFACTS");
  g_autofree char *png = g_build_filename (dir ? dir : ".", "gui-export.png", NULL);
  g_autofree char *bundle = g_build_filename (g_get_tmp_dir (), "ls-gui-bundle.sqlite", NULL);
  g_unlink (png);
  g_unlink (bundle);
  ls_history_page_export_to (history, png);
  g_assert_true (ls_history_page_is_busy (history)); /* in its thread: the window goes on */
  assert_job_said ("Exported to ");
  gchar *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (png, &data, &len, NULL));
  g_assert_cmpuint (len, >, 1000);
  g_assert_true (memcmp (data, "\x89PNG", 4) == 0);
  g_free (data);
  ls_history_page_export_to (history, bundle);
  assert_job_said ("Exported to ");
  ls_history_page_import_from (history, bundle);
  assert_job_said ("Imported 0 runs (2 already present)");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 2); /* the same runs: not twice */
  g_unlink (bundle);

  /* Export report…: the same report as `loadscope report`, of the shown runs. */
  g_autofree char *report = g_build_filename (dir ? dir : ".", "gui-report.html", NULL);
  g_unlink (report);
  ls_history_page_report_to (history, report);
  assert_job_said ("Report written to ");
  /* The toast offers to open the report itself. */
  AdwToast *said = ls_window_last_toast (window);
  g_assert_nonnull (said);
  g_assert_cmpstr (adw_toast_get_button_label (said), ==, "_Open"); /* the test runs in C */
  g_assert_cmpstr (adw_toast_get_action_name (said), ==, "win.open-file");
  g_autoptr (GFile) report_file = g_file_new_for_path (report);
  g_autofree char *report_uri = g_file_get_uri (report_file);
  g_assert_cmpstr (g_variant_get_string (adw_toast_get_action_target_value (said), NULL), ==, report_uri);
  g_autofree char *html = NULL;
  g_assert_true (g_file_get_contents (report, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "Content-Security-Policy"));
  g_assert_nonnull (strstr (html, "DataLoader("));
  g_assert_nonnull (strstr (html, "<svg"));

  /* Compare: both runs, the knob they differ in (workers 0 and 1) marked. */
  ls_history_page_compare_shown (history);
  ls_test_gui_iterate_until (compare_open, 60);
  GtkWindow *compare = ls_history_page_compare_window (history);
  g_assert_nonnull (compare);
  g_assert_cmpuint (ls_compare_window_n_runs (LS_COMPARE_WINDOW (compare)), ==, 2);
  GPtrArray *differing = ls_compare_window_differing_knobs (LS_COMPARE_WINDOW (compare));
  g_assert_cmpuint (differing->len, ==, 1);
  g_assert_cmpstr (differing->pdata[0], ==, "workers");
  /* Under the table, the runs' waits and memory overlaid, read in a thread. */
  ls_test_gui_iterate_until (compare_read, 30);
  g_assert_cmpuint (ls_compare_window_n_cdf_points (LS_COMPARE_WINDOW (compare)), >, 0);
  g_assert_cmpuint (ls_compare_window_n_memory_points (LS_COMPARE_WINDOW (compare)), >, 0);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-compare.png");
  gtk_window_destroy (compare);

  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
}

int
main (int argc, char **argv)
{
  /* A home of its own: store, cache (the sample dataset) and settings. */
  g_autofree char *home = g_dir_make_tmp ("ls-gui-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *db = g_build_filename (data, "history.sqlite", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("LOADSCOPE_DB", db, TRUE);
  if (g_getenv ("LS_ARTIFACTS"))
    g_mkdir_with_parents (g_getenv ("LS_ARTIFACTS"), 0755);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/workbench/end-to-end", test_workbench_end_to_end);
  return ls_test_run_checked_shm_only ();
}
