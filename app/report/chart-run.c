/* One run's charts: the wait of every batch over the run's time, and the
 * memory of its processes over time. */
#include "app/report/chart-store.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"

#include <math.h>
#include <string.h>

#include "app/chart/chart-axis.h"

typedef struct {
  char *status;
  gint64 workers;
  char *start;
  char *pin;
  char *sink;
  gboolean simulated;
  gint64 warmup;
  double p50, p95;
  double arena_bytes;
  char *hostname;
  char *os;
  char *started_at;
} run_info;

static void
run_info_clear (run_info *r)
{
  g_free (r->status);
  g_free (r->start);
  g_free (r->pin);
  g_free (r->sink);
  g_free (r->hostname);
  g_free (r->os);
  g_free (r->started_at);
}

static gboolean
load_run (ls_store *store, gint64 run_id, run_info *r, GError **error)
{
  memset (r, 0, sizeof *r);
  g_autoptr (ls_store_rows) st
      = ls_store_query_row (store, LS_QUERY_RUN_CHART_INFO, run_id, error);
  if (!st)
    return FALSE;
  r->status = ls_store_rows_dup_text (st, 0);
  r->workers = ls_store_rows_get_int (st, 1);
  r->start = ls_store_rows_dup_text (st, 2);
  r->pin = ls_store_rows_dup_text (st, 3);
  r->sink = ls_store_rows_dup_text (st, 4);
  r->simulated = ls_store_rows_get_int (st, 5) != 0;
  r->warmup = ls_store_rows_get_int (st, 6);
  r->p50 = ls_store_rows_get_double (st, 7);
  r->p95 = ls_store_rows_get_double (st, 8);
  r->arena_bytes = ls_store_rows_get_double (st, 9);
  r->hostname = ls_store_rows_dup_text (st, 10);
  r->os = ls_store_rows_dup_text (st, 11);
  r->started_at = ls_store_rows_dup_text (st, 12);
  return TRUE;
}

static void
set_subtitle (ls_chart *chart, gint64 run_id, const run_info *r)
{
  g_autofree char *when = ls_chart_time_text (r->started_at);
  gboolean done = g_strcmp0 (r->status, "done") == 0;
  g_autofree char *n_workers = g_strdup_printf (ngettext ("%lld worker", "%lld workers", (gulong) r->workers),
                                                (long long) r->workers);
  /* TRANSLATORS: Run 12[, failed] · 4 workers (fork) · pin staging · sink cuda
   * · on HOST, OS, TIME; the status and the knobs as recorded */
  g_autofree char *sub = g_strdup_printf (_("Run %lld%s%s · %s (%s) · pin %s · sink %s · on %s, %s, %s"),
                                          (long long) run_id, done ? "" : ", ", done ? "" : r->status, n_workers,
                                          r->start ? r->start : "-", r->pin ? r->pin : "-",
                                          r->sink ? r->sink : "-", r->hostname, r->os, when);
  ls_chart_set_subtitle (chart, sub);
  chart->simulated = r->simulated;
}

