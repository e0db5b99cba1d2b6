/* `loadscope tune` (tune.h): probes, the model's picks, the noise, the
 * budgets. */
#include "app/analysis/tune.h"
#include "app/analysis/tune-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/analysis/whatif-basis.h"
#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"
#include "app/core/tmp-dir.h"
#include "app/core/verdict.h"
#include "app/store/store-query.h"
#include "app/sweep/sweep-session.h"

#define DEFAULT_TIME_BUDGET_S 120.0
#define DEFAULT_MAX_RUNS 24
#define NOISE_FLOOR 0.02
#define MIN_PICKS 3
#define MEMORY_MARGIN 0.05   /* a configuration predicted within 5 % of the memory budget is not run */
#define CONFIRM_SHARE 0.8    /* confirmation runs only while the time spent is under this share of the budget */

G_DEFINE_QUARK (ls-tune-error-quark, ls_tune_error)

static void
point_free (ls_tune_point *p)
{
  g_free (p->pin);
  g_free (p);
}

void
ls_tune_result_clear (ls_tune_result *r)
{
  g_clear_pointer (&r->points, g_ptr_array_unref);
  g_clear_pointer (&r->summaries, json_array_unref);
  g_clear_pointer (&r->store_path, g_free);
  g_clear_pointer (&r->verdict, g_free);
  g_clear_pointer (&r->pytorch, g_free);
  g_clear_pointer (&r->stop_reason, g_free);
}

