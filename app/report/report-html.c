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
#include "app/store/store-query.h"

/* The charts' size in the page (CSS scales them to the column). */
#define CHART_W 1040
#define CHART_H 580
/* A sentence made by Loadscope may quote a stored name: cut, not dropped. */
#define SENTENCE_MAX 2000

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

static void
put (GString *out, const char *text, gsize max)
{
  g_autofree char *e = ls_report_html_escape (text, max);
  g_string_append (out, e);
}

static void
put_sentence (GString *out, const char *text)
{
  put (out, text, SENTENCE_MAX);
}

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

static void
put_verdict (GString *out, const ls_report *report, const ls_report_verdict *v)
{
  const ls_verdict *verdict = &v->verdict;
  if (report->verdicts->len > 1)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<h3>%s ",
                              _("On"));
      put (out, v->machine->hostname, LS_REPORT_TEXT_MAX);
      /* untranslated: markup */
      g_string_append (out, " <span class=\"muted\">(");
      put (out, v->machine->platform, LS_REPORT_TEXT_MAX);
      g_string_append_printf (out, ngettext (", %u run)</span></h3>\n", ", %u runs)</span></h3>\n",
                                             json_array_get_length (v->summaries)),
                              json_array_get_length (v->summaries));
    }
  if (verdict->recommendation)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<p><strong>%s</strong> ",
                              _("Recommendation:"));
      put_sentence (out, verdict->recommendation);
      if (verdict->index >= 0)
        {
          guint r = g_array_index (v->run_index, guint, (guint) verdict->index);
          /* the same words as the Markdown report's */
          g_autofree char *which
              = g_strdup_printf (_(" (run %lld, ★ in the table)"),
                                 (long long) json_object_get_int_member_with_default (report->runs->pdata[r], "id", 0));
          /* untranslated: markup */
          g_string_append (out, " <span class=\"muted\">");
          put (out, which, LS_REPORT_TEXT_MAX);
          g_string_append (out, "</span>");
        }
      g_string_append (out, "</p>\n");
    }
  if (verdict->dataloader)
    {
      /* untranslated: markup */
      g_string_append (out, "<pre class=\"dataloader\"><code>");
      put_sentence (out, verdict->dataloader);
      g_string_append (out, "</code></pre>\n");
    }
  /* untranslated: markup */
  g_string_append_printf (out, "<p class=\"headline\">%s ",
                          _("Verdict:"));
  put_sentence (out, verdict->headline ? verdict->headline : _("none"));
  g_string_append (out, "</p>\n");
  if (verdict->findings->len)
    {
      /* untranslated: markup */
      g_string_append (out, "<ul class=\"findings\">\n");
      for (guint i = 0; i < verdict->findings->len; i++)
        {
          g_string_append (out, "<li>");
          put_sentence (out, verdict->findings->pdata[i]);
          g_string_append (out, "</li>\n");
        }
      g_string_append (out, "</ul>\n");
    }
  if (verdict->warnings->len)
    {
      /* untranslated: markup */
      g_string_append (out, "<ul class=\"warn\">\n");
      for (guint i = 0; i < verdict->warnings->len; i++)
        {
          g_string_append (out, "<li>⚠ ");
          put_sentence (out, verdict->warnings->pdata[i]);
          g_string_append (out, "</li>\n");
        }
      g_string_append (out, "</ul>\n");
    }
  if (verdict->suggested)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<p>%s</p>\n<pre class=\"dataloader\"><code>",
                              _("With the knobs the findings name:"));
      put_sentence (out, verdict->suggested);
      g_string_append (out, "</code></pre>\n");
    }
}

static void
put_number_cell (GString *out, double v, int decimals, const char *unit_suffix)
{
  if (!isfinite (v))
    /* untranslated: markup */
    g_string_append (out, "<td class=\"n\">-</td>");
  else
    /* untranslated: markup */
    g_string_append_printf (out, "<td class=\"n\" data-v=\"%.6g\">%.*f%s</td>", v, decimals, v, unit_suffix);
}

