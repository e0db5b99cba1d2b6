/* The Setup page's Machine choice under Xvfb, as a user drives it: the
 * hosts of a test ~/.ssh/config (HOME is a folder of the test's) are
 * offered, patterns are not; a chosen host and the dataset's path there
 * reach the sweep's request as --on ssh:HOST; a typed target that is not
 * one is said under the row and refused; a host that asks for a password
 * stops the sweep with ssh's words under the row. Then a real sweep through an
 * exec: target (a command prefix that enters a UTS namespace with a host
 * name of its own, so the machine the runs are recorded with is the
 * target's; no sshd needed): first without the bundle there (the reason
 * and the install command under the Machine row), then installed by the
 * row's Install button (the bundle made from this build), live on
 * the Run page, recorded in the local store and listed in History with
 * the target's machine name; Cancel ends a run there (recorded as
 * interrupted, no process of it left); then a host of the config through
 * an ssh stand-in that joins the arguments into one line as ssh does (and
 * names the machine after the host), recorded with that name. Screenshots are kept. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/core/settings.h"
#include "app/store/store-query.h"
#include "ui/ls-application.h"
#include "ui/ls-history-page.h"
#include "ui/ls-results-page.h"
#include "ui/ls-run-page.h"
#include "ui/ls-setup-page-private.h"
#include "ui/ls-window.h"
#include "test-gui-util.h"
#include "test-util.h"

#define TARGET_HOST "ls-gui-target"

static LsWindow *window;
static LsSetupPage *setup;
static LsSetupMachine *machine;
static LsResultsPage *results;
static LsHistoryPage *history;
static LsRunPage *run_page;
static char *home;
static gboolean saw_run_page, saw_batches;

static gboolean
hosts_read (void)
{
  return !ls_setup_machine_is_reading (machine);
}

static gboolean
history_loaded (void)
{
  return !ls_history_page_is_loading (history);
}

static const char *
visible_page (void)
{
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  return adw_view_stack_get_visible_child_name (stack);
}

static gboolean
running (void)
{
  return gtk_widget_get_sensitive (GTK_WIDGET (setup)) == FALSE;
}

/* The Machine row's check of the chosen machine has answered. */
static gboolean
check_done (void)
{
  return !ls_setup_machine_is_checking (machine);
}

/* The sweep has ended; on the way, whether the Run page showed it and a
 * run's batches moved its bar (events from the target, live). */
static gboolean
sweep_ended (void)
{
  if (g_strcmp0 (visible_page (), "run") == 0)
    saw_run_page = TRUE;
  GtkWidget *bar = ls_test_gui_find_child (GTK_WIDGET (run_page), GTK_TYPE_PROGRESS_BAR);
  for (; bar; bar = gtk_widget_get_next_sibling (bar))
    if (GTK_IS_PROGRESS_BAR (bar) && !gtk_progress_bar_get_text (GTK_PROGRESS_BAR (bar))
        && gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (bar)) > 0)
      saw_batches = TRUE;
  return !running ();
}

/* A run's bar has moved and not reached its end: batches are arriving. */
static gboolean
run_going (void)
{
  GtkWidget *bar = ls_test_gui_find_child (GTK_WIDGET (run_page), GTK_TYPE_PROGRESS_BAR);
  for (; bar; bar = gtk_widget_get_next_sibling (bar))
    if (GTK_IS_PROGRESS_BAR (bar) && !gtk_progress_bar_get_text (GTK_PROGRESS_BAR (bar)))
      {
        double f = gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (bar));
        if (f > 0 && f < 0.5)
          return TRUE;
      }
  return !running ();
}

/* How many processes have text in their command line (Linux: /proc). */
static guint
processes_with (const char *text)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint n = 0;
  while (proc && (name = g_dir_read_name (proc)))
    {
      if (!g_ascii_isdigit (name[0]))
        continue;
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize len = 0;
      if (!g_file_get_contents (path, &cmdline, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, text))
        n++;
    }
  return n;
}

static gboolean
install_done (void)
{
  return !ls_setup_machine_is_installing (machine);
}

/* The button of that label inside w (depth first). */
static GtkButton *
find_button (GtkWidget *w, const char *label)
{
  if (GTK_IS_BUTTON (w) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0)
    return GTK_BUTTON (w);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkButton *b = find_button (c, label);
      if (b)
        return b;
    }
  return NULL;
}

static void
run_cli (const char *const *argv)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s %s failed: %s%s", argv[0], argv[1], out, err);
}

/* The exec: target: a UTS namespace named TARGET_HOST where this system
 * allows one (user namespaces), else the command as it is here. */
