/* Ranks in the window, without torch: Setup's Ranks and Threads fields
 * reach the runner's options (`run --ranks N --threads T`), and a stored
 * run with 2 ranks shows two rank rows on Results, the slowest highlighted,
 * with the node's totals; History and Compare carry ranks and threads, and
 * the report groups figures per rank. The run is a script run recorded by
 * the CLI with the probe's stand-in (tests/probe-standin.c), its summary
 * given the ranks of a real 2-rank DDP run (tests/data/ranks-2.json).
 * Screenshots at 1024x700 and 1600x1000, light and dark (LS_ARTIFACTS). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/core/ranks-table.h"
#include "app/core/settings.h"
#include "app/core/sweep-grid.h"
#include "app/report/compare-table.h"
#include "app/report/report.h"
#include "app/store/store-query.h"
#include "ui/ls-application.h"
#include "ui/ls-history-page-private.h"
#include "ui/ls-results-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-window.h"
#include "test-gui-util.h"
#include "test-sql.h"
#include "test-util.h"

#define MIN_PLOT_W 240
#define MIN_PLOT_H 140

static char *home, *db, *script, *python;
static LsSetupPage *setup;
static LsResultsPage *results;
static LsHistoryPage *history;

static gboolean
script_checked (void)
{
  return !ls_setup_page_is_checking_script (setup);
}

static gboolean
results_read (void)
{
  return !ls_results_page_is_loading (results) && ls_results_page_get_sweep_id (results) > 0;
}

static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history) && ls_history_page_count_runs (history) > 0;
}

/* A label at or below w showing exactly text. */
static gboolean
shows_label (GtkWidget *w, const char *text)
{
  if (GTK_IS_LABEL (w) && g_str_equal (gtk_label_get_text (GTK_LABEL (w)), text))
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    if (shows_label (c, text))
      return TRUE;
  return FALSE;
}

/* Every scrolled window at or below w scrolled to its end. */
static void
scroll_to_end (GtkWidget *w)
{
  if (GTK_IS_SCROLLED_WINDOW (w))
    {
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (w));
      gtk_adjustment_set_value (v, gtk_adjustment_get_upper (v));
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    scroll_to_end (c);
}

static gboolean
compare_open (void)
{
  return !ls_history_page_is_busy (history) && ls_history_page_compare_window (history) != NULL;
}

/* A sweep of the stand-in "script" by the CLI into the test's store. */
static void
record (const char *workers)
{
  const char *argv[] = { g_getenv ("LOADSCOPE"), "sweep", "--target", "pytorch", "--python",
                         g_getenv ("LS_PROBE_STANDIN"), "--script", script, "--script-args",
                         "--batches 16 --step-ms 4", "--workers", workers, "--db", db, NULL };
  int status = -1;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (home, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* The latest run's summary gets the fixture's ranks, as a 2-rank run's has them. */
static void
give_ranks (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("LS_TEST_DATA"), "ranks-2.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) parts = g_strsplit (text, "'", -1);
  g_autofree char *quoted = g_strjoinv ("''", parts); /* SQL's quote */
  g_autofree char *sql = g_strdup_printf (
      "UPDATE run SET summary = json_set (summary, '$.target.ranks', json_extract ('%s', '$.ranks'), "
      "'$.target.node', json_extract ('%s', '$.node'), '$.target.world_size', 2, '$.target.ranks_started', 2, "
      "'$.throughput_sps', 53.97), throughput_sps = 53.97 WHERE id = (SELECT max (id) FROM run)",
      quoted, quoted);
  ls_test_sql_exec (db, sql);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT json_array_length (summary, '$.target.ranks') FROM run "
                                        "ORDER BY id DESC LIMIT 1"),
                   ==, 2);
}