static void
put_side_by_side (GString *out, const ls_report *report)
{
  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"side-by-side\">\n<h2>%s</h2>\n<ul class=\"differences\">\n",
                          _("Machines side by side"));
  for (guint i = 0; i < report->differences->len; i++)
    {
      g_string_append (out, "<li>");
      put_sentence (out, report->differences->pdata[i]);
      g_string_append (out, "</li>\n");
    }
  g_string_append (out, "</ul>\n");
  if (report->start_groups->len)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<h3>%s</h3>\n<div class=\"table-wrap\"><table><thead><tr><th>%s</th><th class=\"n\">"
                                   "%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th>"
                                   "<th class=\"n\">%s</th></tr></thead><tbody>\n",
                              _("Worker start-up by platform and start method"),
                              _("platform, start"),
                              _("runs"),
                              _("worker starts"),
                              _("start-up p50 (ms)"),
                              _("start-up max (ms)"),
                              _("first batch p50 (ms)"));
      for (guint i = 0; i < report->start_groups->len; i++)
        {
          const ls_report_start_group *g = report->start_groups->pdata[i];
          g_string_append (out, "<tr><td>");
          put (out, g->label, LS_REPORT_TEXT_MAX);
          /* untranslated: markup */
          g_string_append_printf (out, "</td><td class=\"n\">%u</td><td class=\"n\">%u</td>", g->n_runs,
                                  g->n_workers);
          put_number_cell (out, g->startup_p50_ms, 1, "");
          put_number_cell (out, g->startup_max_ms, 1, "");
          put_number_cell (out, g->first_batch_p50_ms, 1, "");
          g_string_append (out, "</tr>\n");
        }
      g_string_append (out, "</tbody></table></div>\n");
    }
  if (report->same_knobs->len)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<h3>%s</h3>\n<div class=\"table-wrap\"><table><thead><tr><th>%s</th><th>%s</th><th>"
                                   "%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th></tr>"
                                   "</thead><tbody>\n",
                              _("Throughput and memory at the same knobs"),
                              _("knobs"),
                              _("machine"),
                              _("start"),
                              _("runs"),
                              _("throughput (samples/s)"),
                              _("peak memory (MB)"));
      for (guint i = 0; i < report->same_knobs->len; i++)
        {
          const ls_report_same_knobs *same = report->same_knobs->pdata[i];
          for (guint c = 0; c < same->cells->len; c++)
            {
              const ls_report_cell *cell = same->cells->pdata[c];
              g_string_append (out, "<tr>");
              if (c == 0)
                {
                  /* untranslated: markup */
                  g_string_append_printf (out, "<td rowspan=\"%u\">", same->cells->len);
                  put (out, same->knobs, LS_REPORT_TEXT_MAX);
                  g_string_append (out, "</td>");
                }
              g_string_append (out, "<td>");
              put (out, cell->machine->hostname, LS_REPORT_TEXT_MAX);
              /* untranslated: markup */
              g_string_append (out, " <span class=\"muted\">");
              put (out, cell->machine->platform, LS_REPORT_TEXT_MAX);
              g_string_append (out, "</span></td><td>");
              put (out, cell->start, LS_REPORT_TEXT_MAX);
              /* untranslated: markup */
              g_string_append_printf (out, "</td><td class=\"n\">%u</td>", cell->n_runs);
              put_number_cell (out, cell->throughput_sps, 0, "");
              put_number_cell (out, cell->memory_bytes / 1e6, 1, "");
              g_string_append (out, "</tr>\n");
            }
        }
      /* untranslated: markup */
      g_string_append_printf (out, "</tbody></table>\n<p class=\"muted\">%s</p></div>\n",
                              _("Peak memory: PSS of the runner and its workers; private bytes on Windows."));
    }
  g_string_append (out, "</section>\n");
}

static gboolean
put_charts (GString *out, const ls_report *report, GError **error)
{
  if (report->charts->len == 0)
    return TRUE;
  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"charts\">\n<h2>%s</h2>\n",
                          _("Charts"));
  for (guint i = 0; i < report->charts->len; i++)
    {
      ls_chart *chart = report->charts->pdata[i];
      /* untranslated: markup */
      g_string_append (out, "<figure role=\"img\" aria-label=\"");
      put (out, chart->title, SENTENCE_MAX);
      /* untranslated: markup */
      g_string_append (out, "\">\n<div class=\"chart-light\">");
      g_autofree char *light = g_strdup_printf ("c%u-", i);
      g_autofree char *dark = g_strdup_printf ("c%ud-", i);
      if (!put_svg (out, chart, light, NULL, FALSE, error))
        return FALSE;
      /* untranslated: markup */
      g_string_append (out, "</div>\n<div class=\"chart-dark\">");
      if (!put_svg (out, chart, dark, light, TRUE, error))
        return FALSE;
      g_string_append (out, "</div>\n</figure>\n");
    }
  g_string_append (out, "</section>\n");
  return TRUE;
}

