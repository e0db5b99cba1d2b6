/* The Results page's GPU-speed control draws the model's dashed lines over
 * a recorded sweep, and the Tune window runs `loadscope tune` with its
 * budgets and shows the verdict; screenshots are kept (LS_ARTIFACTS). Real
 * runners on a small synthetic dataset and the simulated sink. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>

#include "app/analysis/tune-session.h"
#include "app/core/sweep-request.h"
#include "test-gui-util.h"
#include "test-util.h"
#include "ui/ls-results-page.h"
#include "ui/ls-tune-dialog-private.h"
#include "ui/ls-whatif-bar-private.h"
#include "ui/ls-window.h"

static char *tmp_dir;
static LsResultsPage *page;
static gboolean tune_done_called;

static gboolean
charts_read (void)
{
  return !ls_results_page_is_loading (page);
}

static LsWhatifBar *bar;

/* The what-if bar reads the store in a thread, then draws its lines. */
static gboolean
whatif_drawn (void)
{
  return !ls_whatif_bar_is_reading (bar);
}

static LsTuneDialog *dialog;

static gboolean
tune_finished (void)
{
  return !ls_tune_dialog_is_running (dialog);
}

#define DATA "--dataset", "synthetic", "--count", "256", "--size", "64x64", "--sample-cost-us", "600", \
             "--batch-size", "16", "--batches", "32", "--sink", "sim", "--model-ms", "6"

static gboolean
second_run_started (void)
{
  return g_str_has_prefix (ls_tune_dialog_get_progress (dialog), "Run 2: ") || !ls_tune_dialog_is_running (dialog);
}

static void
on_tune_done (const char *db, gint64 sweep_id, JsonArray *summaries, gpointer data)
{
  tune_done_called = sweep_id > 0 && json_array_get_length (summaries) > 0;
  ls_results_page_show_sweep (page, db, sweep_id, summaries);
}

