#include "app/cli/cli-export-chart.h"

#include <stdio.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/chart/chart-export.h"
#include "app/chart/chart-render.h"
#include "app/report/chart-store.h"
#include "app/store/store-query.h"

static const char *const run_charts[] = { "timeline", "memory", "stages", "lanes", NULL };
static const char *const run_default[] = { "timeline", "memory", "stages", NULL }; /* --run without --chart */
static const char *const all_charts[] = { "start-cost", "target", NULL };
static const char *const all_default[] = { "start-cost", NULL }; /* --all without --chart */

static int
fail (const GError *error)
{
  fprintf (stderr, _("loadscope export: %s\n"), error->message);
  return error->domain == LS_STORE_ERROR
                 && (error->code == LS_STORE_ERROR_NOT_FOUND || error->code == LS_STORE_ERROR_INVALID)
             ? 2
             : 1;
}

static gboolean
offered (const char *const *names, const char *name)
{
  for (guint i = 0; names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return TRUE;
  return FALSE;
}

int
ls_cli_export_charts (const ls_chart_export_request *req)
{
  g_autoptr (GError) error = NULL;
  const char *const *names = req->sweep ? ls_chart_sweep_names : req->run ? run_charts : all_charts;
  const char *what = req->sweep ? LS_CHARTS_OF_SWEEP : req->run ? LS_CHARTS_OF_RUN : LS_CHARTS_OF_ALL;
  const char *flag = req->sweep ? "--sweep" : req->run ? "--run" : "--all";
  g_auto (GStrv) wanted = req->charts ? g_strsplit (req->charts, ",", -1)
                                      : g_strdupv ((char **) (names == all_charts  ? all_default
                                                                      : names == run_charts ? run_default
                                                                                            : names));

  if (g_strv_length (wanted) == 0)
    {
      fprintf (stderr, _("loadscope export: --chart: name a chart (%s: %s)\n"), flag, what);
      return 2;
    }
  for (guint i = 0; wanted[i]; i++)
    {
      g_strstrip (wanted[i]);
      if (!offered (names, wanted[i]))
        {
          fprintf (stderr, _("loadscope export: --chart %s: not a chart of %s (%s: %s)\n"), wanted[i],
                   req->sweep ? _("a sweep") : req->run ? _("a run") : _("the whole store"), flag, what);
          return 2;
        }
    }
  if ((req->width > 0 && req->width > LS_CHART_MAX_SIZE) || (req->height > 0 && req->height > LS_CHART_MAX_SIZE))
    {
      fprintf (stderr, _("loadscope export: --width and --height go up to %d\n"), LS_CHART_MAX_SIZE);
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open_to_read (req->db, &error);
  if (!store)
    return fail (error);
  gint64 id = 0;
  if (req->sweep && (id = ls_store_find_sweep (store, req->sweep, &error)) < 0)
    return fail (error);
  if (req->run && (id = ls_store_find_run (store, req->run, &error)) < 0)
    return fail (error);

  g_autoptr (GPtrArray) charts = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_chart_free);
  for (guint i = 0; wanted[i]; i++)
    {
      ls_chart *chart;
      if (req->sweep)
        chart = ls_chart_sweep_with (store, id, wanted[i], req->per_machine ? LS_CHART_SWEEP_PER_MACHINE : 0, &error);
      else if (req->run)
        chart = strcmp (wanted[i], "timeline") == 0 ? ls_chart_run_timeline (store, id, &error)
                : strcmp (wanted[i], "stages") == 0 ? ls_chart_run_stages (store, id, &error)
                : strcmp (wanted[i], "lanes") == 0  ? ls_chart_run_lanes (store, id, &error)
                                                    : ls_chart_run_memory (store, id, &error);
      else if (strcmp (wanted[i], "target") == 0)
        chart = ls_chart_target (store, &error);
      else
        chart = ls_chart_start_cost (store, &error);
      if (!chart)
        return fail (error);
      g_ptr_array_add (charts, chart);
    }

  int width = req->width, height = req->height, dw, dh;
  ls_chart_page_default_size (charts->len, &dw, &dh);
  if (width <= 0)
    width = dw;
  if (height <= 0)
    height = dh;
  if (!ls_chart_export ((ls_chart *const *) charts->pdata, charts->len, req->output, req->format, width, height,
                        req->dark, &error))
    return fail (error);

  g_autofree char *list = g_strjoinv (", ", wanted);
  gboolean simulated = FALSE;
  for (guint i = 0; i < charts->len; i++)
    simulated |= ((ls_chart *) charts->pdata[i])->simulated;
  if (req->all)
    printf (_("exported the chart (%s) of all runs to %s (%s, %d x %d)\n"), list, req->output, req->format, width,
            height);
  else
    printf (req->sweep ? ngettext ("exported %u chart (%s) of sweep %lld to %s (%s, %d x %d)%s\n",
                                   "exported %u charts (%s) of sweep %lld to %s (%s, %d x %d)%s\n", charts->len)
                       : ngettext ("exported %u chart (%s) of run %lld to %s (%s, %d x %d)%s\n",
                                   "exported %u charts (%s) of run %lld to %s (%s, %d x %d)%s\n", charts->len),
            charts->len, list, (long long) id, req->output, req->format, width, height,
            simulated ? _("; marked SIMULATED GPU") : "");
  return 0;
}