static void
time_axis (ls_chart *chart)
{
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("time since the loader started"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  x->include_zero = TRUE;
  x->pad = TRUE;
}

ls_chart *
ls_chart_run_timeline (ls_store *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  run_info r;
  if (!load_run (store, run_id, &r, error))
    {
      run_info_clear (&r);
      return NULL;
    }

  GError *local = NULL;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_WAITS, &run_id, 1, error);
  if (!st)
    {
      run_info_clear (&r);
      return NULL;
    }
  ls_chart *chart = ls_chart_new (_("Batch wait over the run"));
  set_subtitle (chart, run_id, &r);
  ls_chart_series *wait = ls_chart_add_series (chart, _("wait for the batch"), LS_CHART_LINE, 0, LS_CHART_Y);
  ls_chart_series *warm = ls_chart_add_series (chart, _("warm-up batches (not in the figures)"), LS_CHART_SCATTER, 1,
                                               LS_CHART_Y);
  ls_chart_series *copy = ls_chart_add_series (chart, _("host-to-device copy"), LS_CHART_LINE, 2, LS_CHART_Y);
  copy->dash = LS_CHART_DASHED;
  copy->markers = FALSE;
  while (ls_store_rows_next (st, &local))
    {
      gint64 seq = ls_store_rows_get_int (st, 0);
      double t = ls_store_rows_get_double (st, 1), w = ls_store_rows_get_double (st, 2),
             c = ls_store_rows_get_double (st, 3);
      if (seq < r.warmup)
        ls_chart_series_add (warm, t, w);
      else
        ls_chart_series_add (wait, t, w);
      if (isfinite (c))
        ls_chart_series_add (copy, t, c);
    }
  ls_store_rows_free (st);
  if (local)
    {
      run_info_clear (&r);
      ls_chart_free (chart);
      g_propagate_error (error, local);
      return NULL;
    }
  warm->in_legend = warm->points->len > 0;
  copy->in_legend = copy->points->len > 0;

  time_axis (chart);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("time per batch"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  y->include_zero = TRUE;
  if (isfinite (r.p50))
    {
      g_autofree char *v = ls_chart_format_value (LS_CHART_UNIT_MS, r.p50);
      g_autofree char *label = g_strdup_printf (_("wait p50 %s"), v);
      ls_chart_add_rule (chart, LS_CHART_Y, r.p50, label);
    }
  if (isfinite (r.p95))
    {
      g_autofree char *v = ls_chart_format_value (LS_CHART_UNIT_MS, r.p95);
      g_autofree char *label = g_strdup_printf (_("wait p95 %s"), v);
      ls_chart_add_rule (chart, LS_CHART_Y, r.p95, label);
    }
  if (copy->points->len > 0)
    ls_chart_add_note (chart, _("Each point is one batch, at the time it was ready: how long the training loop waited "
                                "for it, and how long its copy to the device took."));
  else
    ls_chart_add_note (chart, _("Each point is one batch, at the time it was ready: how long the training loop waited "
                                "for it."));
  if (ls_chart_n_points (chart) == 0)
    ls_chart_add_note (chart, _("No batch of this run was recorded."));
  run_info_clear (&r);
  return chart;
}

/* One batch's row of LS_QUERY_RUN_BATCH_STAGES. */
typedef struct {
  double seq, wait;
  double loader[5]; /* read, decode, transform, write, idle */
  double script[6]; /* sampler, getitem, collate, hand-off less its pin, pin, idle */
} stage_row;

/* One stacked bar per batch: where its build time went (Loadscope's
 * loader), or where it went inside the DataLoader (a user's script). */
ls_chart *
ls_chart_run_stages (ls_store *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  run_info r;
  if (!load_run (store, run_id, &r, error))
    {
      run_info_clear (&r);
      return NULL;
    }
  GError *local = NULL;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_STAGES, &run_id, 1, error);
  if (!st)
    {
      run_info_clear (&r);
      return NULL;
    }
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (stage_row));
  guint with_loader = 0, with_script = 0, with_pin = 0;
  double first = NAN, last = NAN;
  while (ls_store_rows_next (st, &local))
    {
      stage_row row = { .seq = (double) ls_store_rows_get_int (st, 0), .wait = ls_store_rows_get_double (st, 6) };
      for (int k = 0; k < 5; k++)
        row.loader[k] = ls_store_rows_get_double (st, 1 + k);
      for (int k = 0; k < 4; k++)
        row.script[k] = ls_store_rows_get_double (st, 7 + k);
      /* pin_memory() is a part of the hand-off: drawn beside it, not twice */
      double pin = ls_store_rows_get_double (st, 11);
      with_pin += isfinite (pin);
      row.script[4] = isfinite (pin) ? pin : 0;
      if (isfinite (pin) && isfinite (row.script[3]))
        row.script[3] = MAX (0.0, row.script[3] - pin);
      row.script[5] = row.loader[4];
      with_loader += isfinite (row.loader[0]);
      with_script += isfinite (row.script[1]);
      first = isfinite (first) ? MIN (first, row.seq) : row.seq;
      last = isfinite (last) ? MAX (last, row.seq) : row.seq;
      g_array_append_val (rows, row);
    }
  ls_store_rows_free (st);
  if (local)
    {
      run_info_clear (&r);
      g_propagate_error (error, local);
      return NULL;
    }
  /* A script's batches carry the DataLoader's stages, the loader's none. */
  gboolean script = with_script > 0 && with_loader == 0;
  static const char *const loader_labels[] = { N_ ("read"), N_ ("decode"), N_ ("transform"), N_ ("write"),
                                               N_ ("worker idle") };
  static const char *const script_labels[] = { "sampler", "__getitem__", "collate_fn", "hand-off", "pin_memory",
                                               N_ ("worker idle") };
  const char *const *labels = script ? script_labels : loader_labels;
  guint n_stages = script ? G_N_ELEMENTS (script_labels) : G_N_ELEMENTS (loader_labels);
  ls_chart *chart = ls_chart_new (script ? _("Where each batch's time goes inside the script's DataLoader")
                                         : _("Where each batch's build time goes"));
  set_subtitle (chart, run_id, &r);
  ls_chart_series *stages[G_N_ELEMENTS (script_labels)];
  for (guint k = 0; k < n_stages; k++)
    {
      /* worker idle keeps the loader chart's colour; pin_memory takes the next */
      int colour = script && k >= 4 ? (k == 4 ? 5 : 4) : (int) k;
      stages[k] = ls_chart_add_series (chart, _(labels[k]), LS_CHART_BARS, colour, LS_CHART_Y);
      stages[k]->stacked = TRUE;
      /* pin_memory only where something was pinned (CUDA) */
      stages[k]->in_legend = !(script && k == 4 && with_pin == 0);
    }
  ls_chart_series *wait = ls_chart_add_series (chart, _("wait for the batch (the consumer's stall)"), LS_CHART_SCATTER,
                                               -1, LS_CHART_Y);
  wait->in_legend = TRUE;
  guint missing = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const stage_row *row = &g_array_index (rows, stage_row, i);
      const double *v = script ? row->script : row->loader;
      if (!isfinite (v[script ? 1 : 0]))
        {
          missing++;
          continue;
        }
      /* a worker's idle time before its first batch is its start: not known */
      for (guint k = 0; k < n_stages; k++)
        ls_chart_series_add (stages[k], row->seq, isfinite (v[k]) ? v[k] : 0);
      ls_chart_series_add (wait, row->seq, row->wait);
    }
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("batch (delivery order)"), LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  x->integer = TRUE;
  if (isfinite (first))
    {
      x->min = first - 0.6; /* room for the first and last bars */
      x->max = last + 0.6;
    }
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("time per batch"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  y->include_zero = TRUE;
  if (script)
    ls_chart_add_note (chart, _("Each bar: one batch inside the script's DataLoader: the sampler's indices, __getitem__ "
                                "summed over its samples, collate_fn, the hand-off from the worker that built it to the "
                                "training process (with pin_memory on CUDA, its pin_memory() apart), and the time that "
                                "worker was idle before it; the dot is how long the training loop waited for it."));
  else
    ls_chart_add_note (chart, _("Each bar: one batch's samples read, decoded, transformed and written into the shared "
                                "arena (summed over its samples: one worker's time on it), and the time its workers "
                                "waited for its task; the dot is how long the training loop waited for it."));
  if (r.warmup > 0)
    ls_chart_add_note (chart, ngettext ("The first %lld batch is warm-up, left out of the run's figures.",
                                 "The first %lld batches are warm-up, left out of the run's figures.",
                                 (gulong) r.warmup),
                       (long long) r.warmup);
  if (missing > 0 && missing == rows->len && with_script == 0 && with_loader == 0)
    ls_chart_add_note (chart, _("No stage of this run's batches was recorded: a run recorded before stage timing "
                                "(store schema 4; a script's run, schema 6), or a script whose DataLoader the probe "
                                "could not look inside."));
  else if (missing > 0)
    ls_chart_add_note (chart,
                       ngettext ("%u batch without stages (not seen by the probe, or recorded before stage timing) "
                                 "is left out.",
                                 "%u batches without stages (not seen by the probe, or recorded before stage timing) "
                                 "are left out.",
                                 missing),
                       missing);
  else if (ls_chart_n_points (chart) == 0)
    ls_chart_add_note (chart, _("No batch of this run was recorded."));
  run_info_clear (&r);
  return chart;
}

