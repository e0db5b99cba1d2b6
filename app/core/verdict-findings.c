/* The sentences of a run's verdict that name a knob: which stage of a
 * worker's batch is the slow part, what the cores allow (the workers
 * this machine can give, the cores keeping up would take), the prefetch
 * for uneven waits, the warnings whatever the limit, and the DataLoader
 * line with the knobs they name. Apart from the stage decision
 * (verdict.c), which says when they apply. */
#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/machine-busy.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"
#include "app/core/verdict-private.h"

/* A stage's time per batch: a number, or a distribution's mean (else p50). */
static double
stage_ms (JsonObject *stages, const char *name)
{
  JsonNode *n = stages ? json_object_get_member (stages, name) : NULL;
  if (n && JSON_NODE_HOLDS_OBJECT (n))
    {
      double mean = ls_json_number_or (json_node_get_object (n), "mean", -1);
      return mean >= 0 ? mean : ls_json_number_or (json_node_get_object (n), "p50", -1);
    }
  return ls_json_number_or (stages, name, -1);
}

char *
ls_verdict_suggested_dataloader (JsonObject *o, const knob_change *c)
{
  if (c->workers < 0 && c->prefetch < 0 && c->pin_memory < 0 && c->non_blocking < 0 && c->persistent < 0)
    return NULL;
  /* A copy of the top level (json_node_copy would share the object). */
  g_autoptr (JsonObject) s = json_object_new ();
  g_autoptr (GList) names = json_object_get_members (o);
  for (GList *l = names; l; l = l->next)
    json_object_set_member (s, l->data, json_node_copy (json_object_get_member (o, l->data)));
  if (c->workers >= 0)
    json_object_set_int_member (s, "workers", c->workers);
  if (c->prefetch >= 0)
    json_object_set_int_member (s, "prefetch", c->prefetch);
  if (c->pin_memory > 0 && g_strcmp0 (str (s, "pin"), "off") == 0)
    json_object_set_string_member (s, "pin", "staging");
  if (c->non_blocking > 0)
    json_object_set_boolean_member (s, "non_blocking", TRUE);
  if (c->persistent > 0)
    json_object_set_boolean_member (s, "persistent", TRUE);
  char *before = ls_recommend_dataloader_text (o), *after = ls_recommend_dataloader_text (s);
  gboolean same = g_strcmp0 (before, after) == 0;
  g_free (before);
  if (same)
    {
      g_free (after);
      return NULL;
    }
  return after;
}