static void
put_runs (GString *out, const ls_report *report)
{
  const ls_compare_table *table = report->table;
  guint n_runs = report->runs->len;
  gboolean all_simulated = ls_report_all_simulated (report);
  g_autofree char *runs_heading = g_strdup_printf (_("The runs (%u)"), n_runs);
  /* untranslated: markup */
  g_string_append (out, "<section id=\"runs\">\n<h2>");
  put (out, runs_heading, LS_REPORT_TEXT_MAX);
  g_string_append (out, "</h2>\n");
  /* The knobs every run shares, once; the table holds the ones that differ. */
  /* untranslated: markup */
  g_string_append_printf (out, "<p>%s</p>\n<ul class=\"same\">\n",
                          _("Same in every run:"));
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind != LS_COMPARE_KNOB || row->differs)
        continue;
      /* untranslated: markup */
      g_string_append (out, "<li><span class=\"k\">");
      put (out, row->label, LS_REPORT_TEXT_MAX);
      g_string_append (out, "</span> ");
      put (out, row->cells->pdata[0], LS_REPORT_TEXT_MAX);
      g_string_append (out, "</li>\n");
    }
  g_string_append (out, "</ul>\n");
  /* untranslated: markup */
  g_string_append_printf (out, "<div class=\"table-wrap\"><table class=\"sortable runs\"><thead><tr><th class=\"n\">"
                               "%s</th>",
                          _("run"));
  if (report->machines->len > 1)
    /* untranslated: markup */
    g_string_append_printf (out, "<th>%s</th>",
                            _("machine"));
  /* untranslated: markup */
  g_string_append_printf (out, "<th>%s</th>",
                          _("status"));
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind != LS_COMPARE_KNOB || !row->differs)
        continue;
      /* untranslated: markup */
      g_string_append (out, "<th class=\"differs\" title=\"");
      put (out, _("differs between the runs"), LS_REPORT_TEXT_MAX);
      g_string_append (out, "\">");
      put (out, row->label, LS_REPORT_TEXT_MAX);
      g_string_append (out, "</th>");
    }
  for (guint f = 0; f < ls_report_n_figures; f++)
    {
      g_autofree char *heading = ls_run_figure_heading (ls_report_figure (f));
      /* untranslated: markup */
      g_string_append (out, "<th class=\"n\">");
      put (out, heading, LS_REPORT_TEXT_MAX);
      g_string_append (out, "</th>");
      if (f == 3)
        /* untranslated: markup */
        g_string_append_printf (out, "<th class=\"n\">%s</th>",
                                _("peak memory (MB)"));
    }
  g_string_append (out, "</tr></thead><tbody>\n");
  for (guint r = 0; r < n_runs; r++)
    {
      JsonObject *run = report->runs->pdata[r];
      gint64 id = json_object_get_int_member_with_default (run, "id", 0);
      const char *status = json_object_get_string_member_with_default (run, "status", "?");
      gboolean recommended = ls_report_run_is_recommended (report, r);
      /* untranslated: markup */
      g_string_append_printf (out, "<tr%s><td class=\"n\" data-v=\"%" G_GINT64_FORMAT "\">%" G_GINT64_FORMAT "%s</td>",
                              recommended ? " class=\"recommended\"" : "", id, id, recommended ? " ★" : "");
      if (report->machines->len > 1)
        {
          const ls_report_machine *m = ls_report_machine_of (report, run);
          g_string_append (out, "<td>");
          put (out, m->hostname, LS_REPORT_TEXT_MAX);
          g_string_append (out, "</td>");
        }
      g_autofree char *status_class = ls_report_html_escape (status, 32);
      /* untranslated: markup */
      g_string_append_printf (out, "<td class=\"status-%s\"", status_class);
      const char *why = json_object_get_string_member_with_default (run, "error", NULL);
      if (why)
        {
          g_string_append (out, " title=\"");
          put_sentence (out, why);
          g_string_append (out, "\"");
        }
      g_string_append (out, ">");
      put (out, status, LS_REPORT_TEXT_MAX);
      /* When every run is simulated the banner says so once. */
      if (json_object_get_int_member_with_default (run, "simulated", 0) && !all_simulated)
        /* untranslated: markup */
        g_string_append_printf (out, " <span class=\"tag\">%s</span>",
                                _("SIMULATED GPU"));
      g_string_append (out, "</td>");
      for (guint i = 0; i < table->rows->len; i++)
        {
          const ls_compare_row *row = table->rows->pdata[i];
          if (row->kind != LS_COMPARE_KNOB || !row->differs)
            continue;
          double v;
          if (ls_json_number (run, row->column, &v))
            /* untranslated: markup */
            g_string_append_printf (out, "<td class=\"differs n\" data-v=\"%.6g\">", v);
          else
            /* untranslated: markup */
            g_string_append (out, "<td class=\"differs\">");
          put (out, row->cells->pdata[r], LS_REPORT_TEXT_MAX);
          g_string_append (out, "</td>");
        }
      for (guint f = 0; f < ls_report_n_figures; f++)
        {
          const ls_run_figure *fig = ls_report_figure (f);
          double v;
          put_number_cell (out, ls_json_number (run, fig->column, &v) ? v * fig->scale : NAN, fig->decimals,
                           "");
          if (f == 3)
            put_number_cell (out, ls_report_run_memory (run) / 1e6, 1, "");
        }
      g_string_append (out, "</tr>\n");
    }
  /* untranslated: markup */
  g_string_append_printf (out, "</tbody></table></div>\n<p class=\"muted\">%s</p>\n</section>\n",
                          _("Highlighted: the knobs that differ between the runs. ★ the recommended configuration. "
                             "Peak memory: PSS of the runner and its workers (private bytes on Windows). With "
                             "JavaScript, a click on a heading sorts the table."));
}

