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
#include "app/report/report-writer.h"

#define CHART_W 1280
#define CHART_H 720

/* What the Markdown writer keeps between hooks. */
typedef struct {
  const char *path;   /* the report's file: the charts go beside it */
  GPtrArray *written; /* the charts' files */
  GString *rule;      /* the runs table's alignment row, as its head grows */
} md_state;

static void
put (ls_report_writer *w, const char *text)
{
  ls_report_put (w, text, LS_REPORT_TEXT_MAX);
}

/* A code block of Loadscope's own text: no fence inside it. */
static void
code (ls_report_writer *w, const char *text)
{
  g_autofree char *plain = ls_report_plain_text (text, LS_REPORT_SENTENCE_MAX);
  g_strdelimit (plain, "`", '\'');
  g_string_append_printf (w->out, "\n```python\n%s\n```\n", plain);
}

/* Each section's heading: a line of the catalogue's (RUNS: its own, with the count). */
static const char *const headings[] = {
  [LS_REPORT_ANSWER] = N_("## Recommendation and verdict\n\n"),
  [LS_REPORT_SIDE_BY_SIDE] = N_("## Machines side by side\n\n"),
  [LS_REPORT_CHARTS] = N_("## Charts\n\n"),
  [LS_REPORT_RANKS] = N_("## Ranks\n\n"),
  [LS_REPORT_MACHINES] = N_("## Machines"),
  [LS_REPORT_DATA] = N_("## Data\n\n"),
  [LS_REPORT_NOTES] = N_("## Notes\n\n"),
};

static void
section_start (ls_report_writer *w, ls_report_section section)
{
  if (section == LS_REPORT_RUNS)
    g_string_append_printf (w->out, _("## The runs (%u)\n\nSame in every run: "), w->report->runs->len);
  else
    g_string_append (w->out, _(headings[section]));
  if (section == LS_REPORT_MACHINES)
    g_string_append (w->out, "\n\n");
}

static void
section_end (ls_report_writer *w, ls_report_section section)
{
  if (section == LS_REPORT_RUNS)
    g_string_append (w->out, _("\nIn bold: the knobs that differ between the runs. ★ the recommended configuration. "
                               "Peak memory: PSS of the runner and its workers (private bytes on Windows).\n\n"));
  else if (section == LS_REPORT_RANKS)
    g_string_append (w->out, _("Step: the time between a rank's next() calls, its wait for the other ranks in the "
                               "gradient allreduce included. CPU: each rank's own process, not its workers. The "
                               "node's threads: the ranks' intra-op threads plus one per worker.\n\n"));
  else if (section != LS_REPORT_ANSWER && section != LS_REPORT_CHARTS)
    g_string_append (w->out, "\n");
}

static void
no_verdict (ls_report_writer *w)
{
  g_string_append (w->out, _("No run has a stored summary (still running when exported, or failed before it measured): "
                             "no verdict.\n\n"));
}

static void
verdict_machine (ls_report_writer *w, const ls_report_verdict *v)
{
  g_string_append (w->out, _("### On "));
  put (w, v->machine->hostname);
  g_string_append (w->out, " (");
  put (w, v->machine->platform);
  g_string_append (w->out, ")\n\n");
}

static void
recommendation (ls_report_writer *w, const char *text, const char *which)
{
  g_string_append (w->out, _("**Recommendation:** "));
  ls_report_put (w, text, LS_REPORT_SENTENCE_MAX);
  /* Loadscope's words and a run's id: nothing to escape. */
  if (which)
    g_string_append (w->out, which);
  g_string_append (w->out, "\n");
}

/* After the recommendation (and its code block, if any), a blank line. */
static void
headline (ls_report_writer *w, const char *text)
{
  g_string_append (w->out, "\n");
  g_string_append (w->out, _("**Verdict:** "));
  ls_report_put (w, text, LS_REPORT_SENTENCE_MAX);
  g_string_append (w->out, "\n\n");
}

static void
suggested (ls_report_writer *w, const char *text)
{
  g_string_append (w->out, _("\nWith the knobs the findings name:\n"));
  code (w, text);
  g_string_append (w->out, "\n");
}

