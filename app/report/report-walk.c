/* The report's sections in order, once for both formats: which verdicts,
 * tables, rows, cells, charts and lists are shown, from which figures and
 * with which shared words. How each piece reads (markup, escaping, the
 * words of a format's own) is the format's (report-writer.h). */
#include "app/report/report-writer.h"

#include <math.h>

#include "app/core/i18n.h"

void
ls_report_put (ls_report_writer *w, const char *text, gsize max_chars)
{
  g_autofree char *e = w->format->escape (text, max_chars);
  g_string_append (w->out, e);
}

/* A piece of a format's fixed markup, where it has one. */
static void
put_markup (ls_report_writer *w, const char *markup)
{
  if (markup)
    g_string_append (w->out, markup);
}

static void
walk_list (ls_report_writer *w, ls_report_list list, GPtrArray *items, gsize max_chars)
{
  if (items->len == 0)
    return;
  const ls_report_markup *f = w->format;
  put_markup (w, f->list_start[list]);
  for (guint i = 0; i < items->len; i++)
    {
      put_markup (w, f->item_start);
      if (list == LS_REPORT_LIST_WARNINGS)
        g_string_append (w->out, "⚠ ");
      ls_report_put (w, items->pdata[i], max_chars);
      put_markup (w, f->item_end);
    }
  put_markup (w, f->list_end);
}

static void
walk_verdict (ls_report_writer *w, const ls_report_verdict *v)
{
  const ls_report_markup *f = w->format;
  const ls_verdict *verdict = &v->verdict;
  if (w->report->verdicts->len > 1)
    f->verdict_machine (w, v);
  if (verdict->recommendation)
    {
      g_autofree char *which = NULL;
      if (verdict->index >= 0)
        {
          guint r = g_array_index (v->run_index, guint, (guint) verdict->index);
          JsonObject *run = w->report->runs->pdata[r];
          which = g_strdup_printf (_(" (run %lld, ★ in the table)"),
                                   (long long) json_object_get_int_member_with_default (run, "id", 0));
        }
      f->recommendation (w, verdict->recommendation, which);
    }
  if (verdict->dataloader)
    f->code (w, verdict->dataloader);
  f->headline (w, verdict->headline ? verdict->headline : _("none"));
  walk_list (w, LS_REPORT_LIST_FINDINGS, verdict->findings, LS_REPORT_SENTENCE_MAX);
  walk_list (w, LS_REPORT_LIST_WARNINGS, verdict->warnings, LS_REPORT_SENTENCE_MAX);
  if (verdict->suggested)
    f->suggested (w, verdict->suggested);
  put_markup (w, f->verdict_end);
}

static void
walk_answer (ls_report_writer *w)
{
  const ls_report *report = w->report;
  w->format->section_start (w, LS_REPORT_ANSWER);
  if (report->verdicts->len == 0)
    w->format->no_verdict (w);
  for (guint i = 0; i < report->verdicts->len; i++)
    walk_verdict (w, report->verdicts->pdata[i]);
  w->format->section_end (w, LS_REPORT_ANSWER);
}

static void
walk_start_groups (ls_report_writer *w)
{
  const ls_report_markup *f = w->format;
  GPtrArray *groups = w->report->start_groups;
  f->table_start (w, LS_REPORT_TABLE_START_GROUPS);
  for (guint i = 0; i < groups->len; i++)
    {
      const ls_report_start_group *g = groups->pdata[i];
      put_markup (w, f->row_start);
      f->cell (w, g->label, LS_REPORT_CELL_PLAIN, NULL);
      f->cell_number (w, g->n_runs, 0, FALSE);
      f->cell_number (w, g->n_workers, 0, FALSE);
      f->cell_number (w, g->startup_p50_ms, 1, TRUE);
      f->cell_number (w, g->startup_max_ms, 1, TRUE);
      f->cell_number (w, g->first_batch_p50_ms, 1, TRUE);
      put_markup (w, f->row_end);
    }
  f->table_end (w, LS_REPORT_TABLE_START_GROUPS);
}

static void
walk_same_knobs (ls_report_writer *w)
{
  const ls_report_markup *f = w->format;
  GPtrArray *same_knobs = w->report->same_knobs;
  f->table_start (w, LS_REPORT_TABLE_SAME_KNOBS);
  for (guint i = 0; i < same_knobs->len; i++)
    {
      const ls_report_same_knobs *same = same_knobs->pdata[i];
      for (guint c = 0; c < same->cells->len; c++)
        {
          const ls_report_cell *cell = same->cells->pdata[c];
          put_markup (w, f->row_start);
          f->cell_spanning (w, same->knobs, same->cells->len, c == 0);
          f->cell (w, cell->machine->hostname, LS_REPORT_CELL_PLATFORM, cell->machine->platform);
          f->cell (w, cell->start, LS_REPORT_CELL_PLAIN, NULL);
          f->cell_number (w, cell->n_runs, 0, FALSE);
          f->cell_number (w, cell->throughput_sps, 0, TRUE);
          f->cell_number (w, cell->memory_bytes / 1e6, 1, TRUE);
          put_markup (w, f->row_end);
        }
    }
  f->table_end (w, LS_REPORT_TABLE_SAME_KNOBS);
}

