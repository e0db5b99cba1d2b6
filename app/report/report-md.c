/* The report as Markdown for a pull request or an issue: the same content
 * as the HTML page, the charts as PNG files beside it, linked by relative
 * path. Every text from the store goes through ls_report_md_escape; code
 * blocks hold only what Loadscope wrote (the DataLoader line). */
#include "app/report/report.h"

#include <math.h>
#include <string.h>

#include "app/chart/chart-export.h"
#include "app/core/i18n.h"
#include "app/report/report-escape.h"
#include "app/store/store-query.h"

#define CHART_W 1280
#define CHART_H 720
#define SENTENCE_MAX 2000

static void
put (GString *out, const char *text, gsize max)
{
  g_autofree char *e = ls_report_md_escape (text, max);
  g_string_append (out, e);
}

static void
put_sentence (GString *out, const char *text)
{
  put (out, text, SENTENCE_MAX);
}

/* A code block of Loadscope's own text: no fence inside it. */
static void
put_code (GString *out, const char *text)
{
  g_autofree char *plain = ls_report_plain_text (text, SENTENCE_MAX);
  g_strdelimit (plain, "`", '\'');
  g_string_append_printf (out, "\n```python\n%s\n```\n\n", plain);
}

static void
put_number (GString *out, double v, int decimals)
{
  if (isfinite (v))
    g_string_append_printf (out, " %.*f |", decimals, v);
  else
    g_string_append (out, " - |");
}

static void
put_verdict (GString *out, const ls_report *report, const ls_report_verdict *v)
{
  const ls_verdict *verdict = &v->verdict;
  if (report->verdicts->len > 1)
    {
      g_string_append (out, _("### On "));
      put (out, v->machine->hostname, LS_REPORT_TEXT_MAX);
      g_string_append (out, " (");
      put (out, v->machine->platform, LS_REPORT_TEXT_MAX);
      g_string_append (out, ")\n\n");
    }
  if (verdict->recommendation)
    {
      g_string_append (out, _("**Recommendation:** "));
      put_sentence (out, verdict->recommendation);
      if (verdict->index >= 0)
        {
          guint r = g_array_index (v->run_index, guint, (guint) verdict->index);
          g_string_append_printf (out, _(" (run %lld, ★ in the table)"),
                                  (long long) json_object_get_int_member_with_default (report->runs->pdata[r], "id", 0));
        }
      g_string_append (out, "\n");
    }
  if (verdict->dataloader)
    put_code (out, verdict->dataloader);
  else
    g_string_append (out, "\n");
  g_string_append (out, _("**Verdict:** "));
  put_sentence (out, verdict->headline ? verdict->headline : _("none"));
  g_string_append (out, "\n\n");
  for (guint i = 0; i < verdict->findings->len; i++)
    {
      g_string_append (out, "- ");
      put_sentence (out, verdict->findings->pdata[i]);
      g_string_append (out, "\n");
    }
  for (guint i = 0; i < verdict->warnings->len; i++)
    {
      g_string_append (out, "- ⚠ ");
      put_sentence (out, verdict->warnings->pdata[i]);
      g_string_append (out, "\n");
    }
  if (verdict->suggested)
    {
      g_string_append (out, _("\nWith the knobs the findings name:\n"));
      put_code (out, verdict->suggested);
    }
  g_string_append (out, "\n");
}

static void
put_side_by_side (GString *out, const ls_report *report)
{
  g_string_append (out, _("## Machines side by side\n\n"));
  for (guint i = 0; i < report->differences->len; i++)
    {
      g_string_append (out, "- ");
      put_sentence (out, report->differences->pdata[i]);
      g_string_append (out, "\n");
    }
  if (report->start_groups->len)
    {
      g_string_append_printf (out, "\n%s\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
                              _("| platform, start | runs | worker starts | start-up p50 (ms) | start-up max (ms) | "
                                "first batch p50 (ms) |"));
      for (guint i = 0; i < report->start_groups->len; i++)
        {
          const ls_report_start_group *g = report->start_groups->pdata[i];
          g_string_append (out, "| ");
          put (out, g->label, LS_REPORT_TEXT_MAX);
          g_string_append_printf (out, " | %u | %u |", g->n_runs, g->n_workers);
          put_number (out, g->startup_p50_ms, 1);
          put_number (out, g->startup_max_ms, 1);
          put_number (out, g->first_batch_p50_ms, 1);
          g_string_append (out, "\n");
        }
    }
  if (report->same_knobs->len)
    {
      g_string_append_printf (out, "\n%s\n| --- | --- | --- | ---: | ---: | ---: |\n",
                              _("| knobs | machine | start | runs | throughput (samples/s) | peak memory (MB) |"));
      for (guint i = 0; i < report->same_knobs->len; i++)
        {
          const ls_report_same_knobs *same = report->same_knobs->pdata[i];
          for (guint c = 0; c < same->cells->len; c++)
            {
              const ls_report_cell *cell = same->cells->pdata[c];
              g_string_append (out, "| ");
              if (c == 0)
                put (out, same->knobs, LS_REPORT_TEXT_MAX);
              g_string_append (out, " | ");
              put (out, cell->machine->hostname, LS_REPORT_TEXT_MAX);
              g_string_append (out, " (");
              put (out, cell->machine->platform, LS_REPORT_TEXT_MAX);
              g_string_append (out, ") | ");
              put (out, cell->start, LS_REPORT_TEXT_MAX);
              g_string_append_printf (out, " | %u |", cell->n_runs);
              put_number (out, cell->throughput_sps, 0);
              put_number (out, cell->memory_bytes / 1e6, 1);
              g_string_append (out, "\n");
            }
        }
    }
  g_string_append (out, "\n");
}