gboolean
ls_tune_parse_size (const char *text, double *bytes)
{
  char *end = NULL;
  double v = text ? g_ascii_strtod (text, &end) : NAN;
  if (!text || end == text || !isfinite (v) || v <= 0)
    return FALSE;
  double scale = 1;
  switch (g_ascii_toupper (*end))
    {
    case 'K': scale = 1024.0; end++; break;
    case 'M': scale = 1024.0 * 1024; end++; break;
    case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
    case 'T': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
  if (scale > 1 && g_ascii_toupper (*end) == 'I')
    end++;
  if (g_ascii_toupper (*end) == 'B')
    end++;
  if (*end)
    return FALSE;
  *bytes = v * scale;
  return TRUE;
}

gboolean
ls_tune_parse_duration (const char *text, double *seconds)
{
  char *end = NULL;
  double v = text ? g_ascii_strtod (text, &end) : NAN;
  if (!text || end == text || !isfinite (v) || v <= 0)
    return FALSE;
  double scale = 1;
  if (*end == 's')
    end++;
  else if (*end == 'm')
    scale = 60, end++;
  else if (*end == 'h')
    scale = 3600, end++;
  if (*end)
    return FALSE;
  *seconds = v * scale;
  return TRUE;
}

/* ------------------------------------------------------------ one measurement */

typedef struct {
  GMainLoop *loop;
  JsonObject *summary;
  char *error;
  ls_tune_progress_func progress;
  gpointer user_data;
} measuring;

static void
on_run_finished (LsSweepSession *s, guint index, JsonObject *summary, measuring *m)
{
  if (summary)
    m->summary = json_object_ref (summary);
}

static void
on_error (LsSweepSession *s, const char *message, measuring *m)
{
  if (!m->error)
    m->error = g_strdup (message);
}

static void
on_finished (LsSweepSession *s, gboolean cancelled, measuring *m)
{
  g_main_loop_quit (m->loop);
}

static void
set_knob (ls_sweep_request *r, ls_sweep_knob_id k, const char *value)
{
  g_clear_pointer (&r->knobs[k], g_ptr_array_unref);
  ls_sweep_request_add (r, k, value);
}

/* Knobs as typed, in every language. */
static char *
point_label (const ls_tune_point *p)
{
  if (p->threads)
    return g_strdup_printf ("workers=%u threads=%u prefetch=%u pin=%s persistent=%s", p->workers, p->threads,
                            p->prefetch, p->pin, p->persistent ? "on" : "off");
  return g_strdup_printf ("workers=%u prefetch=%u pin=%s persistent=%s", p->workers, p->prefetch, p->pin,
                          p->persistent ? "on" : "off");
}

/* Runs point p through the sweep engine, recorded in sweep_id. The run's
 * summary (a new reference), or NULL with an error. */
/* A stop asked (Ctrl-C, the Tune window's Cancel): the run ends interrupted. */
static gboolean
check_stop (gpointer data)
{
  LsSweepSession *session = data;
  if (*(volatile sig_atomic_t *) g_object_get_data (G_OBJECT (session), "stops") > 0)
    ls_sweep_session_cancel (session);
  return G_SOURCE_CONTINUE;
}

static JsonObject *
measure (const ls_sweep_request *base, const char *db, gint64 sweep_id, const ls_tune_point *p,
         volatile sig_atomic_t *stops, ls_tune_progress_func progress, gpointer user_data, GError **error)
{
  if (stops && *stops > 0) /* asked to stop before this run: none started */
    return g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_CANCELLED, "cancelled"), NULL; /* untranslated: never shown */
  g_autoptr (ls_sweep_request) r = ls_sweep_request_copy (base);
  char text[32];

  if (!base->knobs[LS_SWEEP_KNOB_WORKERS])
    {
      g_snprintf (text, sizeof text, "%u", p->workers);
      set_knob (r, LS_SWEEP_KNOB_WORKERS, text);
    }
  if (!base->knobs[LS_SWEEP_KNOB_PREFETCH])
    {
      g_snprintf (text, sizeof text, "%u", p->prefetch);
      set_knob (r, LS_SWEEP_KNOB_PREFETCH, text);
    }
  if (!base->knobs[LS_SWEEP_KNOB_PIN])
    set_knob (r, LS_SWEEP_KNOB_PIN, p->pin);
  if (!base->knobs[LS_SWEEP_KNOB_PERSISTENT])
    set_knob (r, LS_SWEEP_KNOB_PERSISTENT, p->persistent ? "on" : "off");
  if (p->threads && !base->knobs[LS_SWEEP_KNOB_THREADS])
    {
      g_snprintf (text, sizeof text, "%u", p->threads);
      set_knob (r, LS_SWEEP_KNOB_THREADS, text);
    }
  r->repeat = 1;
  r->no_db = FALSE;
  g_free (r->db);
  r->db = g_strdup (db);
  r->sweep_id = sweep_id;

  g_autoptr (LsSweepSession) session = ls_sweep_session_new (r);
  measuring m = { .loop = g_main_loop_new (NULL, FALSE), .progress = progress, .user_data = user_data };
  g_signal_connect (session, "run-finished", G_CALLBACK (on_run_finished), &m);
  g_signal_connect (session, "error", G_CALLBACK (on_error), &m);
  g_signal_connect (session, "finished", G_CALLBACK (on_finished), &m);
  g_object_set_data (G_OBJECT (session), "stops", (gpointer) stops);
  guint watch = stops ? g_timeout_add (100, check_stop, session) : 0;
  gboolean started = ls_sweep_session_start (session, error);
  if (started && ls_sweep_session_is_running (session))
    g_main_loop_run (m.loop);
  g_clear_handle_id (&watch, g_source_remove);
  g_signal_handlers_disconnect_by_data (session, &m);
  g_main_loop_unref (m.loop);
  if (!started)
    return NULL;
  const char *status = m.summary ? json_object_get_string_member_with_default (m.summary, "status", "") : "";
  /* Stopped: a run that finished all the same is kept (it is recorded). */
  gboolean stopped = stops && *stops > 0 && (!m.summary || strcmp (status, "done") != 0);
  if (stopped)
    g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_CANCELLED, "cancelled"); /* untranslated: never shown */
  if (stopped)
    g_clear_pointer (&m.summary, json_object_unref);
  else if (!m.summary || strcmp (status, "done") != 0)
    {
      g_autofree char *label = point_label (p);
      /* untranslated: the store keeps this as the sweep's end reason */
      const char *why = m.error ? m.error
                        : m.summary ? json_object_get_string_member_with_default (m.summary, "error", "the run failed")
                                    : "the runner ended without a summary"; /* untranslated: as above */
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_FAILED, "%s: %s", label, why);
      g_clear_pointer (&m.summary, json_object_unref);
    }
  g_free (m.error);
  return m.summary;
}

static double
summary_pss (JsonObject *summary)
{
  JsonNode *n = json_object_get_member (summary, "memory");
  if (!n || !JSON_NODE_HOLDS_OBJECT (n))
    return NAN;
  double v = ls_json_number_or (json_node_get_object (n), LS_KEY_PSS_PEAK, NAN);
  if (isnan (v))
    v = ls_json_number_or (json_node_get_object (n), "private_peak_bytes", NAN);
  return v;
}

