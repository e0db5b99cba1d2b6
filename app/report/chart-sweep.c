/* A sweep's headline charts: GPU utilization and throughput, batch wait,
 * and peak memory, each against workers. Runs that differ only in workers
 * form a series; repeated runs of one configuration become their mean with
 * a min..max band. */
#include "app/report/chart-store.h"
#include "app/core/i18n.h"
#include "app/store/store-named.h"
#include "app/store/store-query.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

const char *const ls_chart_sweep_names[] = { "utilization", "wait", "memory", "stages", NULL };

/* The build stages of a batch, as the run table has their means (the
 * columns of LS_QUERY_SWEEP_CHART_RUNS, app/store/store-named.h). */
#define N_STAGES 5
static const char *const stage_labels[N_STAGES] = { N_ ("read"), N_ ("decode"), N_ ("transform"), N_ ("write"),
                                                     N_ ("worker idle") };
/* A PyTorch script's stages, timed by the probe inside its DataLoader (the
 * summary's stages_ms of a --target pytorch run). */
#define N_SCRIPT_STAGES 5
static const char *const script_stage_labels[N_SCRIPT_STAGES] = { "sampler", "__getitem__", "collate_fn",
                                                                  N_ ("hand-off"), N_ ("idle in workers") };

/* The knobs a sweep may vary besides workers, as the run table has them.
 * Series are told apart by the ones that vary (pin always). */
enum {
  KNOB_PIN,
  KNOB_START,
  KNOB_NON_BLOCKING,
  KNOB_BATCH,
  KNOB_PREFETCH,
  KNOB_PERSISTENT,
  KNOB_IN_ORDER,
  KNOB_MODEL_MS,
  KNOB_SINK,
  KNOB_DATASET,
  KNOB_OUTPUT,
  KNOB_MACHINE, /* the host a run ran on: a series key only with LS_CHART_SWEEP_PER_MACHINE */
  N_KNOBS
};


typedef struct {
  gboolean done;
  gint64 workers;
  char *knobs[N_KNOBS]; /* as text; NULL where the column is */
  double throughput, p50, p95, p99, util, nvml, memory; /* NAN where absent */
  double stages[N_STAGES]; /* ms per batch, mean after the warm-up; NAN: not recorded (before schema 4) */
  gboolean memory_is_private; /* Windows: private bytes instead of PSS */
  gboolean simulated;
  gboolean script; /* a PyTorch script's run: its stages are the script's own */
  double script_stages[N_SCRIPT_STAGES]; /* ms per batch; NAN: the probe did not time them */
} sweep_run;

typedef struct {
  char *key;
  char *label;
  int color;
  GArray *runs; /* guint indices */
} run_group;

typedef struct {
  gint64 id;
  char *started_at;
  char *hostname;
  char *os;
  guint repeat;
  GPtrArray *runs;   /* sweep_run */
  GPtrArray *groups; /* run_group */
  gboolean varies[N_KNOBS];
  guint not_done;
} sweep_data;

static void
sweep_run_free (gpointer p)
{
  sweep_run *r = p;
  for (int i = 0; i < N_KNOBS; i++)
    g_free (r->knobs[i]);
  g_free (r);
}

static void
run_group_free (gpointer p)
{
  run_group *g = p;
  g_free (g->key);
  g_free (g->label);
  g_array_unref (g->runs);
  g_free (g);
}

static void
sweep_data_clear (sweep_data *d)
{
  g_clear_pointer (&d->started_at, g_free);
  g_clear_pointer (&d->hostname, g_free);
  g_clear_pointer (&d->os, g_free);
  g_clear_pointer (&d->runs, g_ptr_array_unref);
  g_clear_pointer (&d->groups, g_ptr_array_unref);
}

