/* The Setup page's "Your PyTorch script" target under Xvfb, as a user
 * drives it: choosing the target hides the dataset and shows the script's
 * fields; a missing script and an interpreter without torch are said on
 * the page and refuse the sweep; then a real 2-configuration sweep of
 * tests/pytorch/imagefolder.py (workers 0,1) is recorded in the store as
 * two PyTorch runs. Screenshots are kept. The sweep part is skipped,
 * saying so, where no interpreter here imports torch. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/analysis/tune-session.h"
#include "app/core/settings.h"
#include "app/store/store-query.h"
#include "app/target/target-check.h"
#include "ui/ls-application.h"
#include "ui/ls-history-page.h"
#include "ui/ls-results-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-tune-dialog.h"
#include "ui/ls-window.h"
#include "test-pytorch-util.h"
#include "test-gui-util.h"
#include "test-util.h"

static LsWindow *window;
static LsSetupPage *setup;
static LsResultsPage *results;
static LsHistoryPage *history;
static char *scratch;

static gboolean
script_checked (void)
{
  return !ls_setup_page_is_checking_script (setup);
}

static gboolean
sweep_done (void)
{
  return ls_results_page_count_charts_with_data (results) > 0
         && gtk_widget_get_visible (GTK_WIDGET (gtk_widget_get_first_child (GTK_WIDGET (results)))) == FALSE;
}

static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history);
}

/* The History table's rows after a search: the search entry waits before it
 * filters, so the test waits for the count it expects, not a fixed time. */
static GtkColumnView *history_view;
static guint expected_rows;

static guint
history_rows (void)
{
  return g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (history_view)));
}

static gboolean
history_rows_as_expected (void)
{
  return history_rows () == expected_rows;
}

/* The Setup page's group with this title, as a user finds it. */
static GtkWidget *
find_group (GtkWidget *w, const char *title)
{
  if (ADW_IS_PREFERENCES_GROUP (w) && g_strcmp0 (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (w)), title) == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_group (c, title);
      if (found)
        return found;
    }
  return NULL;
}

static const char *
visible_page (void)
{
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  return adw_view_stack_get_visible_child_name (stack);
}

/* Run sweep is refused with the reason, and nothing starts. */
static void
assert_run_refused (const char *reason)
{
  g_autoptr (GError) refused = NULL;
  g_autoptr (ls_sweep_request) none = ls_setup_page_get_request (setup, &refused);
  g_assert_null (none);
  g_test_message ("refused: %s", refused->message);
  g_assert_nonnull (strstr (refused->message, reason));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  g_assert_cmpstr (visible_page (), ==, "setup");
}