/* Writes each chart as <stem>-<name>.png beside path and links it. */
static gboolean
put_charts (GString *out, const ls_report *report, const char *path, GPtrArray *written, GError **error)
{
  if (report->charts->len == 0)
    return TRUE;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  char *dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  g_string_append (out, _("## Charts\n\n"));
  for (guint i = 0; i < report->charts->len; i++)
    {
      ls_chart *chart = report->charts->pdata[i];
      g_autofree char *file = g_strdup_printf ("%s-%s.png", base, (const char *) report->chart_names->pdata[i]);
      g_autofree char *png = g_build_filename (dir, file, NULL);
      if (!ls_chart_export (&chart, 1, png, "png", CHART_W, CHART_H, FALSE, error))
        return FALSE;
      g_ptr_array_add (written, g_strdup (png));
      /* The link is relative and escaped as a URL: any file name stays one link. */
      g_autofree char *link = g_uri_escape_string (file, NULL, FALSE);
      g_string_append (out, "![");
      put (out, chart->title, LS_REPORT_TEXT_MAX);
      g_string_append_printf (out, "](%s)\n\n", link);
    }
  return TRUE;
}

static void
put_runs (GString *out, const ls_report *report)
{
  const ls_compare_table *table = report->table;
  g_string_append_printf (out, _("## The runs (%u)\n\nSame in every run: "), report->runs->len);
  gboolean first = TRUE;
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind != LS_COMPARE_KNOB || row->differs)
        continue;
      g_string_append (out, first ? "" : "; ");
      put (out, row->label, LS_REPORT_TEXT_MAX);
      g_string_append (out, " ");
      put (out, row->cells->pdata[0], LS_REPORT_TEXT_MAX);
      first = FALSE;
    }
  g_string_append_printf (out, ".\n\n| %s |", _("run"));
  GString *rule = g_string_new ("| ---: |");
  if (report->machines->len > 1)
    {
      g_string_append_printf (out, " %s |", _("machine"));
      g_string_append (rule, " --- |");
    }
  g_string_append_printf (out, " %s |", _("status"));
  g_string_append (rule, " --- |");
  /* The knobs that differ, in bold: Markdown tables have no colours. */
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind != LS_COMPARE_KNOB || !row->differs)
        continue;
      g_string_append (out, " **");
      put (out, row->label, LS_REPORT_TEXT_MAX);
      g_string_append (out, "** |");
      g_string_append (rule, " --- |");
    }
  for (guint f = 0; f < ls_report_n_figures; f++)
    {
      g_autofree char *heading = ls_run_figure_heading (ls_report_figure (f));
      g_string_append (out, " ");
      put (out, heading, LS_REPORT_TEXT_MAX);
      g_string_append (out, " |");
      g_string_append (rule, " ---: |");
      if (f == 3)
        {
          g_string_append_printf (out, " %s |", _("peak memory (MB)"));
          g_string_append (rule, " ---: |");
        }
    }
  g_string_append_printf (out, "\n%s\n", rule->str);
  g_string_free (rule, TRUE);
  for (guint r = 0; r < report->runs->len; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      g_string_append_printf (out, "| %" G_GINT64_FORMAT "%s |", json_object_get_int_member_with_default (run, "id", 0),
                              ls_report_run_is_recommended (report, r) ? " ★" : "");
      if (report->machines->len > 1)
        {
          g_string_append (out, " ");
          put (out, ls_report_machine_of (report, run)->hostname, LS_REPORT_TEXT_MAX);
          g_string_append (out, " |");
        }
      g_string_append (out, " ");
      put (out, json_object_get_string_member_with_default (run, "status", "?"), LS_REPORT_TEXT_MAX);
      if (json_object_get_int_member_with_default (run, "simulated", 0) && !ls_report_all_simulated (report))
        g_string_append_printf (out, " (%s)", _("SIMULATED GPU"));
      g_string_append (out, " |");
      for (guint i = 0; i < table->rows->len; i++)
        {
          const ls_compare_row *row = table->rows->pdata[i];
          if (row->kind != LS_COMPARE_KNOB || !row->differs)
            continue;
          g_string_append (out, " **");
          put (out, row->cells->pdata[r], LS_REPORT_TEXT_MAX);
          g_string_append (out, "** |");
        }
      for (guint f = 0; f < ls_report_n_figures; f++)
        {
          const ls_run_figure *fig = ls_report_figure (f);
          double v;
          put_number (out, ls_json_number (run, fig->column, &v) ? v * fig->scale : NAN, fig->decimals);
          if (f == 3)
            put_number (out, ls_report_run_memory (run) / 1e6, 1);
        }
      g_string_append (out, "\n");
    }
  g_string_append (out, _("\nIn bold: the knobs that differ between the runs. ★ the recommended configuration. "
                          "Peak memory: PSS of the runner and its workers (private bytes on Windows).\n\n"));
}

