/* The report as one self-contained HTML page: no request of any kind (a
 * Content-Security-Policy forbids them), charts inline as SVG from the
 * cairo renderer (a light and a dark copy, chosen by prefers-color-scheme;
 * print takes the light one), readable without JavaScript; a few lines of
 * it sort the runs table. Every text from the store goes through
 * ls_report_html_escape. */
#include "app/report/report.h"

#include <math.h>
#include <string.h>

#include "app/chart/chart-export.h"
#include "app/core/i18n.h"
#include "app/report/report-escape.h"
#include "app/report/report-writer.h"
#include "app/store/store-query.h"

/* The charts' size in the page (CSS scales them to the column). */
#define CHART_W 1040
#define CHART_H 580

static const char css[] =
    /* Which copy of a chart shows: the light one unless the reader prefers dark (print: light). */
    ".chart-dark{display:none}"
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1d1d1f;--muted:#5f6368;--line:#d9dce1;--head:#f3f4f6;"
    "--hl:#fff3c4;--hl-fg:#5c4400;--ok:#1a7f37;--bad:#c5221f;--code:#f6f8fa;--accent:#1a5fb4;--star:#fbe7a1}"
    "@media (prefers-color-scheme:dark){:root{--bg:#1e1e20;--fg:#e8e8ea;--muted:#a0a4ab;--line:#3a3d42;"
    "--head:#2a2c30;--hl:#4a3d0f;--hl-fg:#ffe28a;--ok:#57c26b;--bad:#ff7b72;--code:#26282c;--accent:#78aeed;"
    "--star:#3d3515}.chart-light{display:none}.chart-dark{display:block}}"
    "body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,'Segoe UI',"
    "'DejaVu Sans',sans-serif}"
    "main{max-width:1120px;margin:0 auto;padding:24px 28px 48px}"
    "h1{font-size:1.7em;margin:0 0 4px}h2{font-size:1.3em;margin:32px 0 8px;padding-bottom:4px;"
    "border-bottom:1px solid var(--line)}h3{font-size:1.05em;margin:18px 0 6px}"
    ".meta{color:var(--muted);margin:0 0 12px}"
    ".sim{border:2px solid #d97706;background:rgba(217,119,6,.12);padding:8px 12px;border-radius:6px;"
    "font-weight:600}"
    ".headline{font-size:1.12em;font-weight:600}.warn li{color:var(--bad)}"
    "pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:10px 12px;"
    "overflow-x:auto;white-space:pre-wrap;word-break:break-word}code{font-family:ui-monospace,'DejaVu Sans Mono',"
    "monospace;font-size:.92em}"
    ".table-wrap{overflow-x:auto}table{border-collapse:collapse;margin:8px 0;font-size:.9em}"
    "th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}"
    "th{background:var(--head);font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    /* A long name from a bundle wraps instead of widening the page. */
    "p,li,h1,h2,h3{overflow-wrap:anywhere}td{overflow-wrap:break-word}td.n,table.runs td:first-child{white-space:nowrap}"
    "th.differs,td.differs{background:var(--hl);color:var(--hl-fg)}"
    "tr.recommended td{background:var(--star)}tr.recommended td.differs{background:var(--hl)}"
    "tr.recommended td:first-child{box-shadow:inset 4px 0 0 var(--accent);font-weight:600}"
    "tr.slowest td{background:var(--hl);color:var(--hl-fg)}tr.node td{font-weight:600}"
    ".status-failed,.status-interrupted{color:var(--bad);font-weight:600}"
    "table.sortable th{cursor:pointer}"
    "figure{margin:16px 0}figure svg{width:100%;height:auto;display:block;border:1px solid var(--line);"
    "border-radius:6px}"
    ".tag{display:inline-block;font-size:.8em;padding:0 6px;border-radius:4px;background:var(--hl);"
    "color:var(--hl-fg);margin-left:4px}.muted{color:var(--muted)}"
    "ul.same{list-style:none;padding:0;margin:6px 0 10px;display:flex;flex-wrap:wrap;gap:4px 8px}"
    "ul.same li{border:1px solid var(--line);border-radius:4px;padding:0 6px;font-size:.9em}"
    "ul.same .k{color:var(--muted)}"
    "@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--head:#eee;--hl:#fff3c4;--hl-fg:#000;"
    "--code:#f6f6f6}.chart-light{display:block!important}.chart-dark{display:none!important}main{max-width:none;"
    "padding:0}figure,table,pre{break-inside:avoid}h2{break-after:avoid}a{color:inherit}}";