static void
test_pytorch_target (void)
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
  GtkWidget *dataset_group = find_group (GTK_WIDGET (setup), "Dataset");
  GtkWidget *script_group = find_group (GTK_WIDGET (setup), "Your PyTorch script");
  g_assert_nonnull (dataset_group);
  g_assert_nonnull (script_group);

  /* The loader is the default target; the script's fields show only for a script. */
  g_assert_cmpint (ls_setup_page_get_target (setup), ==, LS_SETUP_TARGET_LOADSCOPE);
  g_assert_true (gtk_widget_get_visible (dataset_group));
  g_assert_false (gtk_widget_get_visible (script_group));
  ls_setup_page_set_target (setup, LS_SETUP_TARGET_PYTORCH);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  g_assert_false (gtk_widget_get_visible (dataset_group));
  g_assert_true (gtk_widget_get_visible (script_group));
  assert_run_refused ("Choose your PyTorch script first");

  /* A script that is not there: said on the page, the sweep refused. */
  g_autofree char *missing = g_build_filename (scratch, "no-such-train.py", NULL);
  ls_setup_page_set_script (setup, missing);
  ls_test_gui_iterate_until (script_checked, 30);
  g_assert_nonnull (ls_setup_page_get_script_problem (setup));
  g_assert_nonnull (strstr (ls_setup_page_get_script_problem (setup), "no-such-train.py: no such file"));
  assert_run_refused ("no-such-train.py: no such file");
  ls_test_gui_screenshot ("gui-pytorch-missing-script.png");

  g_autofree char *python = ls_test_find_torch_python ();
  if (!python)
    {
      g_test_skip ("no interpreter here imports torch and torchvision (install python3-torch python3-torchvision)");
      gtk_window_destroy (GTK_WINDOW (window));
      ls_test_gui_iterate_until (ls_test_gui_never, 1);
      return;
    }
  g_autofree char *scripts = g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "pytorch", NULL);
  g_autofree char *script_path = g_build_filename (scripts, "imagefolder.py", NULL);
  g_autofree char *script = g_canonicalize_filename (script_path, NULL); /* as the page shows it */
  g_autofree char *dataset = g_build_filename (scratch, "images", NULL);
  {
    const char *argv[] = { g_getenv ("LOADSCOPE"), "make-dataset", "--format", "jpeg-dir", "--count", "96", "--size",
                           "80x64", dataset, NULL };
    int status = -1;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                                 &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }

  /* An interpreter without torch (the same Python without its site
   * packages, where Debian's torch lives): named, with the reason. */
  g_autofree char *bare = g_build_filename (scratch, "python-without-site", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\nexec %s -S \"$@\"\n", python);
  g_assert_true (g_file_set_contents (bare, text, -1, NULL));
  g_assert_cmpint (g_chmod (bare, 0755), ==, 0);
  ls_setup_page_set_script (setup, script_path);
  ls_setup_page_set_python (setup, bare);
  ls_test_gui_iterate_until (script_checked, 120);
  g_assert_nonnull (ls_setup_page_get_script_problem (setup));
  g_assert_nonnull (strstr (ls_setup_page_get_script_problem (setup), "cannot import torch"));
  assert_run_refused ("cannot import torch");
  ls_test_gui_screenshot ("gui-pytorch-no-torch.png");

  /* None given: the first interpreter on PATH that imports torch, named
   * in the row (and kept, as a chosen one is). */
  g_autofree char *first = ls_target_find_python (NULL, NULL);
  if (first)
    {
      ls_setup_page_set_python (setup, "");
      ls_test_gui_iterate_until (script_checked, 240);
      g_assert_null (ls_setup_page_get_script_problem (setup));
      g_autofree char *shown = g_settings_get_string (settings, "python");
      g_assert_cmpstr (shown, ==, first);
      ls_test_gui_screenshot ("gui-pytorch-found-python.png");
    }

  /* The real thing: workers 0 and 1 over the ImageFolder script. */
  ls_setup_page_set_python (setup, python);
  ls_setup_page_set_script_args (setup, dataset);
  ls_test_gui_iterate_until (script_checked, 120);
  g_assert_null (ls_setup_page_get_script_problem (setup));
  g_settings_set_string (settings, "workers", "0,1");
  /* Both pin modes ticked, but this torch has no CUDA: the row is hidden
   * and the sweep is not doubled by runs that differ in nothing. */
  g_settings_set_string (settings, "pin-modes", "off,staging");
  g_settings_set_string (settings, "start-methods", "fork");
  g_settings_set_int (settings, "batch-size", 8);
  g_settings_set_int (settings, "batches-per-run", 6);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  {
    /* The request is the command line's: --target pytorch --script --python --script-args. */
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_null (request->dataset);
    g_assert_cmpstr (request->knobs[LS_SWEEP_KNOB_TARGET]->pdata[0], ==, "pytorch");
    g_assert_cmpstr (request->knobs[LS_SWEEP_KNOB_SCRIPT]->pdata[0], ==, script);
    g_assert_cmpstr (request->knobs[LS_SWEEP_KNOB_PYTHON]->pdata[0], ==, python);
    g_assert_cmpstr (request->knobs[LS_SWEEP_KNOB_SCRIPT_ARGS]->pdata[0], ==, dataset);
    g_assert_null (request->knobs[LS_SWEEP_KNOB_MODEL_MS]); /* the script's own step */
    /* "The script's own knobs" is on by default: batch size, prefetch and
     * persistence are left to the script, not the page's 64, 2, off. */
    g_assert_null (request->knobs[LS_SWEEP_KNOB_BATCH_SIZE]);
    g_assert_null (request->knobs[LS_SWEEP_KNOB_PREFETCH]);
    g_assert_null (request->knobs[LS_SWEEP_KNOB_PERSISTENT]);
    g_assert_cmpuint (ls_sweep_request_configurations (request), ==, 2);
    g_assert_cmpuint (ls_sweep_request_count (request, LS_SWEEP_KNOB_PIN), ==, 1);
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (setup->pin_row)));
    /* The batch size is the script's: not the page's 8, and not known yet. */
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (setup->batch_size)));
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (setup->script_batch_label)));
  }
  ls_test_gui_screenshot ("gui-pytorch-setup.png");

  /* Tune searches the script's knobs too: its dialog opens, and tune's
   * runner gets the script, not a dataset. */
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_autoptr (LsTuneSession) tune = ls_tune_session_new (request, NULL, NULL, "30s");
    g_autoptr (GPtrArray) args = ls_tune_session_argv (tune, "loadscope");
    g_autofree char *joined = g_strjoinv (" ", (char **) args->pdata);
    g_assert_true (g_str_has_prefix (joined, "loadscope tune "));
    g_assert_nonnull (strstr (joined, "--target pytorch"));
    g_assert_nonnull (strstr (joined, "--script "));
    g_assert_null (strstr (joined, "--dataset"));
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.tune", NULL));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  {
    GtkWindow *dialog = NULL;
    g_autoptr (GList) toplevels = gtk_window_list_toplevels ();
    for (GList *l = toplevels; l; l = l->next)
      if (LS_IS_TUNE_DIALOG (l->data))
        dialog = l->data;
    g_assert_nonnull (dialog);
    gtk_window_destroy (dialog);
    ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  }

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (sweep_done, 240);
  if (!sweep_done ())
    ls_test_gui_screenshot ("gui-pytorch-sweep-not-done.png"); /* what the window said */
  g_assert_true (sweep_done ());
  ls_test_gui_screenshot ("gui-pytorch-results.png");
  /* After the runs the batch size row shows the script's own (16). */
  g_assert_cmpint (ls_setup_page_get_script_batch (setup), ==, 16);
  g_assert_cmpstr (gtk_label_get_text (setup->script_batch_label), ==, "16");

  /* Two runs recorded, both of the script, done. */
  g_autoptr (ls_store) store = ls_store_open_to_read (g_getenv ("LOADSCOPE_DB"), &error);
  g_assert_no_error (error);
  g_autoptr (JsonArray) rows = ls_store_history (store, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      g_assert_cmpstr (json_object_get_string_member (r, "format"), ==, "pytorch");
      g_assert_cmpstr (json_object_get_string_member (r, "status"), ==, "done");
      g_assert_cmpint (json_object_get_int_member (r, "workers"), ==, 1 - (gint64) i); /* newest first */
      g_assert_nonnull (strstr (json_object_get_string_member (r, "dataset"), "imagefolder.py"));
    }
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  adw_view_stack_set_visible_child_name (stack, "history");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 2);

  /* The search's target filter: both runs are the script's. */
  GtkEditable *search = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_SEARCH_ENTRY);
  GtkColumnView *view = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (search);
  g_assert_nonnull (view);
  history_view = view;
  gtk_editable_set_text (search, "target:loadscope");
  expected_rows = 0;
  ls_test_gui_iterate_until (history_rows_as_expected, 30);
  g_assert_cmpuint (history_rows (), ==, 0);
  gtk_editable_set_text (search, "target:pytorch");
  expected_rows = 2;
  ls_test_gui_iterate_until (history_rows_as_expected, 30);
  g_assert_cmpuint (history_rows (), ==, 2);
  ls_test_gui_screenshot ("gui-pytorch-history.png");

  /* The target and the script's fields are kept in the settings, and a
   * page bound to them again (the next start) has them back. */
  g_autofree char *kept_target = g_settings_get_string (settings, "target");
  g_autofree char *kept_python = g_settings_get_string (settings, "python");
  g_autofree char *kept_args = g_settings_get_string (settings, "script-args");
  g_assert_cmpstr (kept_target, ==, "pytorch");
  g_assert_cmpstr (kept_python, ==, python);
  g_assert_cmpstr (kept_args, ==, dataset);
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  g_autofree char *kept_script = g_settings_get_string (settings, "last-script");
  g_assert_cmpstr (kept_script, ==, script);
  setup = g_object_ref_sink (g_object_new (LS_TYPE_SETUP_PAGE, NULL));
  ls_setup_page_bind (setup, settings);
  g_assert_cmpint (ls_setup_page_get_target (setup), ==, LS_SETUP_TARGET_PYTORCH);
  g_assert_cmpstr (ls_setup_page_get_script (setup), ==, script);
  ls_test_gui_iterate_until (script_checked, 120);
  g_assert_null (ls_setup_page_get_script_problem (setup));
  {
    g_autoptr (ls_sweep_request) again = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (again->knobs[LS_SWEEP_KNOB_SCRIPT_ARGS]->pdata[0], ==, dataset);
  }
  g_object_unref (setup);
}

int
main (int argc, char **argv)
{
  /* A home of its own: store, cache and settings. */
  g_autofree char *home = g_dir_make_tmp ("ls-gui-pytorch-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *db = g_build_filename (data, "history.sqlite", NULL);
  scratch = g_build_filename (home, "scratch", NULL);
  g_mkdir_with_parents (scratch, 0700);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("LOADSCOPE_DB", db, TRUE);
  if (g_getenv ("LS_ARTIFACTS"))
    g_mkdir_with_parents (g_getenv ("LS_ARTIFACTS"), 0755);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/setup/pytorch-target", test_pytorch_target);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (home);
  g_free (scratch);
  return rc;
}