static void
put_machines (GString *out, const ls_report *report)
{
  g_string_append_printf (out, "%s\n\n%s\n| --- | --- | --- | --- | ---: | ---: | --- | --- | --- | ---: |\n",
                          _("## Machines"),
                          _("| host | OS | kernel | CPU | cores | memory (GB) | GPU | driver | CUDA | runs |"));
  for (guint i = 0; i < report->machines->len; i++)
    {
      const ls_report_machine *m = report->machines->pdata[i];
      const char *cells[] = { m->hostname, m->os, m->kernel, m->cpu_model };
      g_string_append (out, "|");
      for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
        {
          g_string_append (out, " ");
          put (out, cells[c], LS_REPORT_TEXT_MAX);
          if (c == 0 && m->container)
            {
              g_autofree char *tag = g_strdup_printf (_(" (in a container: %s)"), m->container);
              put (out, tag, LS_REPORT_TEXT_MAX);
            }
          if (c == 1 && m->wine)
            g_string_append (out, _(" (Wine: its timings are not Windows')"));
          g_string_append (out, " |");
        }
      g_string_append_printf (out, " %" G_GINT64_FORMAT " | %.1f |", m->cores, (double) m->ram_bytes / 1e9);
      const char *gpu_cells[] = { m->gpu ? m->gpu : _("none seen"), m->driver, m->cuda };
      for (guint c = 0; c < G_N_ELEMENTS (gpu_cells); c++)
        {
          g_string_append (out, " ");
          put (out, gpu_cells[c], LS_REPORT_TEXT_MAX);
          g_string_append (out, " |");
        }
      g_string_append_printf (out, " %u |\n", m->n_runs);
    }
  g_string_append (out, "\n");
}

static void
put_data (GString *out, const ls_report *report)
{
  g_string_append (out, _("## Data\n\n"));
  for (guint i = 0; i < report->datasets->len; i++)
    {
      g_string_append (out, "- ");
      put (out, report->datasets->pdata[i], LS_REPORT_TEXT_MAX);
      g_string_append (out, "\n");
    }
  if (report->scripts->len)
    {
      g_string_append_printf (out, "\n%s\n| --- | --- | --- | --- |\n", _("| script | SHA-256 | Python | torch |"));
      for (guint i = 0; i < report->scripts->len; i++)
        {
          const ls_report_script *s = report->scripts->pdata[i];
          const char *cells[] = { s->name, s->sha256, s->python, s->torch };
          g_string_append (out, "|");
          for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
            {
              g_string_append (out, " ");
              put (out, cells[c], LS_REPORT_TEXT_MAX);
              g_string_append (out, " |");
            }
          g_string_append (out, "\n");
        }
    }
  g_string_append (out, "\n");
}