/* Clicking a heading sorts the table by that column (numbers by data-v). */
static const char sort_js[] =
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,i){th.title='sort';th.addEventListener('click',function(){"
    "var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),asc=th.dataset.asc!=='1';"
    "t.querySelectorAll('th').forEach(function(h){delete h.dataset.asc});if(asc)th.dataset.asc='1';"
    "rows.sort(function(x,y){var a=x.cells[i],c=y.cells[i],p=parseFloat(a.dataset.v),q=parseFloat(c.dataset.v);"
    "var r=(!isNaN(p)&&!isNaN(q))?p-q:a.textContent.localeCompare(c.textContent);return asc?r:-r});"
    "rows.forEach(function(r){b.appendChild(r)})})})});";

/* Copies a number of an attribute with at most DECIMALS decimals: cairo
 * writes six, which makes the glyph outlines most of the page's weight. */
#define DECIMALS 2
static const char *
put_number_rounded (GString *out, const char *p)
{
  const char *q = p;
  while (g_ascii_isdigit (*q))
    q++;
  if (*q != '.' || !g_ascii_isdigit (q[1]))
    {
      g_string_append_len (out, p, q - p);
      return q;
    }
  const char *end = q + 1;
  while (g_ascii_isdigit (*end))
    end++;
  if (end - q - 1 <= DECIMALS)
    {
      g_string_append_len (out, p, end - p);
      return end;
    }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *number = g_strndup (p, end - p);
  g_ascii_formatd (buf, sizeof buf, "%." G_STRINGIFY (DECIMALS) "f", g_ascii_strtod (number, NULL));
  /* "12.50" -> "12.5", "3.00" -> "3". */
  char *last = buf + strlen (buf) - 1;
  while (*last == '0')
    *last-- = '\0';
  if (*last == '.')
    *last = '\0';
  g_string_append (out, buf);
  return end;
}

/* The SVG of one chart as an element of the page: without the XML
 * declaration, its ids (glyphs, clips) prefixed so that several charts in
 * one document do not take each other's glyphs, its coordinates rounded.
 * glyphs: the prefix of a copy of the same chart already in the page
 * (the light one) whose glyph outlines this one uses instead of its own:
 * the themes differ in colours only, and the outlines are most of the
 * weight; NULL: its own. */
static gboolean
put_svg (GString *out, ls_chart *chart, const char *prefix, const char *glyphs, gboolean dark, GError **error)
{
  g_autoptr (GByteArray) bytes = ls_chart_export_bytes (&chart, 1, chart->title, "svg", CHART_W, CHART_H, dark, error);
  if (!bytes)
    return FALSE;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  const char *svg = strstr ((const char *) bytes->data, "<svg");
  if (!svg)
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_DRAW, _("%s: cairo wrote no <svg> element"), chart->title);
      return FALSE;
    }
  static const char *const refs[] = { "id=\"", "href=\"#", "url(#" };
  gboolean in_tag = FALSE, in_value = FALSE;
  const char *p = svg;
  while (*p)
    {
      gboolean matched = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (refs) && !matched && in_tag; i++)
        if (strncmp (p, refs[i], strlen (refs[i])) == 0)
          {
            p += strlen (refs[i]);
            g_string_append (out, refs[i]);
            g_string_append (out, glyphs && g_str_has_prefix (p, "glyph") ? glyphs : prefix);
            matched = in_value = TRUE;
          }
      if (matched)
        continue;
      /* The second copy needs neither the outlines nor the texts again. */
      static const char *const skipped[][2] = { { "<symbol", "</symbol>" }, { "<title>", "</title>" },
                                                { "<desc>", "</desc>" } };
      const char *end = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (skipped) && glyphs && !in_tag && !end; i++)
        if (g_str_has_prefix (p, skipped[i][0]) && (end = strstr (p, skipped[i][1])))
          end += strlen (skipped[i][1]);
      if (end)
        {
          p = end;
          continue;
        }
      if (in_value && g_ascii_isdigit (*p) && !g_ascii_isalnum (p[-1]) && p[-1] != '.')
        {
          p = put_number_rounded (out, p);
          continue;
        }
      /* Only markup is touched: texts (<title>, <desc>) are copied as they are. */
      if (!in_tag && *p == '<')
        in_tag = TRUE;
      else if (in_tag && !in_value && *p == '>')
        in_tag = FALSE;
      else if (in_tag && *p == '"')
        in_value = !in_value;
      g_string_append_c (out, *p++);
    }
  return TRUE;
}