/* The worker stage that takes longest, when the summary has stages_ms. */
static void
stage_finding (JsonObject *o, GPtrArray *findings)
{
  /* advice and label marked (N_), translated where put in the sentence */
  static const struct {
    const char *name, *advice, *label;
  } stages[] = {
    /* TRANSLATORS: a stage of a loader's worker: "workers spend most of a batch in read" */
    { "read", N_("reading the files is the slow part: faster storage, or a dataset that fits the page cache"), N_("read") },
    /* TRANSLATORS: a stage of a loader's worker (decoding JPEG images) */
    { "decode", N_("decoding is the slow part: smaller or fewer-pixel JPEGs, or a pre-decoded (uint8 HDF5) copy"),
      N_("decode") },
    /* TRANSLATORS: a stage of a loader's worker (the sample's transforms) */
    { "transform", N_("the transforms are the slow part: cheaper ones, or run them on the GPU after the copy"),
      N_("transform") },
    /* TRANSLATORS: a stage of a loader's worker (writing the batch into shared memory) */
    { "write", N_("writing into shared memory is the slow part: smaller samples (uint8 output, normalize on the GPU)"),
      N_("write") },
    /* a PyTorch script's own stages (--target pytorch) */
    { "getitem", N_("make each sample cheaper (smaller images, cheaper transforms, a pre-decoded copy)"),
      N_("the Dataset's __getitem__") },
    { "collate", N_("return tensors from __getitem__, or a cheaper collate_fn"), "collate_fn" },
    { "handoff", N_("return plain tensors, not Python objects (they are pickled through a queue)"),
      N_("the hand-off to the training process") },
    { "pin", N_("pin_memory=False, or smaller batches"), N_("the pin-memory thread") },
  };
  JsonObject *st = obj (o, "stages_ms");
  double total = 0, best = -1, idle = stage_ms (st, "idle");
  guint which = 0;
  if (!st)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (stages); i++)
    {
      double ms = stage_ms (st, stages[i].name);
      if (ms < 0)
        continue;
      total += ms;
      if (ms > best)
        {
          best = ms;
          which = i;
        }
    }
  if (best <= 0 || total <= 0)
    return;
  g_autofree char *t = ms_text (best), *all = ms_text (total);
  /* Without a GPU there is nothing to move the work to after a copy. */
  const char *advice = _(stages[which].advice);
  if (no_gpu (o) && strcmp (stages[which].name, "transform") == 0)
    advice = _("the transforms are the slow part: cheaper ones, or apply them once to a pre-processed copy");
  else if (no_gpu (o) && strcmp (stages[which].name, "write") == 0)
    advice = _("writing into shared memory is the slow part: smaller samples (uint8 output)");
  /* TRANSLATORS: the stage, its time per batch, the workers' whole time per batch, its share, the advice */
  add (findings, g_strdup_printf (_("workers spend most of a batch in %s (%s of %s, %.0f %%): %s"),
                                  _(stages[which].label), t, all, 100 * best / total, advice));
  if (idle >= 0 && idle > total)
    {
      g_autofree char *i = ms_text (idle);
      add (findings, g_strdup_printf (_("workers sit idle %s per batch, longer than they work: they wait for free "
                                        "slots; a larger prefetch_factor lets them run ahead"),
                                      i));
    }
}

/* Too few measured batches, a busy machine, more workers than cores, a
 * simulated GPU, skipped samples: said whatever the limit. */
void
ls_verdict_run_warnings (JsonObject *o, int cores, gboolean busy_warning, ls_verdict *v)
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  double other = num2 (o, "machine_busy", "other_cpu_percent");
  if (busy_warning && other > LS_MACHINE_BUSY_OTHER_PERCENT)
    add (v->warnings, g_strdup_printf (_("the machine was busy: other processes used %.0f %% of a core during the run "
                                         "(more than %.0f %%), so its figures may be low and differ between repeats"),
                                       other, LS_MACHINE_BUSY_OTHER_PERCENT));
  if (workers > cores)
    add (v->warnings, g_strdup_printf (ngettext ("%lld workers on %d core: the workers beyond the core share it, so "
                                                 "each runs slower",
                                                 "%lld workers on %d cores: the workers beyond the cores share them, so "
                                                 "each runs slower",
                                                 (unsigned long) cores),
                                       (long long) workers, cores));
  double skipped = ls_json_number_or (o, "skipped_samples", -1);
  if (skipped > 0)
    add (v->warnings, g_strdup_printf (ngettext ("%.0f sample could not be read and was replaced",
                                                 "%.0f samples could not be read and were replaced",
                                                 (unsigned long) skipped),
                                       skipped));
  if (flag (o, "simulated"))
    add (v->warnings, g_strdup (_("simulated GPU: the copy and the model step are modelled, not measured on a device")));
}

