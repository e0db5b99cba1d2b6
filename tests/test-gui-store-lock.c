/* The window keeps drawing while the store is busy: another process holds
 * the store's write lock for 3 s (BEGIN EXCLUSIVE) as a sweep starts from
 * the window. The sweep session opens the store and records the sweep in a
 * worker thread, so the frame clock goes on ticking meanwhile; the sweep
 * runs once the lock is gone and its Results are shown (a screenshot is
 * kept: none is taken while the lock is held, import would stop the loop). */
#include <adwaita.h>
#include <gio/gio.h>
#include <string.h>

#include "app/core/settings.h"
#include "ui/ls-application.h"
#include "ui/ls-results-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-window.h"
#include "test-gui-util.h"
#include "test-util.h"

static LsSetupPage *setup;
static LsResultsPage *results;
static gboolean locked;
static guint ticks_while_locked;

static gboolean
dataset_checked (void)
{
  return ls_setup_page_get_dataset (setup) != NULL && !ls_setup_page_is_checking_dataset (setup);
}

static gboolean
released (void)
{
  return !locked;
}

static gboolean
sweep_shown (void)
{
  return ls_results_page_count_charts_with_data (results) > 0;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  if (locked)
    ticks_while_locked++;
  return G_SOURCE_CONTINUE;
}

static void
on_locker_line (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autofree char *line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, NULL, NULL);
  if (!line || strcmp (line, "released") == 0)
    locked = FALSE;
}

static void
test_window_draws_while_the_store_is_locked (void)
{
  g_autoptr (GError) error = NULL;
  const char *db = g_getenv ("LOADSCOPE_DB");
  g_autofree char *imgs = g_build_filename (g_get_user_cache_dir (), "imgs", NULL);

  /* A small JPEG folder, made by the command line. */
  const char *make[] = { g_getenv ("LOADSCOPE"), "make-dataset", "--format", "jpeg-dir", "--count", "32", "--size",
                         "64x64", imgs, NULL };
  int status = -1;
  g_assert_true (g_spawn_sync (NULL, (char **) make, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);

  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_autoptr (LsApplication) app = ls_application_new (settings);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_application_activate (G_APPLICATION (app));
  LsWindow *window = LS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  setup = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_SETUP_PAGE);
  results = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RESULTS_PAGE);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_setup_page_set_dataset (setup, imgs);
  ls_test_gui_iterate_until (dataset_checked, 60);
  g_assert_null (ls_setup_page_get_dataset_problem (setup));
  g_settings_set_string (settings, "workers", "0");
  g_settings_set_string (settings, "pin-modes", "off");
  g_settings_set_string (settings, "start-methods", "fork");
  g_settings_set_int (settings, "batch-size", 8);
  g_settings_set_int (settings, "batches-per-run", 3);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);

  g_autoptr (GSubprocess) locker = g_subprocess_new (
      G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, "python3", "-c",
      "import sqlite3, sys, time\n"
      "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
      "c.execute('BEGIN EXCLUSIVE')\n"
      "print('locked', flush=True)\n"
      "time.sleep(3)\n"
      "c.execute('COMMIT')\n"
      "print('released', flush=True)\n",
      db, NULL);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (locker));
  g_autofree char *first = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first, ==, "locked");
  locked = TRUE;
  g_data_input_stream_read_line_async (in, G_PRIORITY_DEFAULT, NULL, on_locker_line, NULL);
  guint tick = gtk_widget_add_tick_callback (GTK_WIDGET (window), count_frame, NULL, NULL);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (released, 30);
  gtk_widget_remove_tick_callback (GTK_WIDGET (window), tick);
  g_assert_true (g_subprocess_wait_check (locker, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("%u frames drawn while the store was locked", ticks_while_locked);
  /* A main loop blocked on SQLite would draw none. */
  g_assert_cmpuint (ticks_while_locked, >=, 2);

  ls_test_gui_iterate_until (sweep_shown, 120);
  g_assert_cmpuint (ls_results_page_count_charts_with_data (results), >, 0);
  ls_test_gui_screenshot ("gui-after-store-lock.png");
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
}

int
main (int argc, char **argv)
{
  /* A home of its own: store, cache and settings. */
  g_autofree char *home = g_dir_make_tmp ("ls-gui-lock-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *db = g_build_filename (data, "history.sqlite", NULL);
  g_mkdir_with_parents (data, 0700);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("LOADSCOPE_DB", db, TRUE);
  if (g_getenv ("LS_ARTIFACTS"))
    g_mkdir_with_parents (g_getenv ("LS_ARTIFACTS"), 0755);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/window/draws-while-the-store-is-locked", test_window_draws_while_the_store_is_locked);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (home);
  return rc;
}