static char *
knob_label (int knob, const char *v)
{
  if (!v)
    return g_strdup (knob == KNOB_PIN ? _("pin n/a (no device)") : "-"); /* sink none records no pin */
  switch (knob)
    {
    case KNOB_PIN:
      return g_strdup_printf ("pin %s", v);
    case KNOB_NON_BLOCKING:
      return g_strdup (strcmp (v, "1") == 0 ? _("non-blocking") : _("blocking"));
    case KNOB_BATCH:
      return g_strdup_printf (_("batch %s"), v);
    case KNOB_PREFETCH:
      return g_strdup_printf (_("prefetch %s"), v);
    case KNOB_PERSISTENT:
      return g_strdup (strcmp (v, "1") == 0 ? _("persistent") : _("not persistent"));
    case KNOB_IN_ORDER:
      return g_strdup (strcmp (v, "1") == 0 ? _("in order") : _("any order"));
    case KNOB_MODEL_MS:
      return g_strdup_printf (_("model %g ms"), g_ascii_strtod (v, NULL));
    case KNOB_SINK:
      return g_strdup_printf ("sink %s", v);
    case KNOB_DATASET:
      return g_path_get_basename (v);
    case KNOB_MACHINE:
      return g_strdup_printf (_("on %s"), v);
    case KNOB_START:
    case KNOB_OUTPUT:
    default:
      return g_strdup (v);
    }
}

static gboolean
load_sweep (ls_store *store, gint64 sweep_id, gboolean per_machine, sweep_data *d, GError **error)
{
  ls_store_rows *st = NULL;
  GError *local = NULL;

  memset (d, 0, sizeof *d);
  d->id = sweep_id;
  d->runs = g_ptr_array_new_with_free_func (sweep_run_free);
  d->groups = g_ptr_array_new_with_free_func (run_group_free);

  st = ls_store_query_row (store, LS_QUERY_SWEEP_HEADER, sweep_id, error);
  if (!st)
    return FALSE;
  d->started_at = ls_store_rows_dup_text (st, 0);
  d->repeat = (guint) ls_store_rows_get_int (st, 1);
  d->hostname = ls_store_rows_dup_text (st, 2);
  d->os = ls_store_rows_dup_text (st, 3);
  ls_store_rows_free (st);

  st = ls_store_query_rows (store, LS_QUERY_SWEEP_CHART_RUNS, &sweep_id, 1, error);
  if (!st)
    return FALSE;
  while (ls_store_rows_next (st, &local))
    {
      sweep_run *r = g_new0 (sweep_run, 1);
      r->done = g_strcmp0 (ls_store_rows_get_text (st, 0), "done") == 0;
      r->workers = ls_store_rows_get_int (st, 1);
      r->simulated = ls_store_rows_get_int (st, 2) != 0;
      r->throughput = ls_store_rows_get_double (st, 3);
      r->p50 = ls_store_rows_get_double (st, 4);
      r->p95 = ls_store_rows_get_double (st, 5);
      r->p99 = ls_store_rows_get_double (st, 6);
      r->util = ls_store_rows_get_double (st, 7);
      r->nvml = ls_store_rows_get_double (st, 8);
      r->memory = ls_store_rows_get_double (st, 9);
      if (!isfinite (r->memory) && isfinite (ls_store_rows_get_double (st, 10)))
        {
          r->memory = ls_store_rows_get_double (st, 10);
          r->memory_is_private = TRUE;
        }
      for (int k = 0; k < N_KNOBS; k++)
        r->knobs[k] = ls_store_rows_dup_text (st, 11 + k);
      for (int k = 0; k < N_STAGES; k++)
        r->stages[k] = ls_store_rows_get_double (st, 11 + N_KNOBS + k);
      r->script = ls_store_rows_get_int (st, 11 + N_KNOBS + N_STAGES) != 0;
      for (int k = 0; k < N_SCRIPT_STAGES; k++)
        r->script_stages[k] = ls_store_rows_get_double (st, 12 + N_KNOBS + N_STAGES + k);
      if (r->done)
        g_ptr_array_add (d->runs, r);
      else
        {
          d->not_done++;
          sweep_run_free (r);
        }
    }
  ls_store_rows_free (st);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }

  /* Which knobs vary among the runs shown. The machine too: runs of one
   * configuration on two nodes are not repeats of each other (a sweep
   * spread over nodes, `sweep --slurm --nodes-list`); asked for, it is
   * named even when the runs share one machine. */
  for (int k = 0; k < N_KNOBS; k++)
    for (guint i = 1; i < d->runs->len && !d->varies[k]; i++)
      d->varies[k] = g_strcmp0 (((sweep_run *) d->runs->pdata[0])->knobs[k],
                                ((sweep_run *) d->runs->pdata[i])->knobs[k])
                     != 0;
  d->varies[KNOB_MACHINE] |= per_machine;
  /* Groups in the order the sweep ran them. */
  for (guint i = 0; i < d->runs->len; i++)
    {
      sweep_run *r = d->runs->pdata[i];
      g_autoptr (GString) key = g_string_new (NULL);
      g_autoptr (GString) label = g_string_new (NULL);
      for (int k = 0; k < N_KNOBS; k++)
        {
          if (!d->varies[k] && k != KNOB_PIN)
            continue;
          g_autofree char *text = knob_label (k, r->knobs[k]);
          g_string_append_printf (key, "%d=%s\x1f", k, r->knobs[k] ? r->knobs[k] : "\x1e");
          g_string_append_printf (label, "%s%s", label->len ? ", " : "", text);
        }
      run_group *g = NULL;
      for (guint j = 0; j < d->groups->len && !g; j++)
        if (strcmp (((run_group *) d->groups->pdata[j])->key, key->str) == 0)
          g = d->groups->pdata[j];
      if (!g)
        {
          g = g_new0 (run_group, 1);
          g->key = g_strdup (key->str);
          g->label = g_strdup (label->str);
          g->color = (int) d->groups->len;
          g->runs = g_array_new (FALSE, FALSE, sizeof (guint));
          g_ptr_array_add (d->groups, g);
        }
      g_array_append_val (g->runs, i);
    }
  return TRUE;
}