/* The loading-bound sentences: what the cores allow and which knob. */
void
ls_verdict_loading_findings (JsonObject *o, int cores, double step_ms, ls_verdict *v, knob_change *change)
{
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  double cpu = ls_json_number_or (o, "cpu_percent", -1);
  double batch_cpu = cpu_per_batch (o);
  gboolean saturated = cpu >= LS_VERDICT_CPU_SATURATED * cores * 100;
  int needed = batch_cpu > 0 && step_ms > 0 ? (int) ceil (batch_cpu / step_ms) : -1;

  stage_finding (o, v->findings);
  if (saturated || workers >= cores)
    {
      double other = num2 (o, "machine_busy", "other_cpu_percent");
      if (saturated && cores == 2)
        add (v->findings, g_strdup_printf (_("both cores busy (CPU %.0f %% of %d %%): more workers will not help on "
                                             "this machine; make each sample cheaper or use more cores"),
                                           cpu, cores * 100));
      else if (saturated)
        add (v->findings, g_strdup_printf (ngettext ("all %d core busy (CPU %.0f %% of %d %%): more workers will not "
                                                     "help on this machine; make each sample cheaper or use more cores",
                                                     "all %d cores busy (CPU %.0f %% of %d %%): more workers will not "
                                                     "help on this machine; make each sample cheaper or use more cores",
                                                     (unsigned long) cores),
                                           cores, cpu, cores * 100));
      else if (other > LS_MACHINE_BUSY_OTHER_PERCENT)
        add (v->findings, g_strdup_printf (ngettext ("%lld workers on %d core already (CPU %.0f %% of %d %%, the rest "
                                                     "went to other processes): more workers will not help on this "
                                                     "machine; make each sample cheaper or use more cores",
                                                     "%lld workers on %d cores already (CPU %.0f %% of %d %%, the rest "
                                                     "went to other processes): more workers will not help on this "
                                                     "machine; make each sample cheaper or use more cores",
                                                     (unsigned long) cores),
                                           (long long) workers, cores, cpu, cores * 100));
      else
        add (v->findings, g_strdup_printf (ngettext ("%lld workers on %d core already (CPU %.0f %% of %d %%): more "
                                                     "workers will not help on this machine; make each sample cheaper "
                                                     "or use more cores",
                                                     "%lld workers on %d cores already (CPU %.0f %% of %d %%): more "
                                                     "workers will not help on this machine; make each sample cheaper "
                                                     "or use more cores",
                                                     (unsigned long) cores),
                                           (long long) workers, cores, cpu, cores * 100));
      if (needed > cores)
        {
          g_autofree char *b = ms_text (batch_cpu), *s = ms_text (step_ms);
          char *said;
          switch (keep_up_of (o))
            {
            case KEEP_GPU:
              said = g_strdup_printf (_("to keep the GPU busy would take about %d cores (%s of CPU per batch against "
                                        "a %s step); this machine has %d"),
                                      needed, b, s, cores);
              break;
            case KEEP_SCRIPT_CPU:
              said = g_strdup_printf (_("to keep up with the training step on the CPU would take about %d cores (%s "
                                        "of CPU per batch against a %s step), and on the CPU the step needs cores of "
                                        "its own; this machine has %d"),
                                      needed, b, s, cores);
              break;
            case KEEP_STEP:
            default:
              said = g_strdup_printf (_("to keep up with a %s step would take about %d cores (%s of CPU per batch "
                                        "against a %s step), and on the CPU the step needs cores of its own; this "
                                        "machine has %d"),
                                      s, needed, b, s, cores);
              break;
            }
          add (v->findings, said);
        }
      return;
    }
  gint64 want = needed > 0 ? MIN (MAX (needed, workers + 1), cores) : MIN (MAX (workers * 2, 1), cores);
  if (workers == 0)
    add (v->findings, g_strdup_printf (_("the batches are built in the training process, on one core of %d: "
                                         "num_workers=%lld"),
                                       cores, (long long) want));
  else
    add (v->findings, g_strdup_printf (_("cores are idle (CPU %.0f %% of %d %%): num_workers=%lld"), cpu, cores * 100,
                                       (long long) want));
  change->workers = want;
  double p50 = num2 (o, LS_KEY_BATCH_WAIT_MS, "p50"), p95 = num2 (o, LS_KEY_BATCH_WAIT_MS, "p95");
  gint64 prefetch = json_object_get_int_member_with_default (o, "prefetch", 2);
  if (workers > 0 && p95 > 4 * p50 && p95 > 1 && prefetch < 4)
    {
      g_autofree char *a = ms_text (p95), *b = ms_text (p50);
      add (v->findings, g_strdup_printf (_("waits are uneven (p95 %s against p50 %s): prefetch_factor=4 lets the "
                                           "workers run further ahead"),
                                         a, b));
      change->prefetch = 4;
    }
}
