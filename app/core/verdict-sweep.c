/* The verdict of a sweep (ls_verdict_for_sweep): the recommendation, the
 * verdict of the recommended run (verdict.c), and what the sweep as a
 * whole shows: memory per worker and whether the workers loading needs
 * fit in RAM, a suggestion the sweep already measured, the spread of
 * repeats, busy runs. Apart from one run's verdict, which needs none of it. */
#include "app/core/verdict.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/machine-busy.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"
#include "app/core/verdict-private.h"
#include "loader/stats.h"

/* Peak memory against workers over the finished runs, a least-squares
 * line; the slope when at least two worker counts were measured. */
static double
memory_per_worker (JsonArray *summaries, double *intercept)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, first = -1;
  gboolean two = FALSE;
  for (guint i = 0; i < json_array_get_length (summaries); i++)
    {
      JsonObject *o = json_array_get_object_element (summaries, i);
      double m = peak_memory (o), w = ls_json_number_or (o, "workers", -1);
      if (g_strcmp0 (str (o, "status"), "done") != 0 || m < 0 || w < 0)
        continue;
      if (first < 0)
        first = w;
      two |= w != first;
      sx += w;
      sy += m;
      sxx += w * w;
      sxy += w * m;
      n++;
    }
  if (!two || n * sxx - sx * sx <= 0)
    return -1;
  double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  *intercept = (sy - slope * sx) / n;
  return slope;
}

/* Whether run m has the knobs that change sets, and the pick o's workers
 * and pinning where change leaves them: the configuration the line to try
 * would name, whatever knobs that mean nothing there (prefetch with 0
 * workers) say. */
static gboolean
suggestion_matches (JsonObject *o, const knob_change *c, JsonObject *m)
{
  gint64 workers = json_object_get_int_member_with_default (m, "workers", 0);
  const char *pin = str (m, "pin"), *pin_o = str (o, "pin");
  gboolean pinned = pin && strcmp (pin, "off") != 0, pinned_o = pin_o && strcmp (pin_o, "off") != 0;
  if (workers != (c->workers >= 0 ? c->workers : json_object_get_int_member_with_default (o, "workers", 0)))
    return FALSE;
  if (pinned != (c->pin_memory > 0 ? TRUE : pinned_o))
    return FALSE;
  if (c->prefetch >= 0 && workers > 0 && json_object_get_int_member_with_default (m, "prefetch", 0) != c->prefetch)
    return FALSE;
  if (c->non_blocking > 0 && !flag (m, "non_blocking"))
    return FALSE;
  if (c->persistent > 0 && workers > 0 && !flag (m, "persistent"))
    return FALSE;
  return TRUE;
}