static char *
make_target (gboolean *named)
{
  g_autofree char *enter = g_build_filename (home, "enter-target", NULL);
  g_assert_true (g_file_set_contents (enter,
                                      "#!/bin/sh\n"
                                      "# Runs \"$@\" on a machine named " TARGET_HOST ", like docker exec -i\n"
                                      "exec unshare -r -u sh -c 'hostname " TARGET_HOST " && exec \"$@\"' sh \"$@\"\n",
                                      -1, NULL));
  g_assert_cmpint (g_chmod (enter, 0755), ==, 0);
  const char *probe[] = { enter, "true", NULL };
  int status = -1;
  *named = g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                         NULL, NULL, NULL, &status, NULL)
           && g_spawn_check_wait_status (status, NULL);
  return *named ? g_strconcat ("exec:", enter, NULL) : g_strdup ("exec:env");
}

static guint
count_offered (const char *text)
{
  GListModel *offered = ls_setup_machine_get_offered (machine);
  guint n = 0;
  for (guint i = 0; i < g_list_model_get_n_items (offered); i++)
    {
      g_autoptr (GtkStringObject) item = g_list_model_get_item (offered, i);
      if (g_strcmp0 (gtk_string_object_get_string (item), text) == 0)
        n++;
    }
  return n;
}

