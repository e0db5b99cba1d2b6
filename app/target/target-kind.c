/* A recorded run's target, from its history row (target-kind.h). */
#include "app/target/target-kind.h"
#include "app/core/i18n.h"

#include <gio/gio.h>

const char *
ls_target_of_run (JsonObject *run)
{
  const char *format = json_object_get_string_member_with_default (run, "format", "");
  return g_strcmp0 (format, "pytorch") == 0 ? "pytorch" : "loadscope";
}

gboolean
ls_target_kind_check (const char *name, GError **error)
{
  if (name && (g_ascii_strcasecmp (name, "pytorch") == 0 || g_ascii_strcasecmp (name, "loadscope") == 0))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("--target %s: expected loadscope or pytorch"),
               name ? name : "");
  return FALSE;
}

gboolean
ls_target_run_is (JsonObject *run, const char *name)
{
  return g_ascii_strcasecmp (ls_target_of_run (run), name) == 0;
}

JsonArray *
ls_target_filter_runs (JsonArray *rows, const char *name, guint limit)
{
  JsonArray *out = json_array_new ();
  for (guint i = 0; i < json_array_get_length (rows) && (limit == 0 || json_array_get_length (out) < limit); i++)
    {
      JsonObject *run = json_array_get_object_element (rows, i);
      if (ls_target_run_is (run, name))
        json_array_add_object_element (out, json_object_ref (run));
    }
  return out;
}