/* ------------------------------------------------------------ the search */

typedef ls_tune_search search;

void
ls_tune_say (ls_tune_search *s, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *line = g_strdup_vprintf (format, args);
  va_end (args);
  if (s->progress)
    s->progress (line, s->user_data);
}

double
ls_tune_elapsed (ls_tune_search *s)
{
  return (g_get_monotonic_time () - s->t0) / 1e6;
}

static const char *
fixed_value (const ls_sweep_request *base, ls_sweep_knob_id k)
{
  return base->knobs[k] && base->knobs[k]->len ? g_ptr_array_index (base->knobs[k], 0) : NULL;
}

gboolean
ls_tune_over_budget (const ls_tune_options *o, double pss)
{
  return o->memory_budget_bytes > 0 && isfinite (pss) && pss > o->memory_budget_bytes;
}

ls_tune_point *
ls_tune_measure_point (ls_tune_search *s, guint workers, guint prefetch, const char *pin, gboolean persistent,
                       guint threads, double predicted, GError **error)
{
  ls_tune_point *p = g_new0 (ls_tune_point, 1);
  *p = (ls_tune_point){ .workers = workers, .prefetch = prefetch, .persistent = persistent, .pin = g_strdup (pin),
                        .threads = threads, .predicted_sps = predicted };
  g_autofree char *label = point_label (p);
  if (isnan (predicted))
    ls_tune_say (s, _("measuring %s"), label);
  else
    ls_tune_say (s, _("measuring %s (the model predicts %.0f samples/s)"), label, predicted);
  JsonObject *summary
      = measure (s->o->base, s->db, s->result->sweep_id, p, s->o->stops, s->progress, s->user_data, error);
  if (!summary)
    {
      point_free (p);
      return NULL;
    }
  p->throughput_sps = ls_json_number_or (summary, LS_KEY_THROUGHPUT, NAN);
  p->gpu_util_exact = ls_json_number_or (summary, LS_KEY_GPU_UTIL_EXACT, NAN);
  p->pss_peak_bytes = summary_pss (summary);
  p->run_id = json_object_get_int_member_with_default (summary, "run_id", 0);
  p->over_budget = ls_tune_over_budget (s->o, p->pss_peak_bytes);
  json_array_add_object_element (s->result->summaries, summary);
  g_ptr_array_add (s->result->points, p);
  s->result->runs++;
  /* ", GPU busy 83 %"; nothing where no GPU consumer measured it (a script on the CPU, sink none). */
  g_autofree char *busy = isfinite (p->gpu_util_exact) && p->gpu_util_exact >= 0
                              ? g_strdup_printf (_(", GPU busy %.0f %%"), p->gpu_util_exact * 100)
                              : g_strdup ("");
  ls_tune_say (s, _("  %.0f samples/s%s, PSS peak %.0f MB%s"), p->throughput_sps, busy, p->pss_peak_bytes / 1e6,
               p->over_budget ? _(" (over the memory budget: excluded)") : "");
  return p;
}

static ls_tune_point *
measure_point (search *s, guint workers, guint prefetch, const char *pin, gboolean persistent, double predicted,
               GError **error)
{
  return ls_tune_measure_point (s, workers, prefetch, pin, persistent, 0, predicted, error);
}

static gboolean
measured (search *s, guint w, guint pf, const char *pin, gboolean pers)
{
  for (guint i = 0; i < s->result->points->len; i++)
    {
      const ls_tune_point *p = g_ptr_array_index (s->result->points, i);
      if (p->workers == w && (w == 0 || p->prefetch == pf) && g_strcmp0 (p->pin, pin) == 0
          && (w == 0 || p->persistent == pers))
        return TRUE;
    }
  return FALSE;
}

static gboolean
same_config (const ls_tune_point *a, const ls_tune_point *b)
{
  return a->workers == b->workers && g_strcmp0 (a->pin, b->pin) == 0
         && (a->workers == 0 || (a->prefetch == b->prefetch && a->persistent == b->persistent));
}

/* The mean throughput of point i's configuration over its repeats, and
 * how many there are. */
