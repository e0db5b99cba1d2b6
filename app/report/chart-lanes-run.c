/* A run's timeline from its batch rows: one lane per worker and one for
 * the training loop (chart-lanes.h). Each batch's build goes on the lane
 * of the worker that built it (the loop's own when num_workers is 0), cut
 * into its stages in the order they run; the loop's lane shows its wait
 * for each batch and its step until the next next(). */
#include "app/report/chart-store.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"

#include <math.h>
#include <string.h>

#include "app/chart/chart-lanes.h"

typedef struct {
  gint64 seq, epoch, batch;
  double ready, wait;
  gint64 worker; /* -2: not recorded */
  double start, end;
  double stage[4];  /* read, decode, transform, write */
  double script[4]; /* sampler, getitem, collate, handoff */
} row;

static gboolean
read_rows (ls_store *store, gint64 run_id, GArray *rows, GError **error)
{
  g_autoptr (ls_store_rows) st = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_LANES, &run_id, 1, error);
  if (!st)
    return FALSE;
  GError *local = NULL;
  while (ls_store_rows_next (st, &local))
    {
      row r = { .seq = ls_store_rows_get_int (st, 0),
                .epoch = ls_store_rows_get_int (st, 1),
                .batch = ls_store_rows_get_int (st, 2),
                .ready = ls_store_rows_get_double (st, 4),
                .wait = ls_store_rows_get_double (st, 5),
                .worker = ls_store_rows_is_null (st, 6) ? -2 : ls_store_rows_get_int (st, 6),
                .start = ls_store_rows_get_double (st, 7),
                .end = ls_store_rows_get_double (st, 8) };
      for (int k = 0; k < 4; k++)
        {
          r.stage[k] = ls_store_rows_get_double (st, 9 + k);
          r.script[k] = ls_store_rows_get_double (st, 13 + k);
        }
      if (!isfinite (r.start) || !isfinite (r.end) || r.end < r.start || r.worker < -1)
        r.worker = -2;
      g_array_append_val (rows, r);
    }
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static void
add (ls_chart_lanes *lanes, const row *r, guint lane, ls_span_kind kind, double start, double end)
{
  if (!(end > start))
    return;
  ls_lane_span s = { .lane = lane, .kind = kind, .start_ms = start, .end_ms = end, .seq = r->seq,
                     .epoch = (guint) r->epoch, .batch = r->batch };
  ls_chart_lanes_add_span (lanes, &s);
}

/* The build's stages laid end to end from its start, in the order they
 * run; where they add up to more than the build's wall time (a batch
 * built in parts by several workers at once) they are scaled to fit. */
static void
add_build (ls_chart_lanes *lanes, const row *r, guint lane, guint loop)
{
  gboolean loader = TRUE, script = isfinite (r->script[1]) && isfinite (r->script[2]);
  double sum = 0;
  for (int k = 0; k < 4; k++)
    {
      loader = loader && isfinite (r->stage[k]) && r->stage[k] >= 0;
      if (loader)
        sum += r->stage[k];
    }
  double wall = r->end - r->start, t = r->start;
  if (loader && sum > 0)
    {
      double scale = sum > wall ? wall / sum : 1;
      for (int k = 0; k < 4; k++)
        {
          double d = r->stage[k] * scale;
          add (lanes, r, lane, LS_SPAN_READ + k, t, t + d);
          t += d;
        }
    }
  else if (script)
    {
      if (isfinite (r->script[0]))
        add (lanes, r, lane, LS_SPAN_SAMPLER, r->start - r->script[0], r->start);
      double fetch = r->script[1] + r->script[2];
      double scale = fetch > wall ? wall / fetch : 1;
      add (lanes, r, lane, LS_SPAN_GETITEM, t, t + r->script[1] * scale);
      t += r->script[1] * scale;
      add (lanes, r, lane, LS_SPAN_COLLATE, t, t + r->script[2] * scale);
      /* The hand-off is the end of the loop's wait (the batch on its way
       * to the training process), not the worker's work: on the loop's lane. */
      if (isfinite (r->script[3]))
        add (lanes, r, loop, LS_SPAN_HANDOFF, r->ready - MIN (r->script[3], r->wait), r->ready);
    }
  else
    add (lanes, r, lane, LS_SPAN_BUILD, r->start, r->end);
}