/* Setup's Ranks and Threads, as the runner will get them. */
static void
check_setup_request (void)
{
  g_autoptr (GError) error = NULL;
  ls_setup_page_set_target (setup, LS_SETUP_TARGET_PYTORCH);
  ls_setup_page_set_script (setup, script);
  ls_setup_page_set_python (setup, python);
  ls_test_gui_iterate_until (script_checked, 30);
  g_assert_null (ls_setup_page_get_script_problem (setup));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (setup->ranks_group)));

  /* 1 rank and no threads: the script alone, with its own threads. */
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_null (request->knobs[LS_SWEEP_KNOB_RANKS]);
    g_assert_null (request->knobs[LS_SWEEP_KNOB_THREADS]);
  }

  ls_setup_page_set_ranks (setup, 2);
  ls_setup_page_set_threads (setup, "1, 2");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (request->knobs[LS_SWEEP_KNOB_RANKS]->len, ==, 1);
  g_assert_cmpstr (request->knobs[LS_SWEEP_KNOB_RANKS]->pdata[0], ==, "2");
  g_assert_cmpuint (request->knobs[LS_SWEEP_KNOB_THREADS]->len, ==, 2);
  /* Swept like the other lists: twice the configurations. */
  guint64 others = (guint64) ls_sweep_request_count (request, LS_SWEEP_KNOB_WORKERS)
                   * ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN)
                   * ls_sweep_request_count (request, LS_SWEEP_KNOB_START);
  g_assert_cmpuint (ls_sweep_request_configurations (request), ==, 2 * others);
  /* The runner's own command line: `run ... --ranks 2 --threads 1`. */
  g_autoptr (ls_sweep_grid) grid = ls_sweep_grid_new (request, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) argv = ls_sweep_grid_runner_argv (grid, 0, "loadscope", db, 0);
  g_autofree char *joined = g_strjoinv (" ", (char **) argv->pdata);
  g_test_message ("runner: %s", joined);
  g_assert_nonnull (strstr (joined, " --ranks 2 "));
  g_assert_nonnull (strstr (joined, " --threads 1 "));
  /* The estimate counts the thread counts among the lists. */
  g_test_message ("estimate: %s", gtk_label_get_text (setup->estimate));
  g_assert_nonnull (strstr (gtk_label_get_text (setup->estimate), " × 2 thread counts)"));
  /* The settings keep them for the next start. */
  g_autoptr (GSettings) settings = ls_settings_new (NULL);
  g_assert_cmpint (g_settings_get_int (settings, "ranks"), ==, 2);

  /* An empty value in the list is refused, named, as `loadscope sweep` refuses it. */
  ls_setup_page_set_threads (setup, "1,,2");
  g_autoptr (ls_sweep_request) refused = ls_setup_page_get_request (setup, &error);
  g_assert_null (refused);
  g_assert_nonnull (error);
  g_test_message ("refused: %s", error->message);
  g_assert_nonnull (strstr (error->message, "threads"));
  g_clear_error (&error);
  ls_setup_page_set_threads (setup, "1,2");

  /* The loader's target has neither. */
  ls_setup_page_set_target (setup, LS_SETUP_TARGET_LOADSCOPE);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (setup->ranks_group)));
  ls_setup_page_set_target (setup, LS_SETUP_TARGET_PYTORCH);
}

/* Every chart keeps its plot and whole titles; a screenshot. */
static void
assert_fits (const char *what, int w, int h, const char *theme)
{
  g_autofree char *shot = g_strdup_printf ("ranks-%s-%dx%d-%s.png", what, w, h, theme);
  ls_test_gui_screenshot (shot);
  if (!g_str_equal (what, "results"))
    return;
  for (guint i = 0; i < ls_results_page_n_charts (results); i++)
    {
      graphene_rect_t plot;
      gboolean whole = FALSE;
      g_assert_true (ls_chart_view_get_plot_area (ls_results_page_get_chart (results, i), &plot, &whole));
      g_test_message ("%s %dx%d %s chart %u: plot %.0fx%.0f, titles %s", what, w, h, theme, i, plot.size.width,
                      plot.size.height, whole ? "whole" : "cut");
      g_assert_cmpfloat (plot.size.width, >=, MIN_PLOT_W);
      g_assert_cmpfloat (plot.size.height, >=, MIN_PLOT_H);
      g_assert_true (whole);
    }
}

/* Scrolls w's page so that w is at its top, as a user scrolls to it. */
static void
scroll_to (GtkWidget *w)
{
  GtkScrolledWindow *sw = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (w, GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (sw);
  graphene_point_t at;
  g_assert_true (gtk_widget_compute_point (w, GTK_WIDGET (sw), &GRAPHENE_POINT_INIT (0, 0), &at));
  gtk_adjustment_set_value (v, gtk_adjustment_get_value (v) + at.y - 12);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
}

static void
at_sizes (LsWindow *window, AdwViewStack *stack, const char *page)
{
  const int sizes[][2] = { { 1024, 700 }, { 1600, 1000 } };
  AdwStyleManager *style = adw_style_manager_get_default ();
  adw_view_stack_set_visible_child_name (stack, page);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int dark = 0; dark < 2; dark++)
      {
        adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
        gtk_window_set_default_size (GTK_WINDOW (window), sizes[k][0], sizes[k][1]);
        ls_test_gui_iterate_until (ls_test_gui_never, 0.6);
        if (g_str_equal (page, "setup"))
          scroll_to (GTK_WIDGET (setup->ranks_group));
        assert_fits (page, sizes[k][0], sizes[k][1], dark ? "dark" : "light");
      }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

/* Compare and the report read the same store. */
static void
check_compare_and_report (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_assert_no_error (error);
  const gint64 ids[] = { 1, 2 };
  g_autoptr (ls_compare_table) table = ls_compare_table_load (store, ids, 2, &error);
  g_assert_no_error (error);
  const ls_compare_row *ranks = ls_compare_table_find (table, "ranks");
  g_assert_nonnull (ranks);
  g_assert_true (ranks->differs);
  g_assert_cmpstr (ranks->cells->pdata[0], ==, "1");
  g_assert_cmpstr (ranks->cells->pdata[1], ==, "2");
  const ls_compare_row *threads = ls_compare_table_find (table, "threads");
  g_assert_nonnull (threads);
  g_assert_cmpstr (threads->cells->pdata[0], ==, "-"); /* the script's own, not measured alone */
  g_assert_cmpstr (threads->cells->pdata[1], ==, "1");

  ls_report_selection all = { .all = TRUE };
  g_autoptr (ls_report) report = ls_report_load (store, &all, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->ranks->len, ==, 1);
  g_autoptr (GString) html = ls_report_html (report, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (html->str, "<h2>Ranks</h2>"));
  g_assert_nonnull (strstr (html->str, "Rank 1 is the slowest (__getitem__)"));
  g_assert_nonnull (strstr (html->str, "<tr class=\"slowest\"><td class=\"n\">1 <span class=\"tag\">slowest"));
  g_assert_nonnull (strstr (html->str, "<tr class=\"node\"><td>node</td><td class=\"n\" data-v=\"53.97\">"));
  g_autofree char *md_path = g_build_filename (home, "report.md", NULL);
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) md = ls_report_markdown (report, md_path, written, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (md->str, "| **1 (slowest)** | 26.9 | 78.30 | 297.00 | 1 | 1 | 1.2 |"));
  g_assert_nonnull (strstr (md->str, "| **node** | 54.0 | - | - | 2 | 4 | 3.8 |"));
  for (guint i = 0; i < written->len; i++)
    g_remove (written->pdata[i]);
}