static double
config_mean (search *s, guint i, guint *n)
{
  const ls_tune_point *p = g_ptr_array_index (s->result->points, i);
  double sum = 0;
  guint k = 0;
  for (guint j = 0; j < s->result->points->len; j++)
    {
      const ls_tune_point *q = g_ptr_array_index (s->result->points, j);
      if (same_config (p, q) && !isnan (q->throughput_sps))
        sum += q->throughput_sps, k++;
    }
  if (n)
    *n = k;
  return k ? sum / k : NAN;
}

/* The best configuration measured within the budget (by the mean of its
 * repeats), for the search; the answer is ls_verdict_for_sweep's (finish).
 * An index of one of its points. */
static int
best_point (search *s)
{
  int best = -1;
  double best_mean = 0;
  for (guint i = 0; i < s->result->points->len; i++)
    {
      const ls_tune_point *p = g_ptr_array_index (s->result->points, i);
      double mean = config_mean (s, i, NULL);
      if (p->over_budget || isnan (mean))
        continue;
      if (best < 0 || mean > best_mean)
        best = (int) i, best_mean = mean;
    }
  return best;
}

/* The model fitted to every run measured so far, the best one first. */
static ls_whatif_basis *
fit (search *s, GError **error)
{
  g_autoptr (ls_store) store = ls_store_open_to_read (s->db, error);
  if (!store)
    return NULL;
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) ls_whatif_run_free);
  int best = best_point (s);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < s->result->points->len; i++)
      {
        const ls_tune_point *p = g_ptr_array_index (s->result->points, i);
        if ((pass == 0) != ((int) i == best) || p->run_id <= 0)
          continue;
        ls_whatif_run *r = ls_whatif_run_load (store, p->run_id, NULL);
        if (r)
          g_ptr_array_add (runs, r);
      }
  /* Its error ends the sweep, and the store keeps that reason in English. */
  gboolean was = ls_i18n_set_english (TRUE);
  ls_whatif_basis *b = ls_whatif_basis_new (runs, error);
  ls_i18n_set_english (was);
  return b;
}

typedef struct {
  guint workers, prefetch;
  const char *pin;
  gboolean persistent;
  double sps, pss;
} candidate;

/* The model's best configuration not measured yet that fits the budgets. */
static gboolean
next_candidate (search *s, const ls_whatif_basis *b, candidate *out)
{
  gboolean found = FALSE;
  for (guint wi = 0; wi < s->workers->len; wi++)
    for (guint fi = 0; fi < s->prefetch->len; fi++)
      for (guint pi = 0; pi < s->pins->len; pi++)
        for (guint si = 0; si < s->persistent->len; si++)
          {
            candidate c = { g_array_index (s->workers, guint, wi), g_array_index (s->prefetch, guint, fi),
                            g_ptr_array_index (s->pins, pi), g_array_index (s->persistent, gboolean, si), 0, 0 };
            if (c.workers == 0 && (fi > 0 || si > 0))
              continue; /* prefetch and persistence mean nothing without workers */
            if (measured (s, c.workers, c.prefetch, c.pin, c.persistent))
              continue;
            c.pss = ls_whatif_predict_pss (b, c.workers, c.prefetch);
            /* A margin: the PSS of the same configuration differs a little
             * from run to run. */
            if (ls_tune_over_budget (s->o, c.pss * (1 + MEMORY_MARGIN)))
              continue;
            ls_whatif_change change;
            ls_whatif_prediction pred;
            ls_whatif_change_init (&change);
            change.workers = (int) c.workers;
            change.prefetch = (int) c.prefetch;
            change.persistent = c.persistent;
            change.pin = c.pin;
            if (s->o->cpu_budget)
              change.cores = MIN ((double) s->o->cpu_budget, s->o->cores);
            ls_whatif_predict (b, &change, &pred);
            c.sps = pred.throughput_sps;
            /* Better by more than 1 %, or as good with less memory. */
            if (!found || c.sps > out->sps * 1.01 || (c.sps > out->sps * 0.99 && c.pss < out->pss))
              {
                *out = c;
                found = TRUE;
              }
          }
  return found;
}