/* ------------------------------------------------------- the format's hooks */

static void
put (ls_report_writer *w, const char *text)
{
  ls_report_put (w, text, LS_REPORT_TEXT_MAX);
}

static void
put_sentence (ls_report_writer *w, const char *text)
{
  ls_report_put (w, text, LS_REPORT_SENTENCE_MAX);
}

/* Each section's id and heading (RUNS: its own, with the count). */
static const struct {
  const char *id, *heading;
} sections[] = {
  [LS_REPORT_ANSWER] = { "answer", N_("Recommendation and verdict") },
  [LS_REPORT_SIDE_BY_SIDE] = { "side-by-side", N_("Machines side by side") },
  [LS_REPORT_CHARTS] = { "charts", N_("Charts") },
  [LS_REPORT_RUNS] = { "runs", NULL },
  [LS_REPORT_RANKS] = { "ranks", N_("Ranks") },
  [LS_REPORT_MACHINES] = { "machines", N_("Machines") },
  [LS_REPORT_DATA] = { "data", N_("Data") },
  [LS_REPORT_NOTES] = { "notes", N_("Notes") },
};

static void
section_start (ls_report_writer *w, ls_report_section section)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<section id=\"%s\">\n<h2>", sections[section].id);
  if (section != LS_REPORT_RUNS)
    {
      g_string_append (w->out, _(sections[section].heading));
      g_string_append (w->out, "</h2>\n");
      return;
    }
  g_autofree char *runs_heading = g_strdup_printf (_("The runs (%u)"), w->report->runs->len);
  put (w, runs_heading);
  /* untranslated: markup */
  g_string_append_printf (w->out, "</h2>\n<p>%s</p>\n<ul class=\"same\">\n",
                          _("Same in every run:"));
}

static void
section_end (ls_report_writer *w, ls_report_section section)
{
  const char *note = NULL;
  if (section == LS_REPORT_RUNS)
    {
      g_string_append (w->out, "</tbody></table></div>\n");
      note = _("Highlighted: the knobs that differ between the runs. ★ the recommended configuration. "
               "Peak memory: PSS of the runner and its workers (private bytes on Windows). With "
               "JavaScript, a click on a heading sorts the table.");
    }
  else if (section == LS_REPORT_RANKS)
    note = _("Step: the time between a rank's next() calls, its wait for the other ranks in the "
             "gradient allreduce included. CPU: each rank's own process, not its workers. The node's "
             "threads: the ranks' intra-op threads plus one per worker.");
  if (note)
    /* untranslated: markup */
    g_string_append_printf (w->out, "<p class=\"muted\">%s</p>\n", note);
  g_string_append (w->out, "</section>\n");
}

static void
no_verdict (ls_report_writer *w)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<p>%s</p>\n",
                          _("No run has a stored summary (still running when exported, or failed before it "
                             "measured): no verdict."));
}

static void
verdict_machine (ls_report_writer *w, const ls_report_verdict *v)
{
  guint n_runs = json_array_get_length (v->summaries);
  /* untranslated: markup */
  g_string_append_printf (w->out, "<h3>%s ",
                          _("On"));
  put (w, v->machine->hostname);
  /* untranslated: markup */
  g_string_append (w->out, " <span class=\"muted\">(");
  put (w, v->machine->platform);
  g_string_append_printf (w->out, ngettext (", %u run)</span></h3>\n", ", %u runs)</span></h3>\n", n_runs), n_runs);
}

static void
recommendation (ls_report_writer *w, const char *text, const char *which)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<p><strong>%s</strong> ",
                          _("Recommendation:"));
  put_sentence (w, text);
  if (which)
    {
      /* untranslated: markup */
      g_string_append (w->out, " <span class=\"muted\">");
      put (w, which);
      g_string_append (w->out, "</span>");
    }
  g_string_append (w->out, "</p>\n");
}

static void
code (ls_report_writer *w, const char *text)
{
  /* untranslated: markup */
  g_string_append (w->out, "<pre class=\"dataloader\"><code>");
  put_sentence (w, text);
  g_string_append (w->out, "</code></pre>\n");
}

static void
headline (ls_report_writer *w, const char *text)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<p class=\"headline\">%s ",
                          _("Verdict:"));
  put_sentence (w, text);
  g_string_append (w->out, "</p>\n");
}

static void
suggested (ls_report_writer *w, const char *text)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<p>%s</p>\n",
                          _("With the knobs the findings name:"));
  code (w, text);
}

