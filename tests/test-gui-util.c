/* Shared by the window's tests (test-gui-util.h). */
#include "test-gui-util.h"

void
ls_test_gui_iterate_until (gboolean (*done) (void), double timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  while (!done () && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (2000), TRUE);
}

gboolean
ls_test_gui_never (void)
{
  return FALSE;
}

gpointer
ls_test_gui_find_child (GtkWidget *w, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      gpointer found = ls_test_gui_find_child (c, type);
      if (found)
        return found;
    }
  return NULL;
}

void
ls_test_gui_screenshot (const char *name)
{
  const char *dir = g_getenv ("LS_ARTIFACTS");
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_autofree char *import = g_find_program_in_path ("import");
  ls_test_gui_iterate_until (ls_test_gui_never, 1);
  if (!import)
    {
      g_test_message ("no screenshot (ImageMagick's import is not installed): %s", path);
      return;
    }
  const char *argv[] = { import, "-window", "root", path, NULL };
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL));
  g_test_message ("screenshot: %s", path);
}