/* A figure of a run: the offset of its double in sweep_run. */
typedef size_t run_metric;

static double
metric_of (const sweep_run *r, run_metric metric)
{
  return *(const double *) ((const char *) r + metric);
}

static int
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* One series of a group: the metric's mean per worker count, with the
 * min..max of repeated runs as a band (band: only the chart's main series
 * have one, or the bands hide each other). Sets *repeated when a band was
 * drawn. Returns the number of points. */
static guint
add_group_series (ls_chart *chart, const sweep_data *d, const run_group *g, run_metric metric, const char *what,
                  ls_chart_dash dash, ls_chart_axis_id axis, gboolean band, gboolean *repeated)
{
  g_autofree char *label = g_strdup_printf ("%s, %s", g->label, what);
  ls_chart_series *s = ls_chart_add_series (chart, label, LS_CHART_LINE, g->color, axis);
  s->dash = dash;
  s->markers = dash != LS_CHART_DOTTED;
  s->in_legend = FALSE;

  g_autoptr (GArray) workers = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < g->runs->len; i++)
    {
      const sweep_run *r = d->runs->pdata[g_array_index (g->runs, guint, i)];
      gboolean seen = FALSE;
      for (guint k = 0; k < workers->len && !seen; k++)
        seen = g_array_index (workers, gint64, k) == r->workers;
      if (!seen)
        g_array_append_val (workers, r->workers);
    }
  g_array_sort (workers, compare_gint64);

  for (guint k = 0; k < workers->len; k++)
    {
      gint64 w = g_array_index (workers, gint64, k);
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      guint n = 0;
      for (guint i = 0; i < g->runs->len; i++)
        {
          const sweep_run *r = d->runs->pdata[g_array_index (g->runs, guint, i)];
          double v = metric_of (r, metric);
          if (r->workers != w || !isfinite (v))
            continue;
          sum += v;
          lo = MIN (lo, v);
          hi = MAX (hi, v);
          n++;
        }
      if (n == 0)
        continue;
      if (n > 1 && band)
        {
          *repeated = TRUE;
          ls_chart_series_add_band (s, (double) w, sum / n, lo, hi);
        }
      else
        ls_chart_series_add (s, (double) w, sum / n);
    }
  return s->points->len;
}

static void
group_legend (ls_chart *chart, const sweep_data *d, gboolean band)
{
  for (guint i = 0; i < d->groups->len; i++)
    {
      const run_group *g = d->groups->pdata[i];
      ls_chart_add_legend (chart, g->label, g->color, LS_CHART_LINE, LS_CHART_SOLID, TRUE, band);
    }
}