ls_chart *
ls_chart_run_lanes (ls_store *store, gint64 run_id, GError **error)
{
  g_return_val_if_fail (store != NULL, NULL);
  g_autoptr (ls_store_rows) info = ls_store_query_row (store, LS_QUERY_RUN_CHART_INFO, run_id, error);
  if (!info)
    return NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (row));
  if (!read_rows (store, run_id, rows, error))
    return NULL;

  gint64 workers = MAX (ls_store_rows_get_int (info, 1), 0);
  for (guint i = 0; i < rows->len; i++)
    workers = MAX (workers, g_array_index (rows, row, i).worker + 1);
  workers = MIN (workers, 4096);

  ls_chart *chart = ls_chart_new (_("Timeline: who built each batch, and when"));
  const char *status = ls_store_rows_get_text (info, 0);
  g_autofree char *when = ls_chart_time_text (ls_store_rows_get_text (info, 12));
  gboolean done = g_strcmp0 (status, "done") == 0;
  const char *pin = ls_store_rows_get_text (info, 3);
  /* untranslated: a knob as typed */
  g_autofree char *pin_text = pin ? g_strdup_printf (" · pin %s", pin) : g_strdup ("");
  g_autofree char *n_workers = g_strdup_printf (ngettext ("%lld worker", "%lld workers", (gulong) workers),
                                                (long long) workers);
  g_autofree char *n_batches = g_strdup_printf (ngettext ("%u batch", "%u batches", rows->len), rows->len);
  /* TRANSLATORS: Run 12[, failed] · 4 workers (fork) · pin staging · 40 batches
   * · on HOST, TIME; the status and the knobs as recorded */
  g_autofree char *sub = g_strdup_printf (
      _("Run %lld%s%s · %s (%s)%s · %s · on %s, %s"), (long long) run_id,
      done ? "" : ", ", done ? "" : status, n_workers,
      ls_store_rows_get_text (info, 2) ? ls_store_rows_get_text (info, 2) : "-", pin_text, n_batches,
      ls_store_rows_get_text (info, 10), when);
  ls_chart_set_subtitle (chart, sub);
  chart->simulated = ls_store_rows_get_int (info, 5) != 0;

  ls_chart_lanes *lanes = ls_chart_set_lanes (chart);
  for (gint64 w = 0; w < workers; w++)
    {
      char label[64];
      g_snprintf (label, sizeof label, _("worker %lld"), (long long) w);
      ls_chart_lanes_add_lane (lanes, label);
    }
  guint loop = ls_chart_lanes_add_lane (lanes, _("training loop"));

  guint unknown = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const row *r = &g_array_index (rows, row, i);
      add (lanes, r, loop, LS_SPAN_WAIT, r->ready - r->wait, r->ready);
      if (i + 1 < rows->len)
        {
          const row *n = &g_array_index (rows, row, i + 1);
          add (lanes, r, loop, LS_SPAN_STEP, r->ready, n->ready - n->wait);
          if (n->epoch != r->epoch)
            {
              ls_lane_mark m = { n->ready - n->wait, (guint) n->epoch };
              g_array_append_val (lanes->epochs, m);
            }
        }
      if (r->worker == -2)
        unknown++;
      else
        add_build (lanes, r, r->worker < 0 ? loop : (guint) r->worker, loop);
    }

  gboolean seen[LS_N_SPAN_KINDS] = { FALSE };
  for (guint i = 0; i < lanes->spans->len; i++)
    seen[g_array_index (lanes->spans, ls_lane_span, i).kind] = TRUE;
  for (int k = 0; k < LS_N_SPAN_KINDS; k++)
    if (seen[k])
      ls_chart_add_legend (chart, ls_span_kind_label (k), ls_span_kind_color (k), LS_CHART_BARS, LS_CHART_SOLID, FALSE, FALSE);
  if (unknown == rows->len && rows->len > 0)
    ls_chart_add_note (chart, _("Where each batch was built was not recorded for this run (recorded before "
                                "Loadscope kept it): only the training loop is shown."));
  else if (unknown > 0)
    ls_chart_add_note (chart, _("%u of %u batches have no record of where they were built and are not drawn on "
                                "a worker's lane."), unknown, rows->len);
  if (lanes->epochs->len > 0)
    ls_chart_add_note (chart, _("Dashed lines: an epoch begins (the loop asks for its first batch)."));
  return chart;
}