static void
test_ranks (void)
{
  script = g_build_filename (home, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "# not run: the stand-in speaks the probe's protocol\n", -1, NULL));
  /* An interpreter for Setup's check: it compiles anything and "imports torch". */
  python = g_build_filename (home, "python-with-torch", NULL);
  g_assert_true (g_file_set_contents (python, "#!/bin/sh\necho 2.1.0 3.11.2\n", -1, NULL));
  g_assert_cmpint (g_chmod (python, 0755), ==, 0);
  record ("0");
  record ("1");
  give_ranks ();

  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_autoptr (LsApplication) app = ls_application_new (settings);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_application_activate (G_APPLICATION (app));
  LsWindow *window = LS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  setup = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_SETUP_PAGE);
  results = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RESULTS_PAGE);
  history = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_HISTORY_PAGE);
  g_assert_nonnull (setup);
  g_assert_nonnull (results);
  g_assert_nonnull (history);

  check_setup_request ();
  at_sizes (window, stack, "setup");

  /* Results opens on the latest sweep: its run has 2 ranks, rank 1 the slow one. */
  adw_view_stack_set_visible_child_name (stack, "results");
  ls_test_gui_iterate_until (results_read, 60);
  g_assert_cmpint (ls_results_page_get_sweep_id (results), ==, 2);
  LsRanksView *ranks = ls_results_page_get_ranks_view (results);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (ranks)));
  g_assert_cmpuint (ls_ranks_view_n_rows (ranks), ==, 2);
  g_assert_cmpint (ls_ranks_view_highlighted (ranks), ==, 1);
  g_assert_true (ls_ranks_view_has_node_row (ranks));
  g_test_message ("headline: %s", ls_results_page_get_headline (results));
  g_assert_nonnull (strstr (ls_results_page_get_headline (results), "rank 1's __getitem__"));
  at_sizes (window, stack, "results");

  /* A sweep of one process: no ranks shown. */
  GtkDropDown *picker = ls_test_gui_find_child (GTK_WIDGET (results), GTK_TYPE_DROP_DOWN);
  gtk_drop_down_set_selected (picker, 1); /* newest first: sweep 1 */
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  ls_test_gui_iterate_until (results_read, 60);
  g_assert_cmpint (ls_results_page_get_sweep_id (results), ==, 1);
  g_assert_cmpuint (ls_ranks_view_n_rows (ranks), ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (ranks)));

  /* History: 1 rank and 2 ranks, so both columns show. */
  adw_view_stack_set_visible_child_name (stack, "history");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 2);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  g_assert_true (ls_history_page_column_shown (history, "Ranks"));
  g_assert_true (ls_history_page_column_shown (history, "Threads"));
  gtk_window_set_default_size (GTK_WINDOW (window), 1024, 700);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  ls_test_gui_screenshot ("ranks-history-1024x700.png");
  /* Compare over both: ranks and threads among the knobs that differ. */
  ls_history_page_compare_shown (history);
  ls_test_gui_iterate_until (compare_open, 30);
  GtkWindow *compare = ls_history_page_compare_window (history);
  g_assert_nonnull (compare);
  gtk_window_set_default_size (compare, 1024, 700);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.8);
  g_assert_true (shows_label (GTK_WIDGET (compare), "ranks  (differs)"));
  g_assert_true (shows_label (GTK_WIDGET (compare), "threads per rank  (differs)"));
  scroll_to_end (GTK_WIDGET (compare)); /* the knobs come after the figures */
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  ls_test_gui_screenshot ("ranks-compare-1024x700.png");
  gtk_window_destroy (compare);

  check_compare_and_report ();
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
}

int
main (int argc, char **argv)
{
  /* A home of its own: store and settings. */
  home = g_dir_make_tmp ("ls-gui-ranks-XXXXXX", NULL);
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
  g_test_add_func ("/ui/ranks/setup-results-history", test_ranks);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (home);
  g_free (home);
  g_free (db);
  g_free (script);
  g_free (python);
  return rc;
}