static void
setup_chart (ls_chart *chart, const sweep_data *d)
{
  g_autoptr (GString) sub = g_string_new (NULL);
  g_autofree char *when = ls_chart_time_text (d->started_at);
  /* What the sweep kept fixed, the dataset first; then where and when. */
  g_string_append_printf (sub, _("Sweep %lld"), (long long) d->id);
  if (d->runs->len > 0)
    {
      const sweep_run *first = d->runs->pdata[0];
      static const int order[] = { KNOB_DATASET, KNOB_START,      KNOB_BATCH,    KNOB_PREFETCH,
                                   KNOB_PERSISTENT, KNOB_NON_BLOCKING, KNOB_MODEL_MS, KNOB_SINK };
      for (guint i = 0; i < G_N_ELEMENTS (order); i++)
        {
          int k = order[i];
          if (d->varies[k] || !first->knobs[k])
            continue;
          if ((k == KNOB_NON_BLOCKING || k == KNOB_PERSISTENT) && strcmp (first->knobs[k], "0") == 0)
            continue;
          g_autofree char *text = knob_label (k, first->knobs[k]);
          g_string_append_printf (sub, " · %s", text);
        }
    }
  g_string_append_printf (sub, _(" · on %s, %s, %s"), d->hostname, d->os, when);
  ls_chart_set_subtitle (chart, sub->str);

  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("workers (0: loading in the training process)"), LS_CHART_UNIT_COUNT, LS_CHART_LINEAR);
  x->integer = TRUE;
  x->pad = TRUE;

  for (guint i = 0; i < d->runs->len; i++)
    chart->simulated |= ((const sweep_run *) d->runs->pdata[i])->simulated;
}

/* banded: what the bands are of ("GPU busy", "p50"). */
static void
finish_notes (ls_chart *chart, const sweep_data *d, gboolean repeated, const char *banded)
{
  if (repeated)
    ls_chart_add_note (chart, _("Each point is the mean of the repeated runs of its configuration; the shaded band "
                                "spans their lowest to highest %s."),
                       banded);
  if (d->runs->len == 0)
    ls_chart_add_note (chart, _("No run of this sweep finished, so there is nothing to plot."));
  if (d->not_done > 0)
    ls_chart_add_note (chart, ngettext ("%u run of this sweep failed or was interrupted and is not shown.",
                                 "%u runs of this sweep failed or were interrupted and are not shown.", d->not_done),
                       d->not_done);
}

static ls_chart *
utilization_chart (const sweep_data *d)
{
  ls_chart *chart = ls_chart_new (_("GPU utilization and throughput vs workers"));
  gboolean repeated = FALSE;
  guint util_points = 0, nvml_points = 0;
  setup_chart (chart, d);

  for (guint i = 0; i < d->groups->len; i++)
    util_points += add_group_series (chart, d, d->groups->pdata[i], offsetof (sweep_run, util), _("GPU busy (exact)"),
                                     LS_CHART_SOLID, LS_CHART_Y, TRUE, &repeated);
  for (guint i = 0; i < d->groups->len; i++)
    nvml_points += add_group_series (chart, d, d->groups->pdata[i], offsetof (sweep_run, nvml), _("GPU busy (NVML)"),
                                     LS_CHART_DOTTED, LS_CHART_Y, FALSE, &repeated);
  /* Without any utilization (sink none), throughput takes the left axis. */
  gboolean util = util_points + nvml_points > 0;
  for (guint i = 0; i < d->groups->len; i++)
    add_group_series (chart, d, d->groups->pdata[i], offsetof (sweep_run, throughput), _("throughput"), LS_CHART_DASHED,
                      util ? LS_CHART_Y2 : LS_CHART_Y, !util, &repeated);

  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis *y2 = ls_chart_axis_get (chart, LS_CHART_Y2);
  if (!util)
    {
      /* No GPU figure in any run (sink none, a script on the CPU): the title
       * promises only what is drawn. */
      g_free (chart->title);
      chart->title = g_strdup (_("Throughput vs workers"));
    }
  if (util)
    {
      ls_chart_axis_set (y, _("GPU busy"), LS_CHART_UNIT_FRACTION, LS_CHART_LINEAR);
      y->min = 0;
      y->max = 1;
      ls_chart_axis_set (y2, _("throughput"), LS_CHART_UNIT_SPS, LS_CHART_LINEAR);
      y2->include_zero = TRUE;
    }
  else
    {
      ls_chart_axis_set (y, _("throughput"), LS_CHART_UNIT_SPS, LS_CHART_LINEAR);
      y->include_zero = TRUE;
    }

  group_legend (chart, d, repeated);
  if (util_points > 0)
    ls_chart_add_legend (chart, _("GPU busy, exact (left axis)"), -1, LS_CHART_LINE, LS_CHART_SOLID, TRUE, FALSE);
  if (nvml_points > 0)
    ls_chart_add_legend (chart, _("GPU busy, NVML (left axis)"), -1, LS_CHART_LINE, LS_CHART_DOTTED, FALSE, FALSE);
  ls_chart_add_legend (chart, util ? _("throughput (right axis)") : _("throughput"), -1, LS_CHART_LINE, LS_CHART_DASHED,
                       TRUE, FALSE);

  if (util_points > 0)
    ls_chart_add_note (chart, _("GPU busy (exact): model-step time / wall time. Throughput: samples consumed per "
                                "second after warm-up."));
  if (nvml_points > 0)
    ls_chart_add_note (chart, _("GPU busy (NVML): the driver's utilization, sampled through the run and averaged; it "
                                "counts any kernel running, so it reads higher than the exact figure."));
  if (!util && d->runs->len > 0)
    ls_chart_add_note (chart, _("These runs had no GPU consumer (sink none), so there is no utilization to show."));
  finish_notes (chart, d, repeated, util ? _("GPU busy (exact)") : _("throughput"));
  return chart;
}