static void
put_machines (GString *out, const ls_report *report)
{
  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"machines\">\n<h2>%s</h2>\n<div class=\"table-wrap\"><table><thead><tr><th>"
                               "%s</th><th>%s</th><th>%s</th><th>%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th>"
                               "<th>%s</th><th>%s</th><th>%s</th><th class=\"n\">%s</th></tr></thead><tbody>\n",
                          _("Machines"),
                          _("host"),
                          _("OS"),
                          _("kernel"),
                          _("CPU"),
                          _("cores"),
                          _("memory (GB)"),
                          _("GPU"),
                          _("driver"),
                          _("CUDA"),
                          _("runs"));
  for (guint i = 0; i < report->machines->len; i++)
    {
      const ls_report_machine *m = report->machines->pdata[i];
      const char *cells[] = { m->hostname, m->os, m->kernel, m->cpu_model };
      g_string_append (out, "<tr>");
      for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
        {
          g_string_append (out, "<td>");
          put (out, cells[c], LS_REPORT_TEXT_MAX);
          if (c == 0 && m->container)
            {
              /* untranslated: markup */
              g_string_append (out, " <span class=\"tag\">");
              g_autofree char *tag = g_strdup_printf (_("in a container: %s"), m->container);
              put (out, tag, LS_REPORT_TEXT_MAX);
              g_string_append (out, "</span>");
            }
          if (c == 1 && m->wine)
            /* untranslated: markup */
            g_string_append_printf (out, " <span class=\"tag\">%s</span>",
                                    _("Wine: its timings are not Windows'"));
          if (c == 3 && m->arch)
            {
              /* untranslated: markup */
              g_string_append (out, " <span class=\"muted\">");
              put (out, m->arch, LS_REPORT_TEXT_MAX);
              g_string_append (out, "</span>");
            }
          g_string_append (out, "</td>");
        }
      /* untranslated: markup */
      g_string_append_printf (out, "<td class=\"n\">%" G_GINT64_FORMAT "</td><td class=\"n\">%.1f</td>", m->cores,
                              (double) m->ram_bytes / 1e9);
      const char *gpu_cells[] = { m->gpu ? m->gpu : "none seen", m->driver, m->cuda };
      for (guint c = 0; c < G_N_ELEMENTS (gpu_cells); c++)
        {
          g_string_append (out, "<td>");
          put (out, gpu_cells[c], LS_REPORT_TEXT_MAX);
          g_string_append (out, "</td>");
        }
      /* untranslated: markup */
      g_string_append_printf (out, "<td class=\"n\">%u</td></tr>\n", m->n_runs);
    }
  g_string_append (out, "</tbody></table></div>\n</section>\n");
}

