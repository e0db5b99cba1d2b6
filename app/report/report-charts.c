/* The charts of a report, from the same builders as `export --format
 * png|svg` and the window: a sweep's headline charts (a series per machine
 * when several ran it), one run's timeline, memory, stages and lanes, and for a
 * selection of runs the headline charts of the sweeps they belong to. */
#include "app/core/i18n.h"
#include "app/report/report-data.h"

#include <string.h>

#include "app/report/chart-store.h"

/* Sweeps drawn for --runs or --all: enough for a review, small enough to open. */
#define MAX_SWEEPS 4

static void
add_chart (ls_report *report, ls_chart *chart, const char *name, GError *error)
{
  if (chart)
    {
      g_ptr_array_add (report->charts, chart);
      g_ptr_array_add (report->chart_names, g_strdup (name));
    }
  else
    g_ptr_array_add (report->notes, g_strdup_printf (_("chart %s left out: %s"), name, error ? error->message : "?"));
}

static void
add_sweep_charts (ls_report *report, ls_store *store, gint64 sweep_id)
{
  ls_chart_sweep_flags flags = report->machines->len > 1 ? LS_CHART_SWEEP_PER_MACHINE : 0;
  for (guint i = 0; ls_chart_sweep_names[i]; i++)
    {
      g_autoptr (GError) error = NULL;
      ls_chart *chart = ls_chart_sweep_with (store, sweep_id, ls_chart_sweep_names[i], flags, &error);
      g_autofree char *name = g_strdup_printf ("sweep-%" G_GINT64_FORMAT "-%s", sweep_id, ls_chart_sweep_names[i]);
      add_chart (report, chart, name, error);
    }
}

static void
add_run_charts (ls_report *report, ls_store *store, gint64 run_id)
{
  static const struct {
    const char *name;
    ls_chart *(*build) (ls_store *, gint64, GError **);
  } charts[] = {
    { "timeline", ls_chart_run_timeline },
    { "memory", ls_chart_run_memory },
    { "stages", ls_chart_run_stages },
    { "lanes", ls_chart_run_lanes },
  };
  for (guint i = 0; i < G_N_ELEMENTS (charts); i++)
    {
      g_autoptr (GError) error = NULL;
      ls_chart *chart = charts[i].build (store, run_id, &error);
      g_autofree char *name = g_strdup_printf ("run-%" G_GINT64_FORMAT "-%s", run_id, charts[i].name);
      add_chart (report, chart, name, error);
    }
}

void
ls_report_add_charts (ls_report *report, ls_store *store)
{
  if (report->sweep_id > 0)
    add_sweep_charts (report, store, report->sweep_id);
  else if (report->runs->len == 1)
    add_run_charts (report, store, json_object_get_int_member_with_default (report->runs->pdata[0], "id", 0));
  else
    {
      g_autoptr (GArray) sweeps = g_array_new (FALSE, FALSE, sizeof (gint64));
      guint loose = 0, more = 0;
      for (guint r = 0; r < report->runs->len; r++)
        {
          JsonObject *run = report->runs->pdata[r];
          JsonNode *n = json_object_get_member (run, "sweep_id");
          gint64 id = n && !json_node_is_null (n) ? json_node_get_int (n) : 0;
          gboolean seen = id <= 0;
          loose += id <= 0;
          for (guint k = 0; k < sweeps->len && !seen; k++)
            seen = g_array_index (sweeps, gint64, k) == id;
          if (seen)
            continue;
          if (sweeps->len < MAX_SWEEPS)
            g_array_append_val (sweeps, id);
          else
            more++;
        }
      /* A sweep's charts show all its runs: say so when only some were chosen. */
      for (guint k = 0; k < sweeps->len; k++)
        add_sweep_charts (report, store, g_array_index (sweeps, gint64, k));
      if (sweeps->len > 0 && report->sweep_id <= 0)
        g_ptr_array_add (report->notes, g_strdup (_("the sweep charts show every run of their sweep, also runs not "
                                                    "chosen for this report")));
      if (more > 0)
        g_ptr_array_add (report->notes,
                         g_strdup_printf (ngettext ("the charts of %u more sweep are left out (the first %d are drawn)",
                                                    "the charts of %u more sweeps are left out (the first %d are drawn)",
                                                    more),
                                          more, MAX_SWEEPS));
      if (loose > 0)
        g_ptr_array_add (report->notes,
                         g_strdup_printf (ngettext ("%u run outside any sweep: in the table, without charts",
                                                    "%u runs outside any sweep: in the table, without charts", loose),
                                          loose));
    }
  /* Worker start cost per platform: what several systems are compared for. */
  if (report->machines->len > 1)
    {
      g_autoptr (GError) error = NULL;
      ls_chart *chart = ls_chart_start_cost (store, &error);
      add_chart (report, chart, "start-cost", error);
      g_ptr_array_add (report->notes, g_strdup (_("the start-cost chart covers every run in the store")));
    }
}