static ls_chart *
wait_chart (const sweep_data *d)
{
  ls_chart *chart = ls_chart_new (_("Batch wait vs workers"));
  gboolean repeated = FALSE;
  setup_chart (chart, d);
  static const struct {
    run_metric metric;
    const char *what;
    ls_chart_dash dash;
  } lines[] = {
    { offsetof (sweep_run, p50), "p50", LS_CHART_SOLID },
    { offsetof (sweep_run, p95), "p95", LS_CHART_DASHED },
    { offsetof (sweep_run, p99), "p99", LS_CHART_DOTTED },
  };
  for (guint k = 0; k < G_N_ELEMENTS (lines); k++)
    for (guint i = 0; i < d->groups->len; i++)
      add_group_series (chart, d, d->groups->pdata[i], lines[k].metric, lines[k].what, lines[k].dash, LS_CHART_Y,
                        k == 0, &repeated);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("batch wait"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  y->include_zero = TRUE;

  group_legend (chart, d, repeated);
  ls_chart_add_legend (chart, _("p50 (median)"), -1, LS_CHART_LINE, LS_CHART_SOLID, TRUE, FALSE);
  ls_chart_add_legend (chart, _("p95"), -1, LS_CHART_LINE, LS_CHART_DASHED, TRUE, FALSE);
  ls_chart_add_legend (chart, _("p99"), -1, LS_CHART_LINE, LS_CHART_DOTTED, FALSE, FALSE);
  ls_chart_add_note (chart, _("Batch wait: how long the training loop blocked for its next batch (the data stall), "
                              "per batch after warm-up."));
  finish_notes (chart, d, repeated, "p50");
  return chart;
}

static ls_chart *
memory_chart (const sweep_data *d)
{
  gboolean pss = FALSE, private_bytes = FALSE, repeated = FALSE;
  for (guint i = 0; i < d->runs->len; i++)
    {
      const sweep_run *r = d->runs->pdata[i];
      if (isfinite (r->memory))
        {
          private_bytes |= r->memory_is_private;
          pss |= !r->memory_is_private;
        }
    }
  const char *what = pss && private_bytes ? _("peak memory (PSS; Windows: private bytes)")
                     : private_bytes       ? _("peak private bytes")
                                           : _("peak PSS");
  ls_chart *chart = ls_chart_new (_("Peak memory vs workers"));
  setup_chart (chart, d);
  for (guint i = 0; i < d->groups->len; i++)
    add_group_series (chart, d, d->groups->pdata[i], offsetof (sweep_run, memory), _("memory"), LS_CHART_SOLID, LS_CHART_Y,
                      TRUE, &repeated);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, what, LS_CHART_UNIT_BYTES, LS_CHART_LINEAR);
  y->include_zero = TRUE;
  group_legend (chart, d, repeated);
  if (pss)
    ls_chart_add_note (chart, _("PSS: the runner and its workers together, pages they share split between them "
                                "(the shared batch arena included); the peak of samples taken ten times a second."));
  if (private_bytes)
    ls_chart_add_note (chart, _("Private bytes (Windows): memory committed by the runner and its workers alone, "
                                "summed; the peak of samples taken ten times a second."));
  finish_notes (chart, d, repeated, _("peak"));
  return chart;
}

/* One stacked bar per configuration (a group's runs with one worker
 * count; repeats averaged): where a batch's build time went. */
