#include "app/core/settings.h"
#include "app/core/i18n.h"

#include "app/core/worker-path.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

/* Folders beside the executable that may hold the compiled schema. */
static GPtrArray *
schema_dirs_beside_exe (void)
{
  g_autofree char *exe = ls_self_exe_path ();
  g_autofree char *dir = g_path_get_dirname (exe);
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (dirs, g_build_filename (dir, "..", "data", NULL));
  g_ptr_array_add (dirs, g_build_filename (dir, "..", "share", "loadscope", "schemas", NULL));
  g_ptr_array_add (dirs, g_build_filename (dir, "schemas", NULL));
  return dirs;
}

static GSettingsSchema *
find_schema (GError **error)
{
  GSettingsSchemaSource *system = g_settings_schema_source_get_default ();
  GSettingsSchema *schema = system ? g_settings_schema_source_lookup (system, LS_SETTINGS_SCHEMA_ID, TRUE) : NULL;
  if (schema)
    return schema;

  g_autoptr (GPtrArray) dirs = schema_dirs_beside_exe ();
  for (guint i = 0; i < dirs->len; i++) {
    const char *d = dirs->pdata[i];
    g_autofree char *compiled = g_build_filename (d, "gschemas.compiled", NULL);
    if (!g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
      continue;
    g_autoptr (GError) local = NULL;
    GSettingsSchemaSource *src = g_settings_schema_source_new_from_directory (d, system, FALSE, &local);
    if (!src)
      continue;
    schema = g_settings_schema_source_lookup (src, LS_SETTINGS_SCHEMA_ID, FALSE);
    g_settings_schema_source_unref (src);
    if (schema)
      return schema;
  }

  g_autoptr (GString) looked = g_string_new (NULL);
  for (guint i = 0; i < dirs->len; i++)
    g_string_append_printf (looked, "%s%s", i ? ", " : "", (char *) dirs->pdata[i]);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("the settings schema %s is not installed in the system's schema folders "
               "and was not found beside the executable (looked in %s); "
               "build it with `meson compile` or install with `meson install`"),
               LS_SETTINGS_SCHEMA_ID, looked->str);
  return NULL;
}

/* True when a D-Bus session bus is likely there: dconf needs one. */
static gboolean
session_bus_expected (void)
{
  const char *addr = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  if (addr && *addr)
    return TRUE;
  g_autofree char *socket = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);
  return g_file_test (socket, G_FILE_TEST_EXISTS) && !g_file_test (socket, G_FILE_TEST_IS_REGULAR);
}

char *
ls_settings_keyfile_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "loadscope", "settings.ini", NULL);
}

/* NULL: the default backend. Else a keyfile backend, for when the default
 * would not keep values (no session bus for dconf, or only memory). */
static GSettingsBackend *
choose_backend (const char *schema_path)
{
  const char *chosen = g_getenv ("GSETTINGS_BACKEND");
  if (chosen && *chosen)
    return NULL;
  if (session_bus_expected ()) {
    GSettingsBackend *def = g_settings_backend_get_default ();
    gboolean memory = g_str_equal (G_OBJECT_TYPE_NAME (def), "GMemorySettingsBackend");
    g_object_unref (def);
    if (!memory)
      return NULL;
  }
  g_autofree char *file = ls_settings_keyfile_path ();
  g_autofree char *dir = g_path_get_dirname (file);
  g_mkdir_with_parents (dir, 0700);
  /* Keys sit right under the schema path: they need a root group. */
  return g_keyfile_settings_backend_new (file, schema_path, "workbench");
}

GSettings *
ls_settings_new (GError **error)
{
  g_autoptr (GSettingsSchema) schema = find_schema (error);
  if (!schema)
    return NULL;
  g_autoptr (GSettingsBackend) backend = choose_backend (g_settings_schema_get_path (schema));
  return g_settings_new_full (schema, backend, NULL);
}