void
ls_verdict_for_sweep (JsonArray *summaries, int cores, ls_verdict *out)
{
  ls_recommendation rec = ls_recommend (summaries);
  guint n = summaries ? json_array_get_length (summaries) : 0;

  ls_verdict_init (out);
  out->recommendation = g_steal_pointer (&rec.reason);
  out->index = rec.index;
  if (rec.index < 0)
    {
      out->headline = g_strdup (_("no run finished: no verdict"));
      ls_recommendation_clear (&rec);
      return;
    }
  JsonObject *o = json_array_get_object_element (summaries, (guint) rec.index);
  knob_change change;
  ls_verdict_of_run (o, cores, FALSE, out, &change);
  g_free (out->dataloader);
  out->dataloader = g_steal_pointer (&rec.dataloader);
  ls_recommendation_clear (&rec);
  int machine_cores = cores_of (o, cores);

  /* Memory per worker, and what the worker counts worth trying would take. */
  double intercept = 0, slope = memory_per_worker (summaries, &intercept);
  double ram = num2 (o, "machine_busy", "ram_bytes");
  if (slope >= 5e6)
    {
      int at = MAX (8, 2 * machine_cores);
      g_autofree char *per = bytes_text (slope), *total = bytes_text (intercept + slope * at);
      add (out->findings, g_strdup_printf (_("memory grows %s per worker: at %d workers %s"), per, at, total));
      if (out->limit == LS_LIMIT_LOADING && ram > 0)
        {
          /* The workers loading would need, by CPU: do they fit? */
          double batch_cpu = cpu_per_batch (o), step = num2 (o, LS_KEY_COMPUTE_MS, "p50");
          int needed = batch_cpu > 0 && step > 0 ? (int) ceil (batch_cpu / step) : -1;
          double need_mem = intercept + slope * needed;
          if (needed > 0 && need_mem >= LS_VERDICT_MEMORY_BOUND * ram)
            {
              g_autofree char *m = bytes_text (need_mem), *r = bytes_text (ram), *old = out->headline;
              g_autofree char *s = ms_text (step);
              out->limit = LS_LIMIT_MEMORY;
              /* TRANSLATORS: the last %s is the verdict's headline before memory was looked at */
              if (keep_up_of (o) == KEEP_GPU)
                out->headline = g_strdup_printf (_("memory-bound: the %d workers that would keep the GPU busy need "
                                                   "about %s of %s RAM (%s)"),
                                                 needed, m, r, old);
              else if (keep_up_of (o) == KEEP_SCRIPT_CPU)
                out->headline = g_strdup_printf (_("memory-bound: the %d workers that would keep up with the training "
                                                   "step on the CPU need about %s of %s RAM (%s)"),
                                                 needed, m, r, old);
              else
                out->headline = g_strdup_printf (_("memory-bound: the %d workers that would keep up with a %s step "
                                                   "need about %s of %s RAM (%s)"),
                                                 needed, s, m, r, old);
            }
        }
    }

  /* The spread: repeats, or their absence; busy runs. */
  g_autoptr (GPtrArray) groups = ls_config_groups (summaries);

  /* A suggestion the sweep already measured is no suggestion: say what it
   * gave. The line to try never names a configuration measured slower. */
  const ls_config_group *mine = NULL, *tried = NULL;
  for (guint j = 0; j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      if (g->representative == out->index)
        mine = g;
      if (out->suggested && g->done
          && suggestion_matches (o, &change, json_array_get_object_element (summaries, (guint) g->representative))
          && (!tried || g->mean > tried->mean))
        tried = g;
    }
  if (tried)
    {
      g_autofree char *t = ls_config_group_throughput_text (tried);
      gboolean slower = mine && tried->mean < mine->mean;
      gboolean close = mine && !slower && ls_config_group_close (mine, tried);
      /* TRANSLATORS: the first %s is a configuration's knobs (workers=4 pin=staging), the second its throughput */
      add (out->findings,
           g_strdup_printf (slower  ? _("the knobs above point to %s, which this sweep measured: %s, slower than the "
                                        "recommendation")
                            : close ? _("the knobs above point to %s, which this sweep measured: %s, no more than the "
                                        "spread of repeats or 5 %% faster: the recommendation costs less")
                                    : _("the knobs above point to %s, which this sweep measured: %s"),
                            tried->label, t));
      g_clear_pointer (&out->suggested, g_free);
    }
  gboolean repeated = FALSE;
  g_autoptr (GArray) means = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint j = 0; j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      repeated |= g->done > 1;
      if (g->done)
        g_array_append_val (means, g->mean);
    }
  g_array_sort (means, ls_cmp_double);
  if (!repeated && means->len >= 2)
    {
      double top = g_array_index (means, double, means->len - 1), second = g_array_index (means, double, means->len - 2);
      if (top > 0 && (top - second) / top < 0.10)
        add (out->warnings, g_strdup_printf (_("each configuration ran once and the best two differ by %.0f %%: "
                                               "without repeats that may be noise (--repeat 3, or --time-budget)"),
                                             100 * (top - second) / top));
    }
  guint busy = 0, measured = 0;
  double worst = 0;
  for (guint i = 0; i < n; i++)
    {
      double other = num2 (json_array_get_object_element (summaries, i), "machine_busy", "other_cpu_percent");
      if (other < 0)
        continue;
      measured++;
      if (other > LS_MACHINE_BUSY_OTHER_PERCENT)
        busy++;
      worst = MAX (worst, other);
    }
  if (busy)
    add (out->warnings, g_strdup_printf (ngettext ("the machine was busy during %u of %u run (other processes used up "
                                                   "to %.0f %% of a core): their figures may be low and differ between "
                                                   "repeats",
                                                   "the machine was busy during %u of %u runs (other processes used up "
                                                   "to %.0f %% of a core): their figures may be low and differ between "
                                                   "repeats",
                                                   measured),
                                         busy, measured, worst));
}