static void
ranks_run (ls_report_writer *w, const ls_ranks_table *t)
{
  guint n = ls_ranks_table_n_rows (t);
  g_string_append_printf (w->out, ngettext ("### Run %lld: %u rank\n\n", "### Run %lld: %u ranks\n\n", n),
                          (long long) t->run_id, n);
}

/* Writes chart i as <stem>-<name>.png beside the report and links it. */
static gboolean
chart (ls_report_writer *w, guint i, GError **error)
{
  md_state *state = w->data;
  ls_chart *chart = w->report->charts->pdata[i];
  g_autofree char *dir = g_path_get_dirname (state->path);
  g_autofree char *base = g_path_get_basename (state->path);
  char *dot = strrchr (base, '.');
  if (dot && dot != base)
    *dot = '\0';
  g_autofree char *file = g_strdup_printf ("%s-%s.png", base, (const char *) w->report->chart_names->pdata[i]);
  g_autofree char *png = g_build_filename (dir, file, NULL);
  if (!ls_chart_export (&chart, 1, png, "png", CHART_W, CHART_H, FALSE, error))
    return FALSE;
  g_ptr_array_add (state->written, g_strdup (png));
  /* The link is relative and escaped as a URL: any file name stays one link. */
  g_autofree char *link = g_uri_escape_string (file, NULL, FALSE);
  g_string_append (w->out, "![");
  put (w, chart->title);
  g_string_append_printf (w->out, "](%s)\n\n", link);
  return TRUE;
}

static void
same_knob (ls_report_writer *w, const char *label, const char *value, gboolean first)
{
  g_string_append (w->out, first ? "" : "; ");
  put (w, label);
  g_string_append (w->out, " ");
  put (w, value);
}

static void
head_cell (ls_report_writer *w, const char *text, gboolean numeric)
{
  md_state *state = w->data;
  g_string_append (w->out, " ");
  put (w, text);
  g_string_append (w->out, " |");
  g_string_append (state->rule, numeric ? " ---: |" : " --- |");
}

/* The knobs that differ, in bold: Markdown tables have no colours. */
static void
head_cell_differs (ls_report_writer *w, const char *text)
{
  md_state *state = w->data;
  g_string_append (w->out, " **");
  put (w, text);
  g_string_append (w->out, "** |");
  g_string_append (state->rule, " --- |");
}

static void
runs_head_end (ls_report_writer *w)
{
  md_state *state = w->data;
  g_string_append_printf (w->out, "\n%s\n", state->rule->str);
  g_string_assign (state->rule, "|");
}

/* The fixed tables: a line of the catalogue's as the head, its alignments,
 * a blank line before and after where the section wants one. */