static void
test_machine (void)
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
  setup = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_SETUP_PAGE);
  results = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RESULTS_PAGE);
  history = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_HISTORY_PAGE);
  run_page = ls_test_gui_find_child (GTK_WIDGET (window), LS_TYPE_RUN_PAGE);
  machine = ls_setup_page_get_machine (setup);
  g_assert_nonnull (machine);
  ls_test_gui_iterate_until (hosts_read, 30);
  g_assert_true (hosts_read ());

  /* The hosts of the test's ~/.ssh/config, in order, patterns left out. */
  GListModel *offered = ls_setup_machine_get_offered (machine);
  g_assert_cmpuint (g_list_model_get_n_items (offered), ==, 5);
  g_assert_cmpuint (count_offered ("This computer"), ==, 1);
  g_assert_cmpuint (count_offered ("ssh:gpu1"), ==, 1);
  g_assert_cmpuint (count_offered ("ssh:lab-server"), ==, 1);
  g_assert_cmpuint (count_offered ("ssh:included-box"), ==, 1);
  g_assert_cmpuint (count_offered ("Another target…"), ==, 1);
  g_assert_cmpuint (count_offered ("ssh:*"), ==, 0);
  g_assert_true (ls_setup_machine_is_local (machine));

  /* This computer: no --on. */
  g_autofree char *dataset = g_build_filename (home, "images", NULL);
  {
    const char *argv[] = { g_getenv ("LOADSCOPE"), "make-dataset", "--format", "jpeg-dir", "--count", "48", "--size",
                           "64x64", dataset, NULL };
    run_cli (argv);
  }
  ls_setup_page_set_dataset (setup, dataset);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_null (request->on);
  }

  /* A host of the config: its path there is asked for, then both reach
   * the request; the local dataset chooser goes. */
  ls_setup_machine_set_target (machine, "ssh:gpu1");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  g_assert_false (ls_setup_machine_is_local (machine));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (setup->dataset_group)));
  ls_setup_machine_set_path (machine, "");
  {
    g_autoptr (ls_sweep_request) none = ls_setup_page_get_request (setup, &error);
    g_assert_null (none);
    g_assert_nonnull (strstr (error->message, "Type the dataset's path on ssh:gpu1"));
    g_clear_error (&error);
  }
  ls_setup_machine_set_path (machine, "/data/imagenet train");
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (request->on, ==, "ssh:gpu1");
    g_assert_cmpstr (request->dataset, ==, "/data/imagenet train");
  }
  g_autofree char *kept = g_settings_get_string (settings, "machine");
  g_assert_cmpstr (kept, ==, "ssh:gpu1");
  ls_test_gui_screenshot ("gui-remote-setup-ssh.png");
  /* The list as a user opens it. */
  GtkWidget *row = ls_test_gui_find_child (GTK_WIDGET (machine), ADW_TYPE_COMBO_ROW);
  g_assert_true (gtk_widget_activate (row));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  ls_test_gui_screenshot ("gui-remote-hosts.png");
  GtkWidget *popover = ls_test_gui_find_child (row, GTK_TYPE_POPOVER);
  g_assert_nonnull (popover);
  gtk_popover_popdown (GTK_POPOVER (popover));
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);

  /* A typed target that is not one: said under the row, refused. */
  ls_setup_machine_set_target (machine, "exec:'unclosed");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  g_assert_nonnull (ls_setup_machine_get_problem (machine));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "cannot be split"));
  {
    g_autoptr (ls_sweep_request) none = ls_setup_page_get_request (setup, &error);
    g_assert_null (none);
    g_assert_nonnull (strstr (error->message, "cannot be split"));
    g_clear_error (&error);
  }
  ls_test_gui_screenshot ("gui-remote-bad-target.png");

  /* A host that asks for a password: ssh (here a stand-in, $LOADSCOPE_SSH)
   * runs with BatchMode and exits 255; the sweep stops and the row says
   * ssh's words and what to do. */
  ls_setup_machine_set_target (machine, "ssh:gpu1");
  ls_setup_machine_set_path (machine, "/data/imgs");
  /* Said as soon as it is chosen, before any sweep: the row's check. */
  ls_test_gui_iterate_until (check_done, 60);
  g_assert_nonnull (ls_setup_machine_get_problem (machine));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "a password or passphrase prompt is an error"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (sweep_ended, 120);
  g_assert_false (running ());
  g_assert_nonnull (ls_setup_machine_get_problem (machine));
  g_test_message ("under the Machine row: %s", ls_setup_machine_get_problem (machine));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "Permission denied (publickey,password)"));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "a password or passphrase prompt is an error"));
  adw_view_stack_set_visible_child_name (ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK), "setup");
  ls_test_gui_screenshot ("gui-remote-password.png");

  /* ---- a real sweep through an exec: target ---- */
  gboolean named = FALSE;
  g_autofree char *target = make_target (&named);
  ls_setup_machine_set_target (machine, target);
  ls_setup_machine_set_path (machine, dataset);
  g_settings_set_string (settings, "workers", "0,1");
  g_settings_set_string (settings, "pin-modes", "off");
  g_settings_set_string (settings, "start-methods", "fork");
  g_settings_set_int (settings, "batch-size", 8);
  g_settings_set_int (settings, "batches-per-run", 4);
  g_settings_set_double (settings, "model-ms", 1);
  /* Not installed there yet: said under the row once it is chosen, with
   * the command that fixes it; the sweep may still be asked for. */
  ls_test_gui_iterate_until (check_done, 60);
  g_assert_nonnull (ls_setup_machine_get_problem (machine));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "loadscope remote install"));
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (request->on, ==, target);
  }

  /* The sweep stops, and the Machine row says why and the command that
   * fixes it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (sweep_ended, 120);
  g_assert_false (running ());
  g_assert_nonnull (ls_setup_machine_get_problem (machine));
  g_test_message ("under the Machine row: %s", ls_setup_machine_get_problem (machine));
  g_assert_nonnull (strstr (ls_setup_machine_get_problem (machine), "loadscope remote install"));
  AdwViewStack *stack = ls_test_gui_find_child (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  adw_view_stack_set_visible_child_name (stack, "setup");
  ls_test_gui_screenshot ("gui-remote-not-installed.png");
  /* The Machine row with its problem, at the minimum size and a large
   * one, light and dark (Xvfb's screen is 1600x1000). */
  static const int sizes[][2] = { { 1024, 700 }, { 1600, 1000 } };
  AdwStyleManager *style = adw_style_manager_get_default ();
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int dark = 0; dark < 2; dark++)
      {
        adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
        gtk_window_set_default_size (GTK_WINDOW (window), sizes[k][0], sizes[k][1]);
        ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
        g_autofree char *name = g_strdup_printf ("gui-remote-setup-%dx%d-%s.png", sizes[k][0], sizes[k][1],
                                                 dark ? "dark" : "light");
        ls_test_gui_screenshot (name);
      }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);

  /* The row's Install button, shown because the bundle is missing: it
   * makes the bundle of this build (its copy of tests/device/bundle.sh)
   * and sends it, then the row's check says it is ready. */
  GtkButton *install = find_button (GTK_WIDGET (machine), "Install Loadscope There");
  g_assert_nonnull (install);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (install)));
  g_unsetenv ("LOADSCOPE_REMOTE_BUNDLE");
  g_signal_emit_by_name (install, "clicked");
  g_assert_true (ls_setup_machine_is_installing (machine));
  ls_test_gui_iterate_until (install_done, 180);
  ls_test_gui_iterate_until (check_done, 60);
  g_test_message ("after Install: %s", ls_setup_machine_get_problem (machine) ? ls_setup_machine_get_problem (machine)
                                                                             : "no problem");
  g_assert_null (ls_setup_machine_get_problem (machine));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (install)));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (ls_test_gui_find_child (GTK_WIDGET (machine),
                                                                                          ADW_TYPE_COMBO_ROW))),
                   ==, "Ready: this version of Loadscope is installed there");
  ls_test_gui_screenshot ("gui-remote-installed.png");
  saw_run_page = saw_batches = FALSE;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_null (ls_setup_machine_get_problem (machine)); /* cleared by the new start */
  ls_test_gui_iterate_until (sweep_ended, 240);
  if (running () || g_strcmp0 (visible_page (), "results") != 0)
    ls_test_gui_screenshot ("gui-remote-sweep-not-done.png");
  g_assert_false (running ());
  g_assert_null (ls_setup_machine_get_problem (machine));
  g_assert_true (saw_run_page);
  g_assert_true (saw_batches);
  g_assert_cmpstr (visible_page (), ==, "results");
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  ls_test_gui_screenshot ("gui-remote-results.png");

  /* Two runs recorded here, done, with the target's machine. */
  const char *host = named ? TARGET_HOST : ls_test_host_name ();
  g_autoptr (ls_store) store = ls_store_open_to_read (g_getenv ("LOADSCOPE_DB"), &error);
  g_assert_no_error (error);
  g_autoptr (JsonArray) rows = ls_store_history (store, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (rows), ==, 2); /* the refused sweeps ran nothing */
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      g_assert_cmpstr (json_object_get_string_member (r, "status"), ==, "done");
      g_assert_cmpstr (json_object_get_string_member (r, "machine"), ==, host);
      g_assert_cmpstr (json_object_get_string_member (r, "dataset"), ==, dataset);
    }
  if (!named)
    g_test_message ("no user namespace here: the target's machine is this one (%s)", host);

  /* Cancel on the Run page ends the run there: recorded here as
   * interrupted, nothing of it left running on the target. */
  g_settings_set_string (settings, "workers", "1");
  g_settings_set_int (settings, "batches-per-run", 400);
  g_settings_set_double (settings, "model-ms", 25);
  ls_test_gui_iterate_until (ls_test_gui_never, 0.5);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (run_going, 120);
  g_assert_true (running ());
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL));
  ls_test_gui_iterate_until (sweep_ended, 120);
  g_assert_false (running ());
  g_autofree char *target_cache = g_build_filename (home, "target-cache", NULL);
  for (int i = 0; i < 50 && processes_with (target_cache) > 0; i++)
    ls_test_gui_iterate_until (ls_test_gui_never, 0.2);
  g_assert_cmpuint (processes_with (target_cache), ==, 0);
  {
    g_autoptr (JsonArray) now = ls_store_history (store, 0, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (now), ==, 3);
    JsonObject *r = json_array_get_object_element (now, 0); /* newest first */
    g_assert_cmpstr (json_object_get_string_member (r, "status"), ==, "interrupted");
    g_assert_cmpstr (json_object_get_string_member (r, "machine"), ==, host);
  }

  /* A host of the config through ssh: lab-server. ssh's stand-in joins
   * its arguments into one line, as ssh does for the remote shell, and
   * runs it here in a UTS namespace of that name (the bundle is the one
   * installed above: the target's cache is the same folder). */
  ls_setup_machine_set_target (machine, "ssh:lab-server");
  ls_setup_machine_set_path (machine, dataset);
  g_settings_set_string (settings, "workers", "0");
  g_settings_set_int (settings, "batches-per-run", 4);
  g_settings_set_double (settings, "model-ms", 1);
  /* Installed there (the same cache): the row's check says it is ready. */
  ls_test_gui_iterate_until (check_done, 60);
  g_assert_cmpstr (ls_setup_machine_get_problem (machine), ==, NULL);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (ls_test_gui_find_child (GTK_WIDGET (machine),
                                                                                          ADW_TYPE_COMBO_ROW))),
                   ==, "Ready: this version of Loadscope is installed there");
  adw_view_stack_set_visible_child_name (stack, "setup");
  ls_test_gui_iterate_until (ls_test_gui_never, 0.3);
  ls_test_gui_screenshot ("gui-remote-ready.png");
  {
    g_autoptr (ls_sweep_request) request = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (request->on, ==, "ssh:lab-server");
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  ls_test_gui_iterate_until (sweep_ended, 240);
  g_assert_false (running ());
  g_assert_null (ls_setup_machine_get_problem (machine));
  g_assert_cmpstr (visible_page (), ==, "results");
  const char *ssh_host = named ? "lab-server" : host;
  {
    g_autoptr (JsonArray) now = ls_store_history (store, 0, 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (now), ==, 4);
    JsonObject *r = json_array_get_object_element (now, 0);
    g_assert_cmpstr (json_object_get_string_member (r, "status"), ==, "done");
    g_assert_cmpstr (json_object_get_string_member (r, "machine"), ==, ssh_host);
  }
  ls_history_page_reload (history);

  /* History lists them, under the targets' names. */
  adw_view_stack_set_visible_child_name (stack, "history");
  ls_test_gui_iterate_until (history_loaded, 30);
  g_assert_cmpuint (ls_history_page_count_runs (history), ==, 4);
  GtkEditable *search = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_SEARCH_ENTRY);
  GtkColumnView *view = ls_test_gui_find_child (GTK_WIDGET (history), GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (search);
  g_assert_nonnull (view);
  g_autofree char *by_machine = g_strconcat ("machine:", host, NULL);
  gtk_editable_set_text (search, by_machine);
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (view))), ==, named ? 3 : 4);
  ls_test_gui_screenshot ("gui-remote-history.png");
  if (named)
    {
      gtk_editable_set_text (search, "machine:lab-server");
      ls_test_gui_iterate_until (ls_test_gui_never, 1);
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (view))), ==, 1);
      ls_test_gui_screenshot ("gui-remote-history-ssh.png");
    }

  /* The choice is kept, and a page bound again has it back. */
  g_autofree char *kept_target = g_settings_get_string (settings, "machine");
  g_assert_cmpstr (kept_target, ==, "ssh:lab-server");
  gtk_window_destroy (GTK_WINDOW (window));
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  setup = g_object_ref_sink (g_object_new (LS_TYPE_SETUP_PAGE, NULL));
  ls_setup_page_bind (setup, settings);
  machine = ls_setup_page_get_machine (setup);
  ls_test_gui_iterate_until (hosts_read, 30);
  {
    g_autoptr (ls_sweep_request) again = ls_setup_page_get_request (setup, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (again->on, ==, "ssh:lab-server");
    g_assert_cmpstr (again->dataset, ==, dataset);
  }
  g_object_unref (setup);
}