static ls_chart *
stages_chart (const sweep_data *d)
{
  ls_chart *chart = ls_chart_new (_("Where a batch's build time goes, per configuration"));
  setup_chart (chart, d);
  ls_chart_axis *x = ls_chart_axis_get (chart, LS_CHART_X);
  ls_chart_axis_set (x, _("configuration"), LS_CHART_UNIT_CATEGORY, LS_CHART_LINEAR);
  ls_chart_axis *y = ls_chart_axis_get (chart, LS_CHART_Y);
  ls_chart_axis_set (y, _("time per batch"), LS_CHART_UNIT_MS, LS_CHART_LINEAR);
  y->include_zero = TRUE;

  ls_chart_series *series[N_STAGES];
  for (int k = 0; k < N_STAGES; k++)
    {
      series[k] = ls_chart_add_series (chart, _(stage_labels[k]), LS_CHART_BARS, k, LS_CHART_Y);
      series[k]->stacked = TRUE;
      series[k]->in_legend = TRUE;
      series[k]->value_labels = k == N_STAGES - 1;
    }
  /* a script's series only where a script's run has its stages */
  gboolean any_script_stages = FALSE;
  for (guint i = 0; i < d->runs->len; i++)
    {
      const sweep_run *r = d->runs->pdata[i];
      any_script_stages |= r->script && isfinite (r->script_stages[1]);
    }
  ls_chart_series *script_series[N_SCRIPT_STAGES] = { NULL };
  for (int k = 0; any_script_stages && k < N_SCRIPT_STAGES; k++)
    {
      script_series[k] = ls_chart_add_series (chart, _(script_stage_labels[k]), LS_CHART_BARS, N_STAGES + k, LS_CHART_Y);
      script_series[k]->stacked = TRUE;
      script_series[k]->value_labels = k == N_SCRIPT_STAGES - 1;
    }
  ls_chart_series *wait = ls_chart_add_series (chart, _("batch wait p50 (the consumer's stall)"), LS_CHART_SCATTER, -1,
                                               LS_CHART_Y);
  wait->in_legend = TRUE;

  guint n = 0, missing = 0, scripts = 0, script_bars = 0, loader_bars = 0;
  gboolean repeated = FALSE;
  double tallest = 0;
  for (guint gi = 0; gi < d->groups->len; gi++)
    {
      const run_group *g = d->groups->pdata[gi];
      g_autoptr (GArray) workers = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; i < g->runs->len; i++)
        {
          const sweep_run *r = d->runs->pdata[g_array_index (g->runs, guint, i)];
          gboolean seen = FALSE;
          for (guint k = 0; k < workers->len && !seen; k++)
            seen = g_array_index (workers, gint64, k) == r->workers;
          if (!seen)
            g_array_append_val (workers, r->workers);
        }
      g_array_sort (workers, compare_gint64);
      for (guint wi = 0; wi < workers->len; wi++)
        {
          gint64 w = g_array_index (workers, gint64, wi);
          double sum[N_STAGES] = { 0 }, script_sum[N_SCRIPT_STAGES] = { 0 }, wait_sum = 0;
          guint runs = 0, script_runs = 0, waits = 0;
          for (guint i = 0; i < g->runs->len; i++)
            {
              const sweep_run *r = d->runs->pdata[g_array_index (g->runs, guint, i)];
              if (r->workers != w)
                continue;
              if (r->script)
                {
                  if (!isfinite (r->script_stages[1]))
                    {
                      scripts++;
                      continue;
                    }
                  for (int k = 0; k < N_SCRIPT_STAGES; k++)
                    script_sum[k] += isfinite (r->script_stages[k]) ? r->script_stages[k] : 0;
                  script_runs++;
                  if (isfinite (r->p50))
                    wait_sum += r->p50, waits++;
                  continue;
                }
              if (!isfinite (r->stages[0]))
                {
                  missing++;
                  continue;
                }
              for (int k = 0; k < N_STAGES; k++)
                sum[k] += isfinite (r->stages[k]) ? r->stages[k] : 0;
              runs++;
              if (isfinite (r->p50))
                wait_sum += r->p50, waits++;
            }
          if (runs == 0 && script_runs == 0)
            continue;
          repeated |= runs > 1 || script_runs > 1;
          g_autofree char *label = g_strdup_printf (_("%lld w, %s"), (long long) w, g->label);
          ls_chart_axis_add_category (x, label);
          double total = 0;
          /* a configuration is a script's or the loader's: one kind of bar */
          for (int k = 0; runs > 0 && k < N_STAGES; k++)
            {
              ls_chart_series_add (series[k], n, sum[k] / runs);
              total += sum[k] / runs;
            }
          for (int k = 0; runs == 0 && k < N_SCRIPT_STAGES; k++)
            {
              ls_chart_series_add (script_series[k], n, script_sum[k] / script_runs);
              total += script_sum[k] / script_runs;
            }
          loader_bars += runs > 0;
          script_bars += runs == 0;
          tallest = MAX (tallest, total);
          if (waits)
            ls_chart_series_add (wait, n, wait_sum / waits);
          n++;
        }
    }
  if (tallest > 0)
    y->max = tallest * 1.08; /* room for the totals above the bars */
  for (int k = 0; k < N_STAGES; k++)
    series[k]->in_legend = loader_bars > 0 || script_bars == 0;
  for (int k = 0; any_script_stages && k < N_SCRIPT_STAGES; k++)
    script_series[k]->in_legend = script_bars > 0;
  if (script_bars > 0)
    ls_chart_add_note (chart, _("A PyTorch script's bar: per batch, the sampler's indices, the Dataset's __getitem__ "
                                "over its samples and collate_fn (timed in the process that built it, a worker or the "
                                "training process), the hand-off to the training process (queue, unpickling) and a "
                                "worker's gap between two batches (none with 0 workers), as the probe timed them "
                                "inside the script's DataLoader."));
  if (loader_bars > 0)
    {
      ls_chart_add_note (chart, _("Each bar: one batch's samples read, decoded, transformed and written into the shared "
                                  "arena, summed over its samples (one worker's time on it, or the training process's "
                                  "with 0 workers), and the time its workers waited for its task; mean per batch after "
                                  "warm-up."));
    }
  if (n > 0)
    ls_chart_add_note (chart, _("N workers build N batches at once, so a batch arrives about every bar / N; the dot is "
                                "how long the training loop waited for it."));
  if (scripts > 0)
    ls_chart_add_note (chart, ngettext ("%u run of a PyTorch script (--target pytorch) has no bars: the probe did not "
                                 "time its DataLoader's stages (a run recorded before it could).",
                                 "%u runs of a PyTorch script (--target pytorch) have no bars: the probe did not "
                                 "time their DataLoader's stages (runs recorded before it could).",
                                 scripts),
                       scripts);
  if (repeated)
    ls_chart_add_note (chart, _("Repeated runs of a configuration are averaged."));
  if (missing > 0)
    ls_chart_add_note (chart, ngettext ("%u run recorded before stage timing (store schema 4) has no breakdown and is left out.",
                                 "%u runs recorded before stage timing (store schema 4) have no breakdown and are left "
                                 "out.",
                                 missing),
                       missing);
  finish_notes (chart, d, FALSE, "");
  return chart;
}