static void
put_data (GString *out, const ls_report *report)
{
  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"data\">\n<h2>%s</h2>\n",
                          _("Data"));
  if (report->datasets->len)
    {
      /* untranslated: markup */
      g_string_append (out, "<ul class=\"datasets\">\n");
      for (guint i = 0; i < report->datasets->len; i++)
        {
          g_string_append (out, "<li>");
          put (out, report->datasets->pdata[i], LS_REPORT_TEXT_MAX);
          g_string_append (out, "</li>\n");
        }
      g_string_append (out, "</ul>\n");
    }
  if (report->scripts->len)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<div class=\"table-wrap\"><table><thead><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th>"
                                   "</tr></thead><tbody>\n",
                              _("script"),
                              _("SHA-256"),
                              _("Python"),
                              _("torch"));
      for (guint i = 0; i < report->scripts->len; i++)
        {
          const ls_report_script *s = report->scripts->pdata[i];
          const char *cells[] = { s->name, s->sha256, s->python, s->torch };
          g_string_append (out, "<tr>");
          for (guint c = 0; c < G_N_ELEMENTS (cells); c++)
            {
              g_string_append (out, c == 1 ? "<td><code>" : "<td>");
              put (out, cells[c], LS_REPORT_TEXT_MAX);
              g_string_append (out, c == 1 ? "</code></td>" : "</td>");
            }
          g_string_append (out, "</tr>\n");
        }
      g_string_append (out, "</tbody></table></div>\n");
    }
  g_string_append (out, "</section>\n");
}

static void
put_rank_row (GString *out, const ls_rank_row *r)
{
  if (r->rank >= 0)
    {
      /* untranslated: markup */
      g_string_append_printf (out, "<tr%s><td class=\"n\">%d", r->slowest ? " class=\"slowest\"" : "", r->rank);
      if (r->slowest)
        {
          /* untranslated: markup */
          g_string_append (out, " <span class=\"tag\">");
          put (out, _("slowest"), LS_REPORT_TEXT_MAX);
          g_string_append (out, "</span>");
        }
      g_string_append (out, "</td>");
    }
  else
    /* untranslated: markup */
    g_string_append_printf (out, "<tr class=\"node\"><td>%s</td>", _("node"));
  put_number_cell (out, r->throughput_sps, 1, "");
  put_number_cell (out, r->wait_ms_p50, 2, "");
  put_number_cell (out, r->step_ms_p50, 2, "");
  put_number_cell (out, r->workers >= 0 ? (double) r->workers : NAN, 0, "");
  put_number_cell (out, r->threads >= 0 ? (double) r->threads : NAN, 0, "");
  put_number_cell (out, r->cpu_ms / 1000.0, 1, "");
  g_string_append (out, "</tr>\n");
}

/* Each run with ranks: a row per rank, the slowest marked, the node's totals. */
static void
put_ranks (GString *out, const ls_report *report)
{
  if (report->ranks->len == 0)
    return;
  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"ranks\">\n<h2>%s</h2>\n",
                          _("Ranks"));
  for (guint i = 0; i < report->ranks->len; i++)
    {
      const ls_ranks_table *t = report->ranks->pdata[i];
      g_autofree char *heading = g_strdup_printf (
          ngettext ("Run %lld: %u rank", "Run %lld: %u ranks", ls_ranks_table_n_rows (t)), (long long) t->run_id,
          ls_ranks_table_n_rows (t));
      g_string_append (out, "<h3>");
      put (out, heading, LS_REPORT_TEXT_MAX);
      g_string_append (out, "</h3>\n");
      if (t->slowest >= 0)
        {
          /* the same sentence as the window's ranks view (ui/ls-ranks-view.c) */
          g_autofree char *said
              = g_strdup_printf (_("Rank %d is the slowest (%s): its median batch wait %.1f ms against the others' "
                                   "%.1f ms. DDP waits for it at every step."),
                                 ls_ranks_table_row (t, (guint) t->slowest)->rank, _(t->slowest_stage),
                                 t->slowest_wait_ms, t->others_wait_ms);
          g_string_append (out, "<p>");
          put (out, said, SENTENCE_MAX);
          g_string_append (out, "</p>\n");
        }
      /* untranslated: markup */
      g_string_append_printf (out, "<div class=\"table-wrap\"><table><thead><tr><th class=\"n\">%s</th><th class=\"n\">"
                                   "%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th><th class=\"n\">%s</th>"
                                   "<th class=\"n\">%s</th><th class=\"n\">%s</th></tr></thead><tbody>\n",
                              _("rank"),
                              _("throughput (samples/s)"),
                              _("batch wait p50 (ms)"),
                              _("step p50 (ms)"),
                              _("workers"),
                              _("threads"),
                              _("CPU (s)"));
      for (guint r = 0; r < ls_ranks_table_n_rows (t); r++)
        put_rank_row (out, ls_ranks_table_row (t, r));
      put_rank_row (out, &t->node);
      g_string_append (out, "</tbody></table></div>\n");
    }
  /* untranslated: markup */
  g_string_append_printf (out, "<p class=\"muted\">%s</p>\n</section>\n",
                          _("Step: the time between a rank's next() calls, its wait for the other ranks in the "
                             "gradient allreduce included. CPU: each rank's own process, not its workers. The node's "
                             "threads: the ranks' intra-op threads plus one per worker."));
}