static void
walk_side_by_side (ls_report_writer *w)
{
  const ls_report *report = w->report;
  w->format->section_start (w, LS_REPORT_SIDE_BY_SIDE);
  walk_list (w, LS_REPORT_LIST_DIFFERENCES, report->differences, LS_REPORT_SENTENCE_MAX);
  if (report->start_groups->len)
    walk_start_groups (w);
  if (report->same_knobs->len)
    walk_same_knobs (w);
  w->format->section_end (w, LS_REPORT_SIDE_BY_SIDE);
}

static gboolean
walk_charts (ls_report_writer *w, GError **error)
{
  if (w->report->charts->len == 0)
    return TRUE;
  w->format->section_start (w, LS_REPORT_CHARTS);
  for (guint i = 0; i < w->report->charts->len; i++)
    if (!w->format->chart (w, i, error))
      return FALSE;
  w->format->section_end (w, LS_REPORT_CHARTS);
  return TRUE;
}

/* The knobs that differ between the runs: the table's columns. */
static gboolean
differs (const ls_compare_row *row)
{
  return row->kind == LS_COMPARE_KNOB && row->differs;
}

static void
walk_runs_head (ls_report_writer *w)
{
  const ls_report_markup *f = w->format;
  const ls_compare_table *table = w->report->table;
  gboolean first = TRUE;
  /* The knobs every run shares, once; the table holds the ones that differ. */
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      if (row->kind != LS_COMPARE_KNOB || row->differs)
        continue;
      f->same_knob (w, row->label, row->cells->pdata[0], first);
      first = FALSE;
    }
  put_markup (w, f->same_knobs_end);
  put_markup (w, f->runs_head_start);
  f->head_cell (w, _("run"), TRUE);
  if (w->report->machines->len > 1)
    f->head_cell (w, _("machine"), FALSE);
  f->head_cell (w, _("status"), FALSE);
  for (guint i = 0; i < table->rows->len; i++)
    if (differs (table->rows->pdata[i]))
      f->head_cell_differs (w, ((const ls_compare_row *) table->rows->pdata[i])->label);
  for (guint i = 0; i < ls_report_n_figures; i++)
    {
      g_autofree char *heading = ls_run_figure_heading (ls_report_figure (i));
      f->head_cell (w, heading, TRUE);
      if (i == 3)
        f->head_cell (w, _("peak memory (MB)"), TRUE);
    }
  f->runs_head_end (w);
}

static void
walk_run (ls_report_writer *w, guint r)
{
  const ls_report_markup *f = w->format;
  const ls_report *report = w->report;
  const ls_compare_table *table = report->table;
  JsonObject *run = report->runs->pdata[r];
  f->run_row_start (w, json_object_get_int_member_with_default (run, "id", 0), ls_report_run_is_recommended (report, r));
  if (report->machines->len > 1)
    f->cell (w, ls_report_machine_of (report, run)->hostname, LS_REPORT_CELL_PLAIN, NULL);
  /* When every run is simulated the banner says so once. */
  f->cell_status (w, json_object_get_string_member_with_default (run, "status", "?"),
                  json_object_get_string_member_with_default (run, "error", NULL),
                  json_object_get_int_member_with_default (run, "simulated", 0) && !ls_report_all_simulated (report));
  for (guint i = 0; i < table->rows->len; i++)
    {
      const ls_compare_row *row = table->rows->pdata[i];
      double v;
      if (differs (row))
        f->cell_differs (w, row->cells->pdata[r], ls_json_number (run, row->column, &v) ? &v : NULL);
    }
  for (guint i = 0; i < ls_report_n_figures; i++)
    {
      const ls_run_figure *fig = ls_report_figure (i);
      double v;
      f->cell_number (w, ls_json_number (run, fig->column, &v) ? v * fig->scale : NAN, fig->decimals, TRUE);
      if (i == 3)
        f->cell_number (w, ls_report_run_memory (run) / 1e6, 1, TRUE);
    }
  put_markup (w, f->row_end);
}

static void
walk_runs (ls_report_writer *w)
{
  w->format->section_start (w, LS_REPORT_RUNS);
  walk_runs_head (w);
  for (guint r = 0; r < w->report->runs->len; r++)
    walk_run (w, r);
  w->format->section_end (w, LS_REPORT_RUNS);
}

static void
walk_rank_row (ls_report_writer *w, const ls_rank_row *r)
{
  const ls_report_markup *f = w->format;
  f->rank_row_start (w, r->rank, r->slowest);
  f->cell_number (w, r->throughput_sps, 1, TRUE);
  f->cell_number (w, r->wait_ms_p50, 2, TRUE);
  f->cell_number (w, r->step_ms_p50, 2, TRUE);
  f->cell_number (w, r->workers >= 0 ? (double) r->workers : NAN, 0, TRUE);
  f->cell_number (w, r->threads >= 0 ? (double) r->threads : NAN, 0, TRUE);
  f->cell_number (w, r->cpu_ms / 1000.0, 1, TRUE);
  put_markup (w, f->row_end);
}