static void
ranks_run (ls_report_writer *w, const ls_ranks_table *t)
{
  guint n = ls_ranks_table_n_rows (t);
  g_autofree char *heading
      = g_strdup_printf (ngettext ("Run %lld: %u rank", "Run %lld: %u ranks", n), (long long) t->run_id, n);
  g_string_append (w->out, "<h3>");
  put (w, heading);
  g_string_append (w->out, "</h3>\n");
}

static gboolean
chart (ls_report_writer *w, guint i, GError **error)
{
  ls_chart *chart = w->report->charts->pdata[i];
  /* untranslated: markup */
  g_string_append (w->out, "<figure role=\"img\" aria-label=\"");
  put_sentence (w, chart->title);
  /* untranslated: markup */
  g_string_append (w->out, "\">\n<div class=\"chart-light\">");
  g_autofree char *light = g_strdup_printf ("c%u-", i);
  g_autofree char *dark = g_strdup_printf ("c%ud-", i);
  if (!put_svg (w->out, chart, light, NULL, FALSE, error))
    return FALSE;
  /* untranslated: markup */
  g_string_append (w->out, "</div>\n<div class=\"chart-dark\">");
  if (!put_svg (w->out, chart, dark, light, TRUE, error))
    return FALSE;
  g_string_append (w->out, "</div>\n</figure>\n");
  return TRUE;
}

static void
same_knob (ls_report_writer *w, const char *label, const char *value, gboolean first)
{
  /* untranslated: markup */
  g_string_append (w->out, "<li><span class=\"k\">");
  put (w, label);
  g_string_append (w->out, "</span> ");
  put (w, value);
  g_string_append (w->out, "</li>\n");
}

static void
head_cell (ls_report_writer *w, const char *text, gboolean numeric)
{
  /* untranslated: markup */
  g_string_append (w->out, numeric ? "<th class=\"n\">" : "<th>");
  put (w, text);
  g_string_append (w->out, "</th>");
}

static void
head_cell_differs (ls_report_writer *w, const char *text)
{
  /* untranslated: markup */
  g_string_append (w->out, "<th class=\"differs\" title=\"");
  put (w, _("differs between the runs"));
  g_string_append (w->out, "\">");
  put (w, text);
  g_string_append (w->out, "</th>");
}

static void
runs_head_end (ls_report_writer *w)
{
  g_string_append (w->out, "</tr></thead><tbody>\n");
}

/* The fixed tables: a heading over some, the columns (numeric: a bit per
 * column, right-aligned). */
static const struct {
  const char *heading;
  guint numeric;
  const char *columns[11];
} tables[] = {
  [LS_REPORT_TABLE_START_GROUPS] = { N_("Worker start-up by platform and start method"), 0x3e,
                                     { N_("platform, start"), N_("runs"), N_("worker starts"), N_("start-up p50 (ms)"),
                                       N_("start-up max (ms)"), N_("first batch p50 (ms)") } },
  [LS_REPORT_TABLE_SAME_KNOBS] = { N_("Throughput and memory at the same knobs"), 0x38,
                                   { N_("knobs"), N_("machine"), N_("start"), N_("runs"), N_("throughput (samples/s)"),
                                     N_("peak memory (MB)") } },
  [LS_REPORT_TABLE_RANKS] = { NULL, 0x7f,
                              { N_("rank"), N_("throughput (samples/s)"), N_("batch wait p50 (ms)"), N_("step p50 (ms)"),
                                N_("workers"), N_("threads"), N_("CPU (s)") } },
  [LS_REPORT_TABLE_MACHINES] = { NULL, 0x230,
                                 { N_("host"), N_("OS"), N_("kernel"), N_("CPU"), N_("cores"), N_("memory (GB)"), N_("GPU"),
                                   N_("driver"), N_("CUDA"), N_("runs") } },
  [LS_REPORT_TABLE_SCRIPTS] = { NULL, 0, { N_("script"), N_("SHA-256"), N_("Python"), N_("torch") } },
};

static void
table_start (ls_report_writer *w, ls_report_table table)
{
  if (tables[table].heading)
    /* untranslated: markup */
    g_string_append_printf (w->out, "<h3>%s</h3>\n", _(tables[table].heading));
  /* untranslated: markup */
  g_string_append (w->out, "<div class=\"table-wrap\"><table><thead><tr>");
  for (guint c = 0; c < G_N_ELEMENTS (tables[table].columns) && tables[table].columns[c]; c++)
    head_cell (w, _(tables[table].columns[c]), tables[table].numeric & (1u << c));
  g_string_append (w->out, "</tr></thead><tbody>\n");
}