static const struct {
  const char *before, *head, *rule, *after;
} tables[] = {
  [LS_REPORT_TABLE_START_GROUPS] = { "\n",
                                     N_("| platform, start | runs | worker starts | start-up p50 (ms) | start-up max "
                                        "(ms) | first batch p50 (ms) |"),
                                     "| --- | ---: | ---: | ---: | ---: | ---: |", "" },
  [LS_REPORT_TABLE_SAME_KNOBS] = { "\n",
                                   N_("| knobs | machine | start | runs | throughput (samples/s) | peak memory (MB) |"),
                                   "| --- | --- | --- | ---: | ---: | ---: |", "" },
  [LS_REPORT_TABLE_RANKS] = { "",
                              N_("| rank | throughput (samples/s) | batch wait p50 (ms) | step p50 (ms) | workers | "
                                 "threads | CPU (s) |"),
                              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", "\n" },
  [LS_REPORT_TABLE_MACHINES] = { "", N_("| host | OS | kernel | CPU | cores | memory (GB) | GPU | driver | CUDA | runs |"),
                                 "| --- | --- | --- | --- | ---: | ---: | --- | --- | --- | ---: |", "" },
  [LS_REPORT_TABLE_SCRIPTS] = { "\n", N_("| script | SHA-256 | Python | torch |"), "| --- | --- | --- | --- |", "" },
};

static void
table_start (ls_report_writer *w, ls_report_table table)
{
  g_string_append_printf (w->out, "%s%s\n%s\n", tables[table].before, _(tables[table].head), tables[table].rule);
}

static void
table_end (ls_report_writer *w, ls_report_table table)
{
  g_string_append (w->out, tables[table].after);
}

static void
run_row_start (ls_report_writer *w, gint64 id, gboolean recommended)
{
  g_string_append_printf (w->out, "| %" G_GINT64_FORMAT "%s |", id, recommended ? " ★" : "");
}

static void
rank_row_start (ls_report_writer *w, int rank, gboolean slowest)
{
  if (rank < 0)
    g_string_append (w->out, _("| **node** |"));
  else
    g_string_append_printf (w->out, slowest ? _("| **%d (slowest)** |") : "| %d |", rank);
}

static void
cell (ls_report_writer *w, const char *text, ls_report_cell_kind kind, const char *aside)
{
  g_string_append (w->out, " ");
  put (w, text);
  if (kind == LS_REPORT_CELL_CONTAINER)
    {
      g_autofree char *tag = g_strdup_printf (_(" (in a container: %s)"), aside);
      put (w, tag);
    }
  else if (kind == LS_REPORT_CELL_WINE)
    g_string_append (w->out, _(" (Wine: its timings are not Windows')"));
  else if (kind == LS_REPORT_CELL_PLATFORM)
    {
      g_string_append (w->out, " (");
      put (w, aside);
      g_string_append (w->out, ")");
    }
  g_string_append (w->out, " |");
}

static void
cell_spanning (ls_report_writer *w, const char *text, guint rows, gboolean first)
{
  g_string_append (w->out, " ");
  if (first)
    put (w, text);
  g_string_append (w->out, " |");
}

static void
cell_number (ls_report_writer *w, double v, int decimals, gboolean sortable)
{
  if (isfinite (v))
    g_string_append_printf (w->out, " %.*f |", decimals, v);
  else
    g_string_append (w->out, " - |");
}

static void
cell_status (ls_report_writer *w, const char *status, const char *why, gboolean simulated)
{
  g_string_append (w->out, " ");
  put (w, status);
  if (simulated)
    g_string_append_printf (w->out, " (%s)", _("SIMULATED GPU"));
  g_string_append (w->out, " |");
}

static void
cell_differs (ls_report_writer *w, const char *text, const double *value)
{
  g_string_append (w->out, " **");
  put (w, text);
  g_string_append (w->out, "** |");
}

/* A list is its items, a line each; the runs table's head starts a
 * paragraph after the shared knobs' sentence. */
static const ls_report_markup markdown = {
  .escape = ls_report_md_escape, .item_start = "- ", .item_end = "\n", .paragraph_end = "\n\n", .verdict_end = "\n",
  .same_knobs_end = ".", .runs_head_start = "\n\n|", .row_start = "|", .row_end = "\n", LS_REPORT_HOOKS,
};

GString *
ls_report_markdown (const ls_report *report, const char *path, GPtrArray *written, GError **error)
{
  g_autoptr (GString) rule = g_string_new ("|");
  md_state state = { .path = path, .written = written, .rule = rule };
  ls_report_writer w = { .out = g_string_new (_("# Loadscope report: ")), .format = &markdown, .report = report,
                         .data = &state };
  put (&w, report->title);
  g_autofree char *n_runs = g_strdup_printf (ngettext ("%u run", "%u runs", report->runs->len), report->runs->len);
  g_autofree char *n_machines
      = g_strdup_printf (ngettext ("%u machine", "%u machines", report->machines->len), report->machines->len);
  /* TRANSLATORS: 3 runs on 1 machine */
  g_string_append_printf (w.out, _("\n\n%s on %s · "), n_runs, n_machines);
  put (&w, report->generated_at);
  g_string_append_printf (w.out, _(" · Loadscope %s · store "), LS_VERSION);
  ls_report_put (&w, report->store_path, LS_REPORT_SENTENCE_MAX);
  g_string_append (w.out, "\n\n");
  if (report->simulated)
    g_string_append_printf (w.out, "> **%s** %s\n\n", ls_chart_simulated_note (),
                            ls_report_all_simulated (report) ? _("Every run here used it.")
                                                             : _("Runs marked SIMULATED GPU in the table."));
  if (!ls_report_walk (&w, error))
    {
      g_string_free (w.out, TRUE);
      return NULL;
    }
  g_string_append_printf (w.out, _("*Made by Loadscope %s.*\n"), LS_VERSION);
  return w.out;
}
