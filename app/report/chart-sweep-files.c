/* A sweep's headline charts as PNG files beside the store: what the demo
 * leaves behind for a reader without a window. */
#include "app/report/chart-store.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "app/core/i18n.h"
#include "app/chart/chart-export.h"

char **
ls_chart_sweep_write_pngs (ls_store *store, gint64 sweep_id, const char *dir, int width, int height, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  g_autofree char *default_dir = dir ? NULL : g_build_filename (g_get_user_data_dir (), "loadscope", "charts", NULL);
  if (!dir)
    dir = default_dir;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), _("%s: cannot make the folder: %s"), dir,
                   g_strerror (saved));
      return NULL;
    }
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; ls_chart_sweep_names[i]; i++)
    {
      g_autoptr (ls_chart) chart = ls_chart_sweep (store, sweep_id, ls_chart_sweep_names[i], error);
      if (!chart)
        return NULL;
      g_autofree char *name = g_strdup_printf ("sweep-%" G_GINT64_FORMAT "-%s.png", sweep_id, ls_chart_sweep_names[i]);
      char *path = g_build_filename (dir, name, NULL);
      g_ptr_array_add (paths, path);
      if (!ls_chart_export (&chart, 1, path, "png", width > 0 ? width : 1280, height > 0 ? height : 800, FALSE, error))
        return NULL;
    }
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
}