static void
lists (search *s)
{
  const ls_sweep_request *base = s->o->base;
  const char *v;
  guint cap = s->o->cpu_budget ? s->o->cpu_budget : 2 * s->o->cores;

  s->workers = g_array_new (FALSE, FALSE, sizeof (guint));
  s->prefetch = g_array_new (FALSE, FALSE, sizeof (guint));
  s->pins = g_ptr_array_new ();
  s->persistent = g_array_new (FALSE, FALSE, sizeof (gboolean));
  if ((v = fixed_value (base, LS_SWEEP_KNOB_WORKERS)))
    {
      guint w = (guint) g_ascii_strtoull (v, NULL, 10);
      g_array_append_val (s->workers, w);
    }
  else
    for (guint w = 0; w <= cap; w++)
      g_array_append_val (s->workers, w);
  if ((v = fixed_value (base, LS_SWEEP_KNOB_PREFETCH)))
    {
      guint f = (guint) g_ascii_strtoull (v, NULL, 10);
      g_array_append_val (s->prefetch, f);
    }
  else
    for (guint f = 1; f <= 4; f *= 2)
      g_array_append_val (s->prefetch, f);
  static const char *const pins[] = { "off", "staging", "arena" };
  if ((v = fixed_value (base, LS_SWEEP_KNOB_PIN)))
    g_ptr_array_add (s->pins, (gpointer) v);
  else
    for (guint i = 0; i < G_N_ELEMENTS (pins); i++)
      g_ptr_array_add (s->pins, (gpointer) pins[i]);
  if ((v = fixed_value (base, LS_SWEEP_KNOB_PERSISTENT)))
    {
      gboolean on = strcmp (v, "on") == 0 || strcmp (v, "true") == 0 || strcmp (v, "1") == 0;
      g_array_append_val (s->persistent, on);
    }
  else
    {
      gboolean on = TRUE, off = FALSE;
      g_array_append_val (s->persistent, on);
      g_array_append_val (s->persistent, off);
    }
}

static gboolean
begin_sweep (search *s, GError **error)
{
  g_autoptr (ls_store) store = ls_store_open (s->db, error);
  if (!store)
    return FALSE;
  gint64 machine = ls_store_this_machine (store, NULL, NULL, error);
  if (machine < 0)
    return FALSE;
  g_autofree char *grid = g_strdup_printf ("{\"tune\": {\"memory_budget_bytes\": %.0f, \"cpu_budget\": %u, "
                                           "\"time_budget_s\": %.1f}}",
                                           s->o->memory_budget_bytes, s->o->cpu_budget, s->o->time_budget_s);
  s->result->sweep_id = ls_store_sweep_begin (store, machine, grid, 0, 1, error);
  s->result->store_path = g_strdup (ls_store_path (store));
  return s->result->sweep_id > 0;
}

static void
end_sweep (search *s, const char *status, const char *reason)
{
  if (s->result->sweep_id <= 0)
    return;
  g_autoptr (ls_store) store = ls_store_open (s->db, NULL);
  if (store)
    ls_store_sweep_end (store, s->result->sweep_id, status, reason, NULL);
}

/* The answer is ls_verdict_for_sweep's over the runs within the budgets, as
 * `sweep`, `report` and Results give it: one answer, one set of figures. */
static void
finish (search *s, ls_tune_result *r)
{
  g_autoptr (JsonArray) kept = json_array_new ();
  g_autoptr (GArray) index_of = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < r->points->len; i++)
    if (!((const ls_tune_point *) g_ptr_array_index (r->points, i))->over_budget)
      {
        json_array_add_element (kept, json_node_copy (json_array_get_element (r->summaries, i)));
        g_array_append_val (index_of, i);
      }
  r->elapsed_s = ls_tune_elapsed (s);
  r->best = -1;
  ls_verdict verdict;
  ls_verdict_for_sweep (kept, (int) s->o->cores, &verdict);
  if (verdict.index >= 0)
    r->best = (int) g_array_index (index_of, guint, (guint) verdict.index);
  g_autoptr (GPtrArray) groups = ls_config_groups (kept);
  for (guint j = 0; verdict.index >= 0 && j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      r->best_throughput_sps = g->representative == verdict.index ? g->mean : r->best_throughput_sps;
      r->best_repeats = g->representative == verdict.index ? g->done : r->best_repeats;
    }
  if (r->best < 0)
    {
      ls_verdict_clear (&verdict);
      return;
    }
  const ls_tune_point *p = g_ptr_array_index (r->points, r->best);
  r->pytorch = g_strdup (verdict.dataloader);
  g_autofree char *text = ls_verdict_text (&verdict);
  ls_verdict_clear (&verdict);
  GString *v = g_string_new (text);
  g_string_append_printf (v, ngettext ("Tune: %u run in %.0f s, noise %.1f %%", "Tune: %u runs in %.0f s, noise %.1f %%",
                                       r->runs),
                          r->runs, r->elapsed_s, r->noise * 100);
  if (p->threads) /* --ranks: the DataLoader line has no threads */
    g_string_append_printf (v, _(", each rank's threads %u (OMP_NUM_THREADS=%u, torch.set_num_threads(%u); "
                                 "--threads %u)"),
                            p->threads, p->threads, p->threads, p->threads);
  if (s->o->memory_budget_bytes > 0)
    g_string_append_printf (v, _(", memory budget %.0f MB (PSS peak of the choice %.0f MB)"),
                            s->o->memory_budget_bytes / 1e6, p->pss_peak_bytes / 1e6);
  if (r->stop_reason)
    g_string_append_printf (v, _(". Stopped: %s"), r->stop_reason);
  g_string_append (v, _("."));
  r->verdict = g_string_free (v, FALSE);
}