GString *
ls_report_html (const ls_report *report, GError **error)
{
  GString *out = g_string_sized_new (256 * 1024);
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
  put (out, title, LS_REPORT_TEXT_MAX);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header>\n<h1>", css);
  put (out, title, LS_REPORT_TEXT_MAX);
  g_autofree char *n_runs = g_strdup_printf (ngettext ("%u run", "%u runs", report->runs->len), report->runs->len);
  g_autofree char *n_machines
      = g_strdup_printf (ngettext ("%u machine", "%u machines", report->machines->len), report->machines->len);
  g_autofree char *meta = g_strdup_printf (_("%s on %s"), n_runs, n_machines);
  g_string_append (out, "</h1>\n<p class=\"meta\">");
  put (out, meta, LS_REPORT_TEXT_MAX);
  g_string_append (out, " · ");
  put (out, report->generated_at, LS_REPORT_TEXT_MAX);
  g_autofree char *store = g_strdup_printf (_(" · Loadscope %s · store "), LS_VERSION);
  put (out, store, LS_REPORT_TEXT_MAX);
  g_string_append (out, "<code>");
  put (out, report->store_path, SENTENCE_MAX);
  g_string_append (out, "</code></p>\n</header>\n");
  if (report->simulated)
    {
      g_string_append (out, "<p class=\"sim\">");
      put (out, ls_chart_simulated_note (), SENTENCE_MAX);
      g_string_append (out, " ");
      put (out, ls_report_all_simulated (report) ? _("Every run here used it.") : _("Runs marked SIMULATED GPU in the table."),
           SENTENCE_MAX);
      g_string_append (out, "</p>\n");
    }

  /* untranslated: markup */
  g_string_append_printf (out, "<section id=\"answer\">\n<h2>%s</h2>\n",
                          _("Recommendation and verdict"));
  if (report->verdicts->len == 0)
    /* untranslated: markup */
    g_string_append_printf (out, "<p>%s</p>\n",
                            _("No run has a stored summary (still running when exported, or failed before it "
                               "measured): no verdict."));
  for (guint i = 0; i < report->verdicts->len; i++)
    put_verdict (out, report, report->verdicts->pdata[i]);
  g_string_append (out, "</section>\n");

  if (report->machines->len > 1)
    put_side_by_side (out, report);
  if (!put_charts (out, report, error))
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
      /* untranslated: markup */
      g_string_append_printf (out, "<section id=\"notes\">\n<h2>%s</h2>\n<ul>\n",
                              _("Notes"));
      for (guint i = 0; i < report->notes->len; i++)
        {
          g_string_append (out, "<li>");
          put_sentence (out, report->notes->pdata[i]);
          g_string_append (out, "</li>\n");
        }
      g_string_append (out, "</ul>\n</section>\n");
    }
  /* untranslated: markup */
  g_string_append (out, "<footer class=\"muted\"><p>");
  g_autofree char *made = g_strdup_printf (_("Made by Loadscope %s on %s. This page makes no network request; it reads "
                                             "without JavaScript."),
                                           LS_VERSION, report->generated_at);
  put (out, made, SENTENCE_MAX);
  g_string_append (out, "</p></footer>\n</main>\n<script>");
  g_string_append (out, sort_js);
  g_string_append (out, "</script>\n</body>\n</html>\n");
  return out;
}
