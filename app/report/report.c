#include "app/report/report.h"

#include <glib/gstdio.h>
#include <string.h>

#include "app/chart/chart-export.h"

gboolean
ls_report_format_parse (const char *name, ls_report_format *format)
{
  if (g_strcmp0 (name, "html") == 0)
    *format = LS_REPORT_HTML;
  else if (g_strcmp0 (name, "md") == 0 || g_strcmp0 (name, "markdown") == 0)
    *format = LS_REPORT_MARKDOWN;
  else
    return FALSE;
  return TRUE;
}

ls_report *
ls_report_write (ls_store *store, const ls_report_selection *selection, ls_report_format format, const char *path,
                 GError **error)
{
  g_return_val_if_fail (store != NULL && selection != NULL && path != NULL, NULL);
  g_autoptr (ls_report) report = ls_report_load (store, selection, error);
  if (!report)
    return NULL;
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) text = format == LS_REPORT_HTML ? ls_report_html (report, error)
                                                      : ls_report_markdown (report, path, written, error);
  if (text && ls_write_file_replacing (path, text->str, text->len, error))
    return g_steal_pointer (&report);
  /* Nothing half-done: the charts of a report that could not be written go too. */
  for (guint i = 0; i < written->len; i++)
    g_unlink (written->pdata[i]);
  return NULL;
}