/* Each run with ranks: a row per rank, the slowest marked, the node's totals. */
static void
walk_ranks (ls_report_writer *w)
{
  GPtrArray *ranks = w->report->ranks;
  if (ranks->len == 0)
    return;
  w->format->section_start (w, LS_REPORT_RANKS);
  for (guint i = 0; i < ranks->len; i++)
    {
      const ls_ranks_table *t = ranks->pdata[i];
      w->format->ranks_run (w, t);
      if (t->slowest >= 0)
        {
          /* the same sentence as the window's ranks view (ui/ls-ranks-view.c) */
          g_autofree char *said
              = g_strdup_printf (_("Rank %d is the slowest (%s): its median batch wait %.1f ms against the others' "
                                   "%.1f ms. DDP waits for it at every step."),
                                 ls_ranks_table_row (t, (guint) t->slowest)->rank, _(t->slowest_stage),
                                 t->slowest_wait_ms, t->others_wait_ms);
          put_markup (w, w->format->paragraph_start);
          ls_report_put (w, said, LS_REPORT_SENTENCE_MAX);
          put_markup (w, w->format->paragraph_end);
        }
      w->format->table_start (w, LS_REPORT_TABLE_RANKS);
      for (guint r = 0; r < ls_ranks_table_n_rows (t); r++)
        walk_rank_row (w, ls_ranks_table_row (t, r));
      walk_rank_row (w, &t->node);
      w->format->table_end (w, LS_REPORT_TABLE_RANKS);
    }
  w->format->section_end (w, LS_REPORT_RANKS);
}

static void
walk_machines (ls_report_writer *w)
{
  const ls_report_markup *f = w->format;
  GPtrArray *machines = w->report->machines;
  f->section_start (w, LS_REPORT_MACHINES);
  f->table_start (w, LS_REPORT_TABLE_MACHINES);
  for (guint i = 0; i < machines->len; i++)
    {
      const ls_report_machine *m = machines->pdata[i];
      put_markup (w, f->row_start);
      f->cell (w, m->hostname, m->container ? LS_REPORT_CELL_CONTAINER : LS_REPORT_CELL_PLAIN, m->container);
      f->cell (w, m->os, m->wine ? LS_REPORT_CELL_WINE : LS_REPORT_CELL_PLAIN, NULL);
      f->cell (w, m->kernel, LS_REPORT_CELL_PLAIN, NULL);
      f->cell (w, m->cpu_model, m->arch ? LS_REPORT_CELL_ARCH : LS_REPORT_CELL_PLAIN, m->arch);
      f->cell_number (w, (double) m->cores, 0, FALSE);
      f->cell_number (w, (double) m->ram_bytes / 1e9, 1, FALSE);
      f->cell (w, m->gpu ? m->gpu : _("none seen"), LS_REPORT_CELL_PLAIN, NULL);
      f->cell (w, m->driver, LS_REPORT_CELL_PLAIN, NULL);
      f->cell (w, m->cuda, LS_REPORT_CELL_PLAIN, NULL);
      f->cell_number (w, m->n_runs, 0, FALSE);
      put_markup (w, f->row_end);
    }
  f->table_end (w, LS_REPORT_TABLE_MACHINES);
  f->section_end (w, LS_REPORT_MACHINES);
}

static void
walk_data (ls_report_writer *w)
{
  const ls_report_markup *f = w->format;
  GPtrArray *scripts = w->report->scripts;
  f->section_start (w, LS_REPORT_DATA);
  walk_list (w, LS_REPORT_LIST_DATASETS, w->report->datasets, LS_REPORT_TEXT_MAX);
  if (scripts->len)
    {
      f->table_start (w, LS_REPORT_TABLE_SCRIPTS);
      for (guint i = 0; i < scripts->len; i++)
        {
          const ls_report_script *s = scripts->pdata[i];
          put_markup (w, f->row_start);
          f->cell (w, s->name, LS_REPORT_CELL_PLAIN, NULL);
          f->cell (w, s->sha256, LS_REPORT_CELL_CODE, NULL);
          f->cell (w, s->python, LS_REPORT_CELL_PLAIN, NULL);
          f->cell (w, s->torch, LS_REPORT_CELL_PLAIN, NULL);
          put_markup (w, f->row_end);
        }
      f->table_end (w, LS_REPORT_TABLE_SCRIPTS);
    }
  f->section_end (w, LS_REPORT_DATA);
}

gboolean
ls_report_walk (ls_report_writer *w, GError **error)
{
  const ls_report *report = w->report;
  walk_answer (w);
  if (report->machines->len > 1)
    walk_side_by_side (w);
  if (!walk_charts (w, error))
    return FALSE;
  walk_runs (w);
  walk_ranks (w);
  walk_machines (w);
  walk_data (w);
  if (report->notes->len)
    {
      w->format->section_start (w, LS_REPORT_NOTES);
      walk_list (w, LS_REPORT_LIST_NOTES, report->notes, LS_REPORT_SENTENCE_MAX);
      w->format->section_end (w, LS_REPORT_NOTES);
    }
  return TRUE;
}