static void
table_end (ls_report_writer *w, ls_report_table table)
{
  if (table == LS_REPORT_TABLE_SAME_KNOBS)
    /* untranslated: markup */
    g_string_append_printf (w->out, "</tbody></table>\n<p class=\"muted\">%s</p></div>\n",
                            _("Peak memory: PSS of the runner and its workers; private bytes on Windows."));
  else
    g_string_append (w->out, "</tbody></table></div>\n");
}

static void
run_row_start (ls_report_writer *w, gint64 id, gboolean recommended)
{
  /* untranslated: markup */
  g_string_append_printf (w->out, "<tr%s><td class=\"n\" data-v=\"%" G_GINT64_FORMAT "\">%" G_GINT64_FORMAT "%s</td>",
                          recommended ? " class=\"recommended\"" : "", id, id, recommended ? " ★" : "");
}

static void
rank_row_start (ls_report_writer *w, int rank, gboolean slowest)
{
  if (rank < 0)
    {
      /* untranslated: markup */
      g_string_append_printf (w->out, "<tr class=\"node\"><td>%s</td>", _("node"));
      return;
    }
  /* untranslated: markup */
  g_string_append_printf (w->out, "<tr%s><td class=\"n\">%d", slowest ? " class=\"slowest\"" : "", rank);
  if (slowest)
    {
      /* untranslated: markup */
      g_string_append (w->out, " <span class=\"tag\">");
      put (w, _("slowest"));
      g_string_append (w->out, "</span>");
    }
  g_string_append (w->out, "</td>");
}

static void
cell (ls_report_writer *w, const char *text, ls_report_cell_kind kind, const char *aside)
{
  g_string_append (w->out, kind == LS_REPORT_CELL_CODE ? "<td><code>" : "<td>");
  put (w, text);
  if (kind == LS_REPORT_CELL_CONTAINER)
    {
      /* untranslated: markup */
      g_string_append (w->out, " <span class=\"tag\">");
      g_autofree char *tag = g_strdup_printf (_("in a container: %s"), aside);
      put (w, tag);
      g_string_append (w->out, "</span>");
    }
  else if (kind == LS_REPORT_CELL_WINE)
    /* untranslated: markup */
    g_string_append_printf (w->out, " <span class=\"tag\">%s</span>",
                            _("Wine: its timings are not Windows'"));
  else if (kind == LS_REPORT_CELL_ARCH || kind == LS_REPORT_CELL_PLATFORM)
    {
      /* untranslated: markup */
      g_string_append (w->out, " <span class=\"muted\">");
      put (w, aside);
      g_string_append (w->out, "</span>");
    }
  g_string_append (w->out, kind == LS_REPORT_CELL_CODE ? "</code></td>" : "</td>");
}

static void
cell_spanning (ls_report_writer *w, const char *text, guint rows, gboolean first)
{
  if (!first)
    return;
  /* untranslated: markup */
  g_string_append_printf (w->out, "<td rowspan=\"%u\">", rows);
  put (w, text);
  g_string_append (w->out, "</td>");
}

static void
cell_number (ls_report_writer *w, double v, int decimals, gboolean sortable)
{
  if (!isfinite (v))
    /* untranslated: markup */
    g_string_append (w->out, "<td class=\"n\">-</td>");
  else if (sortable)
    /* untranslated: markup */
    g_string_append_printf (w->out, "<td class=\"n\" data-v=\"%.6g\">%.*f</td>", v, decimals, v);
  else
    /* untranslated: markup */
    g_string_append_printf (w->out, "<td class=\"n\">%.*f</td>", decimals, v);
}

static void
cell_status (ls_report_writer *w, const char *status, const char *why, gboolean simulated)
{
  g_autofree char *status_class = ls_report_html_escape (status, 32);
  /* untranslated: markup */
  g_string_append_printf (w->out, "<td class=\"status-%s\"", status_class);
  if (why)
    {
      g_string_append (w->out, " title=\"");
      put_sentence (w, why);
      g_string_append (w->out, "\"");
    }
  g_string_append (w->out, ">");
  put (w, status);
  if (simulated)
    /* untranslated: markup */
    g_string_append_printf (w->out, " <span class=\"tag\">%s</span>",
                            _("SIMULATED GPU"));
  g_string_append (w->out, "</td>");
}