ls_chart *
ls_chart_run_memory (ls_store *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  run_info r;
  if (!load_run (store, run_id, &r, error))
    {
      run_info_clear (&r);
      return NULL;
    }
  GError *local = NULL;
  ls_store_rows *st = ls_store_query_rows (store, LS_QUERY_RUN_MEMORY_SAMPLES, &run_id, 1, error);
  if (!st)
    {
      run_info_clear (&r);
      return NULL;
    }
  ls_chart *chart = ls_chart_new (_("Memory over the run"));
  set_subtitle (chart, run_id, &r);
  ls_chart_series *total
      = ls_chart_add_series (chart, _("all processes (runner + workers)"), LS_CHART_LINE, 0, LS_CHART_Y);
  ls_chart_series *runner = ls_chart_add_series (chart, _("runner alone"), LS_CHART_LINE, 1, LS_CHART_Y);
  gboolean pss = FALSE;
  while (ls_store_rows_next (st, &local))
    {
      double t = ls_store_rows_get_double (st, 0), all = ls_store_rows_get_double (st, 1),
             mine = ls_store_rows_get_double (st, 2);
      if (isfinite (all))
        pss = TRUE;
      else
        all = ls_store_rows_get_double (st, 3); /* Windows: private bytes */
      if (isfinite (all))
        ls_chart_series_add (total, t, all);
      if (isfinite (mine))
        ls_chart_series_add (runner, t, mine);
    }
  ls_store_rows_free (st);
  if (local)
    {
      run_info_clear (&r);
      ls_chart_free (chart);
      g_propagate_error (error, local);
      return NULL;
    }
  runner->in_legend = runner->points->len > 0;

  time_axis (chart);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, pss || total->points->len == 0 ? "PSS" : _("private bytes"), LS_CHART_UNIT_BYTES,
                     LS_CHART_LINEAR);
  y->include_zero = TRUE;
  if (pss)
    ls_chart_add_note (chart, _("PSS: each process's own pages plus its share of the pages it shares, summed; sampled "
                                "ten times a second."));
  else if (total->points->len > 0)
    ls_chart_add_note (chart, _("Private bytes (Windows): memory committed by the processes alone, summed; sampled "
                                "ten times a second."));
  if (isfinite (r.arena_bytes) && r.arena_bytes > 0)
    {
      g_autofree char *arena = ls_chart_format_value (LS_CHART_UNIT_BYTES, r.arena_bytes);
      ls_chart_add_note (chart, _("The shared batch arena (%s) is counted once in the total, split between the "
                                  "processes that map it."),
                         arena);
    }
  if (ls_chart_n_points (chart) == 0)
    ls_chart_add_note (chart, _("No memory sample of this run was recorded."));
  run_info_clear (&r);
  return chart;
}
