/* The workbench's settings without any environment set by hand: the schema
 * found beside the executable (the build tree), and values kept in a
 * keyfile when no D-Bus session answers (SSH, Xvfb). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/core/settings.h"
#include "test-util.h"

static char *scratch;

/* A session with no bus and no chosen backend, its config in scratch. */
static void
no_session_bus (const char *name)
{
  g_unsetenv ("GSETTINGS_BACKEND");
  g_unsetenv ("GSETTINGS_SCHEMA_DIR");
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_autofree char *runtime = g_build_filename (scratch, name, "runtime", NULL);
  g_autofree char *config = g_build_filename (scratch, name, "config", NULL);
  g_mkdir_with_parents (runtime, 0700);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
}

static void
test_kept_in_keyfile_without_bus (void)
{
  if (!g_test_subprocess ()) {
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    g_test_trap_assert_stderr_unmatched ("*dconf*");
    return;
  }
  no_session_bus ("keyfile");
  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_assert_true (g_settings_set_string (settings, "workers", "0,3,5"));
  g_assert_true (g_settings_set_int (settings, "batch-size", 48));
  g_settings_sync ();

  g_autofree char *path = ls_settings_keyfile_path ();
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "0,3,5"));
  g_assert_nonnull (strstr (text, "48"));

  /* A new process (a new settings object) reads what was kept. */
  g_clear_object (&settings);
  g_autoptr (GSettings) again = ls_settings_new (&error);
  g_assert_no_error (error);
  g_autofree char *workers = g_settings_get_string (again, "workers");
  g_assert_cmpstr (workers, ==, "0,3,5");
  g_assert_cmpint (g_settings_get_int (again, "batch-size"), ==, 48);
}

static void
test_chosen_backend_wins (void)
{
  if (!g_test_subprocess ()) {
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    return;
  }
  no_session_bus ("chosen");
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  g_assert_no_error (error);
  g_assert_true (g_settings_set_string (settings, "workers", "7"));
  g_settings_sync ();
  g_autofree char *path = ls_settings_keyfile_path ();
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-settings-XXXXXX", NULL);
  g_test_add_func ("/app/settings/kept-in-keyfile-without-bus", test_kept_in_keyfile_without_bus);
  g_test_add_func ("/app/settings/chosen-backend-wins", test_chosen_backend_wins);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  return rc;
}
