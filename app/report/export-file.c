#include "app/report/export-file.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "app/core/i18n.h"
#include "app/chart/chart-export.h"
#include "app/file/file-replace.h"
#include "app/report/sweep-charts.h"
#include "app/store/export.h"
#include "app/store/store-query.h"

ls_export_kind
ls_export_kind_for_path (const char *path)
{
  static const struct {
    const char *suffix;
    ls_export_kind kind;
  } kinds[] = {
    { ".csv", LS_EXPORT_CSV },    { ".json", LS_EXPORT_JSON }, { ".sqlite", LS_EXPORT_SQLITE },
    { ".db", LS_EXPORT_SQLITE },  { ".png", LS_EXPORT_PNG },   { ".svg", LS_EXPORT_SVG },
    { ".pdf", LS_EXPORT_PDF },
  };
  g_return_val_if_fail (path != NULL, LS_EXPORT_UNKNOWN);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_str_has_suffix (path, kinds[i].suffix))
      return kinds[i].kind;
  return LS_EXPORT_UNKNOWN;
}

/* The sweep of the first run that belongs to one; 0 when none does. */
static gint64
first_sweep (ls_store *store, GArray *ids)
{
  gint64 sweep = 0;
  for (guint i = 0; i < ids->len && sweep <= 0; i++)
    {
      g_autoptr (JsonObject) run = ls_store_run_object (store, g_array_index (ids, gint64, i), NULL);
      JsonNode *n = run ? json_object_get_member (run, "sweep_id") : NULL;
      sweep = n && !json_node_is_null (n) ? json_node_get_int (n) : 0;
    }
  return sweep;
}

/* The headline charts of the runs' sweep on one page. */
static gboolean
export_charts (ls_store *store, GArray *ids, const char *path, const char *format, gboolean dark, GError **error)
{
  gint64 sweep = first_sweep (store, ids);
  if (sweep <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: charts are drawn for a sweep: choose a run that belongs to one"), path);
      return FALSE;
    }
  g_autoptr (GPtrArray) charts = ls_sweep_charts (store, sweep, error);
  if (!charts)
    return FALSE;
  return ls_chart_export ((ls_chart *const *) charts->pdata, charts->len, path, format, 0, 0, dark, error);
}

gboolean
ls_export_by_extension (ls_store *store, GArray *ids, const char *path, gboolean dark, GError **error)
{
  g_return_val_if_fail (store != NULL && ids != NULL && path != NULL, FALSE);
  ls_export_kind kind = ls_export_kind_for_path (path);
  g_autoptr (GString) out = g_string_new (NULL);
  switch (kind)
    {
    case LS_EXPORT_UNKNOWN:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: name the file %s to choose the format"), path, LS_EXPORT_EXTENSIONS_TEXT);
      return FALSE;
    case LS_EXPORT_SQLITE:
      /* A bundle is never written over another (the window's chooser
       * asked about CSV and JSON; a store is not replaced by a click). */
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, LS_STORE_ERROR, LS_STORE_ERROR_OPEN, _("%s: already exists"), path);
          return FALSE;
        }
      return ls_export_sqlite_replacing (store, ids, path, error);
    case LS_EXPORT_PNG:
      return export_charts (store, ids, path, "png", dark, error);
    case LS_EXPORT_SVG:
      return export_charts (store, ids, path, "svg", dark, error);
    case LS_EXPORT_PDF:
      return export_charts (store, ids, path, "pdf", dark, error);
    case LS_EXPORT_JSON:
      {
        g_autoptr (JsonNode) node = ls_export_json (store, ids, error);
        if (!node)
          return FALSE;
        g_autofree char *text = json_to_string (node, TRUE);
        g_string_append (out, text);
        break;
      }
    case LS_EXPORT_CSV:
      if (!ls_export_csv_runs (store, ids, out, error))
        return FALSE;
      break;
    default:
      g_assert_not_reached ();
    }
  return ls_file_replace (path, out->str, out->len, error);
}