static void
test_whatif_and_tune (void)
{
  g_autofree char *db = g_build_filename (tmp_dir, "runs.sqlite", NULL);
  const char *exe = g_getenv ("LOADSCOPE");
  g_assert_nonnull (exe);
  const char *argv[] = { exe, "sweep", DATA, "--workers", "0,1,2,3", "--pin", "off,staging", "--db", db, "--json", NULL };
  g_autofree char *out = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (JsonNode) node = json_from_string (out, NULL);
  g_assert_true (node && JSON_NODE_HOLDS_ARRAY (node));

  /* The templates' resource comes with the window's class. */
  g_type_class_unref (g_type_class_ref (LS_TYPE_WINDOW));
  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  page = g_object_new (LS_TYPE_RESULTS_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  ls_results_page_show_sweep (page, db, 1, json_node_get_array (node));
  ls_test_gui_iterate_until (charts_read, 60);
  g_assert_true (charts_read ());
  bar = LS_WHATIF_BAR (ls_results_page_get_whatif_bar (page));
  ls_test_gui_iterate_until (whatif_drawn, 60);
  /* One GPU-busy and one throughput line per pin mode. */
  g_assert_cmpuint (ls_whatif_bar_n_predicted (bar), ==, 4);
  ls_whatif_bar_set_speed (bar, 2.0);
  g_assert_true (ls_whatif_bar_is_reading (bar)); /* the scale's move waits to rest, then reads in a thread */
  ls_test_gui_iterate_until (whatif_drawn, 60);
  g_assert_cmpfloat (ls_whatif_bar_get_speed (bar), ==, 2.0);
  g_assert_cmpuint (ls_whatif_bar_n_predicted (bar), ==, 4);
  ls_test_gui_screenshot ("gui-whatif-2x.png");
  ls_whatif_bar_set_speed (bar, 0.25);
  ls_test_gui_iterate_until (whatif_drawn, 60);
  ls_test_gui_screenshot ("gui-whatif-quarter.png");

  /* The Tune window: the runner's argv leaves tune its knobs. */
  g_autoptr (ls_sweep_request) request = ls_sweep_request_new ();
  const char *knobs[] = { DATA, "--workers", "0,1", "--pin", "staging" };
  for (guint i = 0; i < G_N_ELEMENTS (knobs); i += 2)
    g_assert_true (ls_sweep_request_set_text (request, knobs[i] + 2, knobs[i + 1], NULL));
  g_autoptr (LsTuneSession) tune = ls_tune_session_new (request, db, "2G", "20s");
  g_autoptr (GPtrArray) args = ls_tune_session_argv (tune, exe);
  g_autofree char *joined = g_strjoinv (" ", (char **) args->pdata);
  g_assert_null (strstr (joined, "--workers"));
  g_assert_null (strstr (joined, "--pin"));
  g_assert_nonnull (strstr (joined, " tune --dataset synthetic"));
  g_assert_nonnull (strstr (joined, "--memory-budget 2G --time-budget 20s"));
  g_assert_nonnull (strstr (joined, "--model-ms 6"));

  dialog = ls_tune_dialog_new (GTK_WINDOW (window), request, db, on_tune_done, NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  ls_test_gui_screenshot ("gui-tune.png");
  ls_tune_dialog_start (dialog);
  g_assert_true (ls_tune_dialog_is_running (dialog));
  ls_test_gui_iterate_until (tune_finished, 170);
  g_assert_false (ls_tune_dialog_is_running (dialog));
  g_assert_nonnull (strstr (ls_tune_dialog_get_result (dialog), "DataLoader("));
  g_assert_true (tune_done_called);
  ls_test_gui_iterate_until (ls_test_gui_never, 2);
  ls_test_gui_screenshot ("gui-tune-done.png");
  ls_test_gui_iterate_until (charts_read, 60);

  /* Progress as tune measures, and Cancel: it answers from what it measured. */
  ls_tune_dialog_start (dialog);
  ls_test_gui_iterate_until (second_run_started, 120);
  g_assert_true (g_str_has_prefix (ls_tune_dialog_get_progress (dialog), "Run 2: measuring "));
  ls_tune_dialog_cancel (dialog);
  ls_test_gui_iterate_until (tune_finished, 120);
  g_assert_false (ls_tune_dialog_is_running (dialog));
  g_test_message ("after Cancel: %s", ls_tune_dialog_get_result (dialog));
  g_assert_nonnull (strstr (ls_tune_dialog_get_result (dialog), "Stopped: cancelled."));
  g_assert_nonnull (strstr (ls_tune_dialog_get_result (dialog), "DataLoader("));
  ls_test_gui_iterate_until (charts_read, 60);
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
}

/* Runs the command line (LOADSCOPE) with args up to NULL; fails the test
 * when it fails. */
static void
loadscope (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autofree char *err = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                               &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("loadscope %s: %s", first, err);
}

/* A sweep without a GPU consumer: a PyTorch script whose 3 ms step runs on
 * the CPU (sink none), made from a recorded sweep's export. What-if offers
 * the step's time, not a GPU's speed. */
static void
test_whatif_on_the_cpu (void)
{
  g_autofree char *src = g_build_filename (tmp_dir, "cpu-source.sqlite", NULL);
  g_autofree char *db = g_build_filename (tmp_dir, "cpu-script.sqlite", NULL);
  g_autofree char *file = g_build_filename (tmp_dir, "cpu-script.json", NULL);
  loadscope ("sweep", "--dataset", "synthetic", "--count", "192", "--size", "32x32", "--sample-cost-us", "300",
             "--batch-size", "16", "--sink", "none", "--workers", "0,1", "--db", src, NULL);
  loadscope ("export", "--format", "json", "--all", "--db", src, "-o", file, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, file, NULL));
  JsonArray *runs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "runs");
  g_autoptr (JsonArray) summaries = json_array_new ();
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      JsonObject *summary = json_object_get_object_member (run, "summary");
      JsonObject *target = json_object_new ();
      json_object_set_string_member (target, "kind", "pytorch");
      json_object_set_double_member (target, "step_share", 0.1);
      json_object_set_double_member (target, "step_ms_p50", 3.0);
      json_object_set_object_member (summary, "target", target);
      JsonArray *batches = json_object_get_array_member (run, "batches");
      for (guint b = 0; b < json_array_get_length (batches); b++)
        json_object_set_double_member (json_array_get_object_element (batches, b), "compute_ms", 3.0);
      json_array_add_object_element (summaries, json_object_ref (summary));
    }
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, file, NULL));
  loadscope ("import", file, "--db", db, NULL);

  GtkWidget *window = adw_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  page = g_object_new (LS_TYPE_RESULTS_PAGE, NULL);
  adw_window_set_content (ADW_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  ls_results_page_show_sweep (page, db, 1, summaries);
  ls_test_gui_iterate_until (charts_read, 60);
  bar = LS_WHATIF_BAR (ls_results_page_get_whatif_bar (page));
  ls_test_gui_iterate_until (whatif_drawn, 60);
  g_assert_true (ls_whatif_bar_is_step_time (bar));
  ls_whatif_bar_set_speed (bar, 2.0);
  ls_test_gui_iterate_until (whatif_drawn, 60);
  g_assert_cmpuint (ls_whatif_bar_n_predicted (bar), >, 0);
  ls_test_gui_screenshot ("gui-whatif-cpu.png");
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  tmp_dir = g_dir_make_tmp ("loadscope-gui-whatif-XXXXXX", NULL);
  g_test_add_func ("/gui/whatif-on-the-cpu", test_whatif_on_the_cpu);
  g_test_add_func ("/gui/whatif-and-tune", test_whatif_and_tune);
  int rc = g_test_run ();
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