/* A script's pin is its DataLoader's pin_memory: "arena" has no
 * equivalent, and on the CPU (the first run's sink is not cuda) PyTorch
 * pins nothing, so the search would spend runs on repeats. */
static void
narrow_script_pins (search *s)
{
  if (!ls_sweep_request_is_script (s->o->base) || s->pins->len < 2)
    return;
  JsonArray *runs = s->result->summaries;
  JsonObject *first = json_array_get_length (runs) ? json_array_get_object_element (runs, 0) : NULL;
  const char *sink = first ? json_object_get_string_member_with_default (first, "sink", "") : "";
  gboolean cuda = g_strcmp0 (sink, "cuda") == 0;
  for (guint i = s->pins->len; i-- > 0;)
    {
      const char *pin = g_ptr_array_index (s->pins, i);
      if (s->pins->len > 1 && (strcmp (pin, "arena") == 0 || (!cuda && strcmp (pin, "off") != 0)))
        g_ptr_array_remove_index (s->pins, i);
    }
  if (!cuda)
    ls_tune_say (s, _("pin: the script runs on the CPU, where pin_memory has no effect: not searched"));
}

static gboolean
run_search (search *s, GError **error)
{
  const ls_tune_options *o = s->o;
  ls_tune_result *r = s->result;
  const char *pin0 = g_ptr_array_index (s->pins, 0);
  const char *pin1 = g_ptr_array_index (s->pins, s->pins->len - 1); /* a pinned one where pin is free */
  guint pf = g_array_index (s->prefetch, guint, MIN (1u, s->prefetch->len - 1));
  gboolean pers = g_array_index (s->persistent, gboolean, 0);
  guint w0 = g_array_index (s->workers, guint, 0);
  double run_s = 0;

  /* Probe 1: the fewest workers, to see the build time alone and the
   * memory floor. */
  ls_tune_point *p = measure_point (s, w0, pf, pin0, pers, NAN, error);
  if (!p)
    return FALSE;
  if (p->over_budget)
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_BUDGET, /* untranslated: the store's end reason */
                   "the memory budget (%.0f MB) is below what the smallest configuration, %u worker%s, used "
                   "(PSS peak %.0f MB): no configuration fits",
                   o->memory_budget_bytes / 1e6, w0, w0 == 1 ? "" : "s", p->pss_peak_bytes / 1e6);
      return FALSE;
    }
  run_s = ls_tune_elapsed (s);
  narrow_script_pins (s);
  pin1 = g_ptr_array_index (s->pins, s->pins->len - 1);

  /* Probe 2: one more worker (the memory per worker), with a pinned copy. */
  if (s->workers->len > 1)
    {
      guint w1 = g_array_index (s->workers, guint, 1);
      g_autoptr (ls_whatif_basis) b0 = fit (s, NULL);
      double pss = b0 ? ls_whatif_predict_pss (b0, w1, pf) : NAN;
      if (ls_tune_over_budget (o, pss * (1 + MEMORY_MARGIN)))
        ls_tune_say (s,
                     ngettext ("%u worker would need about %.0f MB, over the memory budget: not run",
                               "%u workers would need about %.0f MB, over the memory budget: not run", w1),
                     w1, pss / 1e6);
      else if (!measure_point (s, w1, pf, pin1, pers, NAN, error))
        return FALSE;
    }

  /* The model's picks: at least MIN_PICKS of them, then on while the next
   * one promises more than the noise. A configuration that becomes the
   * best on one run is run again, so that the choice never rests on one
   * lucky run; the pairs give the noise. */
  guint picks = 0;
  g_autoptr (GArray) spreads = g_array_new (FALSE, FALSE, sizeof (double));
  while (TRUE)
    {
      if (r->runs >= (o->max_runs ? o->max_runs : DEFAULT_MAX_RUNS))
        {
          r->stop_reason = g_strdup (_("the most runs it may make"));
          break;
        }
      run_s = ls_tune_elapsed (s) / MAX (r->runs, 1u);
      if (ls_tune_elapsed (s) + run_s > o->time_budget_s)
        {
          r->stop_reason = g_strdup_printf (_("the time budget (%.0f s) is spent"), o->time_budget_s);
          break;
        }
      g_autoptr (ls_whatif_basis) b = fit (s, error);
      if (!b)
        return FALSE;
      candidate c = { 0 };
      int best = best_point (s);
      double best_sps = best >= 0 ? config_mean (s, (guint) best, NULL) : 0;
      double noise = MAX (r->noise, NOISE_FLOOR);
      if (!next_candidate (s, b, &c))
        {
          r->stop_reason = g_strdup (_("every configuration within the budgets was measured"));
          break;
        }
      if (picks >= MIN_PICKS && spreads->len > 0 && c.sps <= best_sps * (1 + noise))
        {
          r->stop_reason = g_strdup_printf (_("the model's next best (workers=%u prefetch=%u pin=%s, %.0f samples/s) "
                                              "is within the noise (%.1f %%) of the best measured"),
                                            c.workers, c.prefetch, c.pin, c.sps, noise * 100);
          break;
        }
      ls_tune_point *q = measure_point (s, c.workers, c.prefetch, c.pin, c.persistent, c.sps, error);
      if (!q)
        return FALSE;
      picks++;
      guint qi = r->points->len - 1;
      if (!q->over_budget && same_config (g_ptr_array_index (r->points, (guint) best_point (s)), q)
          && ls_tune_elapsed (s) + run_s <= o->time_budget_s && r->runs < (o->max_runs ? o->max_runs : DEFAULT_MAX_RUNS))
        {
          ls_tune_say (s, _("the best so far: running it again, for its spread"));
          ls_tune_point *again = measure_point (s, c.workers, c.prefetch, c.pin, c.persistent, c.sps, error);
          if (!again)
            return FALSE;
          double first = ((ls_tune_point *) g_ptr_array_index (r->points, qi))->throughput_sps;
          double mean = (first + again->throughput_sps) / 2;
          double spread = mean > 0 ? fabs (first - again->throughput_sps) / mean : 0;
          g_array_append_val (spreads, spread);
          double sum = 0;
          for (guint i = 0; i < spreads->len; i++)
            sum += g_array_index (spreads, double, i);
          r->noise = sum / spreads->len;
        }
    }
  /* Time left: the best few configurations again, in turn, so that the
   * choice among close ones rests on their means, not on one run each. */
  for (int round = 0; round < 2; round++)
    {
      g_autoptr (GArray) top = g_array_new (FALSE, FALSE, sizeof (guint));
      for (int k = 0; k < 3; k++)
        {
          int pick = -1;
          double pick_mean = 0;
          for (guint i = 0; i < r->points->len; i++)
            {
              const ls_tune_point *cand = g_ptr_array_index (r->points, i);
              gboolean taken = cand->over_budget;
              for (guint j = 0; j < top->len && !taken; j++)
                taken = same_config (cand, g_ptr_array_index (r->points, g_array_index (top, guint, j)));
              double mean = config_mean (s, i, NULL);
              if (!taken && !isnan (mean) && (pick < 0 || mean > pick_mean))
                pick = (int) i, pick_mean = mean;
            }
          if (pick >= 0)
            {
              guint u = (guint) pick;
              g_array_append_val (top, u);
            }
        }
      for (guint j = 0; j < top->len; j++)
        {
          const ls_tune_point *again = g_ptr_array_index (r->points, g_array_index (top, guint, j));
          run_s = ls_tune_elapsed (s) / MAX (r->runs, 1u);
          if (ls_tune_elapsed (s) + run_s > o->time_budget_s * CONFIRM_SHARE
              || r->runs >= (o->max_runs ? o->max_runs : DEFAULT_MAX_RUNS))
            return TRUE;
          if (j == 0 && round == 0)
            ls_tune_say (s, _("confirming the best few, in turn"));
          g_autofree char *pin = g_strdup (again->pin);
          if (!measure_point (s, again->workers, again->prefetch, pin, again->persistent, again->predicted_sps, error))
            return FALSE;
        }
    }
  return TRUE;
}