static void
put_rank_row (GString *out, const ls_rank_row *r)
{
  if (r->rank >= 0)
    g_string_append_printf (out, r->slowest ? _("| **%d (slowest)** |") : "| %d |", r->rank);
  else
    g_string_append (out, _("| **node** |"));
  put_number (out, r->throughput_sps, 1);
  put_number (out, r->wait_ms_p50, 2);
  put_number (out, r->step_ms_p50, 2);
  put_number (out, r->workers >= 0 ? (double) r->workers : NAN, 0);
  put_number (out, r->threads >= 0 ? (double) r->threads : NAN, 0);
  put_number (out, r->cpu_ms / 1000.0, 1);
  g_string_append (out, "\n");
}

/* Each run with ranks: a row per rank, the slowest in bold, the node's totals. */
static void
put_ranks (GString *out, const ls_report *report)
{
  if (report->ranks->len == 0)
    return;
  g_string_append (out, _("## Ranks\n\n"));
  for (guint i = 0; i < report->ranks->len; i++)
    {
      const ls_ranks_table *t = report->ranks->pdata[i];
      g_string_append_printf (out, ngettext ("### Run %lld: %u rank\n\n", "### Run %lld: %u ranks\n\n", ls_ranks_table_n_rows (t)),
                              (long long) t->run_id, ls_ranks_table_n_rows (t));
      if (t->slowest >= 0)
        {
          /* the same sentence as the window's ranks view (ui/ls-ranks-view.c) */
          g_autofree char *said
              = g_strdup_printf (_("Rank %d is the slowest (%s): its median batch wait %.1f ms against the others' "
                                   "%.1f ms. DDP waits for it at every step."),
                                 ls_ranks_table_row (t, (guint) t->slowest)->rank, _(t->slowest_stage),
                                 t->slowest_wait_ms, t->others_wait_ms);
          put (out, said, SENTENCE_MAX);
          g_string_append (out, "\n\n");
        }
      g_string_append_printf (out, "%s\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                              _("| rank | throughput (samples/s) | batch wait p50 (ms) | step p50 (ms) | workers | "
                                "threads | CPU (s) |"));
      for (guint r = 0; r < ls_ranks_table_n_rows (t); r++)
        put_rank_row (out, ls_ranks_table_row (t, r));
      put_rank_row (out, &t->node);
      g_string_append (out, "\n");
    }
  g_string_append (out, _("Step: the time between a rank's next() calls, its wait for the other ranks in the gradient "
                          "allreduce included. CPU: each rank's own process, not its workers. The node's threads: the "
                          "ranks' intra-op threads plus one per worker.\n\n"));
}

GString *
ls_report_markdown (const ls_report *report, const char *path, GPtrArray *written, GError **error)
{
  GString *out = g_string_new (_("# Loadscope report: "));
  put (out, report->title, LS_REPORT_TEXT_MAX);
  g_autofree char *n_runs = g_strdup_printf (ngettext ("%u run", "%u runs", report->runs->len), report->runs->len);
  g_autofree char *n_machines
      = g_strdup_printf (ngettext ("%u machine", "%u machines", report->machines->len), report->machines->len);
  /* TRANSLATORS: 3 runs on 1 machine */
  g_string_append_printf (out, _("\n\n%s on %s · "), n_runs, n_machines);
  put (out, report->generated_at, LS_REPORT_TEXT_MAX);
  g_string_append_printf (out, _(" · Loadscope %s · store "), LS_VERSION);
  put (out, report->store_path, SENTENCE_MAX);
  g_string_append (out, "\n\n");
  if (report->simulated)
    g_string_append_printf (out, "> **%s** %s\n\n", ls_chart_simulated_note (),
                            ls_report_all_simulated (report) ? _("Every run here used it.")
                                                             : _("Runs marked SIMULATED GPU in the table."));

  g_string_append (out, _("## Recommendation and verdict\n\n"));
  if (report->verdicts->len == 0)
    g_string_append (out, _("No run has a stored summary (still running when exported, or failed before it measured): "
                            "no verdict.\n\n"));
  for (guint i = 0; i < report->verdicts->len; i++)
    put_verdict (out, report, report->verdicts->pdata[i]);
  if (report->machines->len > 1)
    put_side_by_side (out, report);
  if (!put_charts (out, report, path, written, error))
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  put_runs (out, report);
  put_ranks (out, report);
  put_machines (out, report);
  put_data (out, report);
  if (report->notes->len)
    {
      g_string_append (out, _("## Notes\n\n"));
      for (guint i = 0; i < report->notes->len; i++)
        {
          g_string_append (out, "- ");
          put_sentence (out, report->notes->pdata[i]);
          g_string_append (out, "\n");
        }
      g_string_append (out, "\n");
    }
  g_string_append_printf (out, _("*Made by Loadscope %s.*\n"), LS_VERSION);
  return out;
}