static void
write_home_file (const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (home, name, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

int
main (int argc, char **argv)
{
  /* A home of its own: ~/.ssh/config, the store, the target's cache, settings. */
  home = g_dir_make_tmp ("ls-gui-remote-XXXXXX", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *db = g_build_filename (data, "history.sqlite", NULL);
  g_autofree char *target_cache = g_build_filename (home, "target-cache", NULL);
  g_setenv ("HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("LOADSCOPE_DB", db, TRUE);
  g_setenv ("LOADSCOPE_REMOTE_CACHE", target_cache, TRUE);
  write_home_file (".ssh/config", "Host gpu1\n  HostName 10.1.2.3\nHost *\n  ServerAliveInterval 30\n"
                                  "Host lab-server gpu1\nInclude conf.d/*\n");
  write_home_file (".ssh/conf.d/work", "Host included-box -oProxyCommand=x\n");
  /* ssh for ssh: targets: a host that asks for a password, as BatchMode says it. */
  write_home_file ("fake-ssh",
                   "#!/bin/sh\n"
                   "# ssh's stand-in: gpu1 asks for a password; another host runs the command line\n"
                   "# here, its arguments joined into one line as ssh joins them, named HOST where\n"
                   "# a UTS namespace can be made.\n"
                   "host=\n"
                   "while [ $# -gt 0 ]; do\n"
                   "  case $1 in --) shift; break ;; -o|-F|-p|-i|-l) shift 2 ;; -*) shift ;; *) host=$1; shift ;; esac\n"
                   "done\n"
                   "if [ \"$host\" = gpu1 ]; then\n"
                   "  echo 'user@gpu1: Permission denied (publickey,password).' >&2\n"
                   "  exit 255\n"
                   "fi\n"
                   "if unshare -r -u true 2>/dev/null; then\n"
                   "  exec unshare -r -u sh -c 'hostname \"$0\" && exec sh -c \"$1\"' \"$host\" \"$*\"\n"
                   "fi\n"
                   "exec sh -c \"$*\"\n");
  g_autofree char *fake_ssh = g_build_filename (home, "fake-ssh", NULL);
  g_chmod (fake_ssh, 0755);
  g_setenv ("LOADSCOPE_SSH", fake_ssh, TRUE);
  if (g_getenv ("LS_ARTIFACTS"))
    g_mkdir_with_parents (g_getenv ("LS_ARTIFACTS"), 0755);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/setup/machine", test_machine);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (home);
  g_free (home);
  return rc;
}