gboolean
ls_tune_run (const ls_tune_options *options, ls_tune_progress_func progress, gpointer user_data,
             ls_tune_result *result, GError **error)
{
  ls_tune_options o = *options;
  search s = { .o = &o, .progress = progress, .user_data = user_data, .result = result,
               .t0 = g_get_monotonic_time () };
  g_autofree char *tmpdir = NULL;

  memset (result, 0, sizeof *result);
  result->points = g_ptr_array_new_with_free_func ((GDestroyNotify) point_free);
  result->summaries = json_array_new ();
  result->best = -1;
  if (!o.base || (!o.base->dataset && !ls_sweep_request_is_script (o.base)))
    {
      g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID, _("--dataset is required (or --target pytorch --script)"));
      return FALSE;
    }
  for (guint k = 0; k < LS_SWEEP_N_KNOBS; k++)
    if (o.base->knobs[k] && o.base->knobs[k]->len > 1)
      {
        g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_INVALID,
                     _("--%s: tune holds a knob fixed at one value, or chooses it itself; not a list"),
                     ls_sweep_knobs[k].name);
        return FALSE;
      }
  if (o.time_budget_s <= 0)
    o.time_budget_s = DEFAULT_TIME_BUDGET_S;
  if (o.cores == 0)
    o.cores = g_get_num_processors ();
  lists (&s);

  /* The model reads what was measured from a store: without one, a
   * private one that goes when done. */
  if (o.base->no_db)
    {
      /* one a killed tune left is removed by the next (tmp-dir.h) */
      tmpdir = ls_tmp_dir_make ("loadscope-tune-", error);
      if (!tmpdir)
        return FALSE;
      s.db = g_build_filename (tmpdir, "tune.sqlite", NULL);
    }
  else
    s.db = g_strdup (o.base->db);

  GError *failure = NULL;
  guint ranks = ls_tune_ranks_of (o.base);
  gboolean ok = begin_sweep (&s, &failure)
                && (ranks ? ls_tune_ranks_search (&s, ranks, &failure) : run_search (&s, &failure));
  /* Cancelled: what was measured is the answer, said as such. */
  gboolean cancelled = g_error_matches (failure, LS_TUNE_ERROR, LS_TUNE_ERROR_CANCELLED);
  if (cancelled)
    {
      g_clear_error (&failure);
      g_free (result->stop_reason);
      result->stop_reason = g_strdup (_("cancelled"));
      ok = TRUE;
    }
  end_sweep (&s, cancelled ? "interrupted" : ok ? "done" : "failed", failure ? failure->message : NULL);
  if (failure)
    g_propagate_error (error, failure);
  finish (&s, result);
  if (ok && result->best < 0)
    {
      if (cancelled)
        g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_CANCELLED, _("cancelled before a configuration finished"));
      else
        g_set_error (error, LS_TUNE_ERROR, LS_TUNE_ERROR_BUDGET,
                     _("every configuration measured was over the memory budget (%.0f MB)"), o.memory_budget_bytes / 1e6);
      ok = FALSE;
    }
  if (tmpdir)
    {
      g_autofree char *wal = g_strconcat (s.db, "-wal", NULL);
      g_autofree char *shm = g_strconcat (s.db, "-shm", NULL);
      g_remove (s.db);
      g_remove (wal);
      g_remove (shm);
      ls_tmp_dir_remove (tmpdir);
      g_clear_pointer (&result->store_path, g_free);
      result->sweep_id = 0;
    }
  g_free (s.db);
  g_array_unref (s.workers);
  g_array_unref (s.prefetch);
  g_ptr_array_unref (s.pins);
  g_array_unref (s.persistent);
  return ok;
}
