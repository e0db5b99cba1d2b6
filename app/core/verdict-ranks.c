/* The verdict of a run with ranks (verdict-ranks.h). */
#include "app/core/verdict-ranks.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"

/* Waits within this ratio of each other: no rank limits the others. */
#define SLOWER_RATIO 1.2

static JsonArray *
ranks_of (JsonObject *summary)
{
  JsonObject *t = ls_json_object_or_null (summary, "target");
  JsonNode *n = t ? json_object_get_member (t, "ranks") : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

static JsonObject *
rank_at (JsonArray *a, guint i)
{
  JsonNode *n = json_array_get_element (a, i);
  return JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

int
ls_verdict_ranks_count (JsonObject *summary)
{
  JsonArray *a = ranks_of (summary);
  return a ? (int) json_array_get_length (a) : 0;
}

int
ls_verdict_ranks_share (JsonObject *summary, int cores)
{
  int n = ls_verdict_ranks_count (summary);
  return n > 1 ? MAX (1, cores / n) : cores;
}

int
ls_verdict_ranks_slowest (JsonArray *a, double *its_wait, double *others_wait)
{
  guint n = a ? json_array_get_length (a) : 0;
  int worst = -1;
  double most = -1, sum = 0;
  for (guint i = 0; i < n; i++)
    {
      JsonObject *r = rank_at (a, i);
      double w = r ? ls_json_number_or (r, "wait_ms_p50", -1) : -1;
      if (w < 0)
        return -1;
      sum += w;
      if (w > most)
        {
          most = w;
          worst = (int) i;
        }
    }
  if (n < 2)
    return -1;
  *its_wait = most;
  *others_wait = (sum - most) / (n - 1);
  return worst;
}

const char *
ls_verdict_ranks_stage (JsonObject *r)
{
  /* English, as the runner records it (target.node.slowest_stage); N_ marks
   * the two that are words, translated with _() where shown. */
  static const struct {
    const char *key, *name;
  } stages[] = { { "getitem_ms", "__getitem__" }, { "collate_ms", "collate_fn" }, { "sampler_ms", "sampler" },
                 { "handoff_ms", N_ ("hand-off to the training process") }, { "pin_ms", N_ ("pin-memory thread") } };
  const char *best = N_ ("loader");
  double most = -1;
  for (size_t i = 0; r && i < G_N_ELEMENTS (stages); i++)
    {
      double v = ls_json_number_or (r, stages[i].key, -1);
      if (v > most)
        {
          most = v;
          best = stages[i].name;
        }
    }
  return best;
}

gboolean
ls_verdict_ranks_view (JsonObject *summary, double *wait, double *step)
{
  JsonArray *a = ranks_of (summary);
  double its = 0, others = 0;
  int worst = ls_verdict_ranks_slowest (a, &its, &others);
  if (worst < 0)
    return FALSE;
  JsonObject *r = rank_at (a, (guint) worst);
  double w = ls_json_number_or (r, "wait_ms_p50", -1), s = ls_json_number_or (r, "step_ms_p50", -1);
  if (w < 0 || s < 0)
    return FALSE;
  *wait = w;
  *step = s;
  return TRUE;
}

char *
ls_verdict_ranks_limiting (JsonObject *summary)
{
  JsonArray *a = ranks_of (summary);
  double its = 0, others = 0;
  int worst = ls_verdict_ranks_slowest (a, &its, &others);
  if (worst < 0 || its <= others * SLOWER_RATIO || its - others < 0.5)
    return NULL;
  guint others_n = json_array_get_length (a) - 1;
  return g_strdup_printf (ngettext ("rank %d's %s: the other rank waits for it in its step (its median batch wait "
                                    "%.1f ms against %.1f ms)",
                                    "rank %d's %s: the other ranks wait for it in their step (its median batch wait "
                                    "%.1f ms against %.1f ms)",
                                    others_n),
                          worst, _(ls_verdict_ranks_stage (rank_at (a, (guint) worst))), its, others);
}

char *
ls_verdict_ranks_budget (int ranks, int workers, int cores)
{
  int processes = ranks * (1 + workers);
  int threads = cores > processes ? MAX (1, (cores - ranks * workers) / ranks) : 1;
  GString *s = g_string_new (NULL);
  g_autofree char *n_ranks = g_strdup_printf (ngettext ("%d rank", "%d ranks", ranks), ranks);
  g_autofree char *n_workers = g_strdup_printf (ngettext ("%d worker", "%d workers", ranks * workers), ranks * workers);
  g_autofree char *n_processes = g_strdup_printf (ngettext ("%d process", "%d processes", processes), processes);
  g_autofree char *n_cores = g_strdup_printf (ngettext ("%d core", "%d cores", cores), cores);
  /* TRANSLATORS: num_workers=4 per rank × 2 ranks = 8 workers + 2 ranks =
   * 10 processes on 16 cores, OMP_NUM_THREADS=4 per rank (--threads 4) */
  g_string_append_printf (s, _("num_workers=%d per rank \u00d7 %s = %s + %s = %s on %s, OMP_NUM_THREADS=%d per rank "
                               "(--threads %d)"),
                          workers, n_ranks, n_workers, n_ranks, n_processes, n_cores, threads, threads);
  if (cores > 0 && processes > cores)
    g_string_append_printf (s,
                            ngettext ("; that is %d more process than cores: they take turns on the CPU, so each "
                                      "one loads at about %.0f %% of its speed alone",
                                      "; that is %d more processes than cores: they take turns on the CPU, so each "
                                      "one loads at about %.0f %% of its speed alone",
                                      processes - cores),
                            processes - cores, 100.0 * cores / processes);
  return g_string_free (s, FALSE);
}

void
ls_verdict_ranks_findings (JsonObject *summary, int node_cores, ls_verdict *v, gint64 *workers)
{
  int ranks = ls_verdict_ranks_count (summary);
  if (ranks < 1)
    return;
  g_autofree char *limiting = ls_verdict_ranks_limiting (summary);
  if (limiting && v->headline)
    {
      /* TRANSLATORS: the rank that limits the others; the verdict's headline */
      char *headline = g_strdup_printf (_("%s; %s"), limiting, v->headline);
      g_free (v->headline);
      v->headline = headline;
    }
  int share = MAX (1, node_cores / ranks);
  /* One core of a rank's share is its own training process. */
  gint64 fits = MAX (1, share - 1);
  if (*workers > fits)
    *workers = fits;
  if (*workers >= 0 && node_cores > 0)
    g_ptr_array_add (v->findings, ls_verdict_ranks_budget (ranks, (int) *workers, node_cores));
}