static void
cell_differs (ls_report_writer *w, const char *text, const double *value)
{
  if (value)
    /* untranslated: markup */
    g_string_append_printf (w->out, "<td class=\"differs n\" data-v=\"%.6g\">", *value);
  else
    /* untranslated: markup */
    g_string_append (w->out, "<td class=\"differs\">");
  put (w, text);
  g_string_append (w->out, "</td>");
}

static const ls_report_markup html = {
  .escape = ls_report_html_escape,
  .list_start = { [LS_REPORT_LIST_FINDINGS] = "<ul class=\"findings\">\n", [LS_REPORT_LIST_WARNINGS] = "<ul class=\"warn\">\n",
                  [LS_REPORT_LIST_DIFFERENCES] = "<ul class=\"differences\">\n",
                  [LS_REPORT_LIST_DATASETS] = "<ul class=\"datasets\">\n", [LS_REPORT_LIST_NOTES] = "<ul>\n" },
  .list_end = "</ul>\n", .item_start = "<li>", .item_end = "</li>\n", .paragraph_start = "<p>", .paragraph_end = "</p>\n",
  .same_knobs_end = "</ul>\n", .runs_head_start = "<div class=\"table-wrap\"><table class=\"sortable runs\"><thead><tr>",
  .row_start = "<tr>", .row_end = "</tr>\n",
  LS_REPORT_HOOKS,
};

/* ------------------------------------------------------------ the page */

static void
put_head (ls_report_writer *w)
{
  GString *out = w->out;
  const ls_report *report = w->report;
  /* TRANSLATORS: the report's language, as HTML's lang attribute wants it (zh-CN) */
  const char *lang = _("en");
  /* untranslated: markup */
  g_string_append_printf (out, "<!DOCTYPE html>\n<html lang=\"%s\">\n", lang);
  /* untranslated: markup */
  g_string_append (out, "<head>\n<meta charset=\"utf-8\">\n"
                        /* No request of any kind: the page is the whole report. */
                        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                        "style-src 'unsafe-inline'; img-src data:; script-src 'unsafe-inline'; base-uri 'none'; "
                        "form-action 'none'\">\n"
                        "<meta name=\"referrer\" content=\"no-referrer\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<meta name=\"color-scheme\" content=\"light dark\">\n"
                        "<meta name=\"generator\" content=\"Loadscope " LS_VERSION "\">\n<title>");
  g_autofree char *title = g_strdup_printf (_("Loadscope report: %s"), report->title);
  put (w, title);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header>\n<h1>", css);
  put (w, title);
  g_autofree char *n_runs = g_strdup_printf (ngettext ("%u run", "%u runs", report->runs->len), report->runs->len);
  g_autofree char *n_machines
      = g_strdup_printf (ngettext ("%u machine", "%u machines", report->machines->len), report->machines->len);
  g_autofree char *meta = g_strdup_printf (_("%s on %s"), n_runs, n_machines);
  g_string_append (out, "</h1>\n<p class=\"meta\">");
  put (w, meta);
  g_string_append (out, " · ");
  put (w, report->generated_at);
  g_autofree char *store = g_strdup_printf (_(" · Loadscope %s · store "), LS_VERSION);
  put (w, store);
  g_string_append (out, "<code>");
  put_sentence (w, report->store_path);
  g_string_append (out, "</code></p>\n</header>\n");
  if (report->simulated)
    {
      g_string_append (out, "<p class=\"sim\">");
      put_sentence (w, ls_chart_simulated_note ());
      g_string_append (out, " ");
      put_sentence (w, ls_report_all_simulated (report) ? _("Every run here used it.")
                                                        : _("Runs marked SIMULATED GPU in the table."));
      g_string_append (out, "</p>\n");
    }
}

GString *
ls_report_html (const ls_report *report, GError **error)
{
  ls_report_writer w = { .out = g_string_sized_new (256 * 1024), .format = &html, .report = report };
  put_head (&w);
  if (!ls_report_walk (&w, error))
    {
      g_string_free (w.out, TRUE);
      return NULL;
    }
  /* untranslated: markup */
  g_string_append (w.out, "<footer class=\"muted\"><p>");
  g_autofree char *made = g_strdup_printf (_("Made by Loadscope %s on %s. This page makes no network request; it reads "
                                             "without JavaScript."),
                                           LS_VERSION, report->generated_at);
  put_sentence (&w, made);
  g_string_append (w.out, "</p></footer>\n</main>\n<script>");
  g_string_append (w.out, sort_js);
  g_string_append (w.out, "</script>\n</body>\n</html>\n");
  return w.out;
}