ls_chart *
ls_chart_sweep (ls_store *store, gint64 sweep_id, const char *name, GError **error)
{
  return ls_chart_sweep_with (store, sweep_id, name, 0, error);
}

ls_chart *
ls_chart_sweep_with (ls_store *store, gint64 sweep_id, const char *name, ls_chart_sweep_flags flags, GError **error)
{
  g_return_val_if_fail (store != NULL && name != NULL, NULL);
  ls_chart *(*build) (const sweep_data *) = strcmp (name, "utilization") == 0 ? utilization_chart
                                            : strcmp (name, "wait") == 0      ? wait_chart
                                            : strcmp (name, "memory") == 0    ? memory_chart
                                            : strcmp (name, "stages") == 0    ? stages_chart
                                                                              : NULL;
  if (!build)
    {
      g_set_error (error, LS_CHART_ERROR, LS_CHART_ERROR_UNKNOWN,
                   _("no sweep chart called '%s' (utilization, wait, memory or stages)"), name);
      return NULL;
    }
  sweep_data d;
  if (!load_sweep (store, sweep_id, (flags & LS_CHART_SWEEP_PER_MACHINE) != 0, &d, error))
    {
      sweep_data_clear (&d);
      return NULL;
    }
  ls_chart *chart = build (&d);
  sweep_data_clear (&d);
  return chart;
}
