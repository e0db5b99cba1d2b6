#include "app/core/verdict.h"
#include "app/core/verdict-ranks.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/machine-busy.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"
#include "loader/stats.h"

/* ---- reading a summary ---------------------------------------------- */

static JsonObject *
obj (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

static double
num2 (JsonObject *o, const char *outer, const char *name)
{
  return ls_json_number_or (obj (o, outer), name, -1);
}

static gboolean
flag (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_BOOLEAN && json_node_get_boolean (n);
}

static const char *
str (JsonObject *o, const char *name)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                         : NULL;
}

static double
peak_memory (JsonObject *o)
{
  double pss = num2 (o, "memory", LS_KEY_PSS_PEAK);
  return pss >= 0 ? pss : num2 (o, "memory", "private_peak_bytes");
}

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

/* The sentences below are whole formats, one per wording, each through
 * the catalogue (app/core/i18n.h); what is put into them is a figure with
 * its unit ("84 ms", "1.2 GB"), a knob as PyTorch spells it, or a phrase
 * marked on its own that reads the same wherever it is put. */

/* "84 ms", "1.6 ms", "0.12 ms". */
static char *
ms_text (double ms)
{
  if (ms >= 10)
    return g_strdup_printf ("%.0f ms", ms);
  if (ms >= 1)
    return g_strdup_printf ("%.1f ms", ms);
  return g_strdup_printf ("%.2f ms", ms);
}

static char *
bytes_text (double b)
{
  if (b >= 1e9)
    return g_strdup_printf ("%.1f GB", b / 1e9);
  return g_strdup_printf ("%.0f MB", b / 1e6);
}

static const char *
much (double a, double b)
{
  return a >= 10 * b ? "\u226b" : ">";
}

/* No GPU consumer: the none sink, which is also where a script runs its
 * step on the CPU. Nothing said about such a run speaks of a GPU. */
static gboolean
no_gpu (JsonObject *o)
{
  return g_strcmp0 (str (o, "sink"), "none") == 0;
}

/* A script's own step (--target pytorch), declared here for the wording. */
static gboolean is_script_run (JsonObject *o);

/* What the loader has to keep up with, which picks a sentence's wording:
 * "keep the GPU busy", "keep up with the training step on the CPU", "keep
 * up with a 20 ms step". */
typedef enum { KEEP_GPU, KEEP_SCRIPT_CPU, KEEP_STEP } keep_up;

static keep_up
keep_up_of (JsonObject *o)
{
  if (!no_gpu (o))
    return KEEP_GPU;
  return is_script_run (o) ? KEEP_SCRIPT_CPU : KEEP_STEP;
}

/* ---- building ------------------------------------------------------- */

/* The knobs the findings name, applied to the run's to make "suggested". */
typedef struct {
  gint64 workers;   /* -1: unchanged */
  gint64 prefetch;  /* -1: unchanged */
  int pin_memory;   /* -1 unchanged, 1 pin staging */
  int non_blocking; /* -1 unchanged, 1 on */
  int persistent;   /* -1 unchanged, 1 on */
} knob_change;

static void
add (GPtrArray *to, char *sentence)
{
  g_ptr_array_add (to, sentence);
}

static void
verdict_init (ls_verdict *v)
{
  memset (v, 0, sizeof *v);
  v->index = -1;
  v->findings = g_ptr_array_new_with_free_func (g_free);
  v->warnings = g_ptr_array_new_with_free_func (g_free);
}

static char *
suggested_dataloader (JsonObject *o, const knob_change *c)
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
static void
run_warnings (JsonObject *o, int cores, gboolean busy_warning, ls_verdict *v)
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

/* Cores the run had: its own record, else the caller's, else this machine's. */
static int
cores_of (JsonObject *o, int cores)
{
  double c = num2 (o, "machine_busy", "cores");
  if (c >= 1)
    return (int) c;
  return cores > 0 ? cores : (int) g_get_num_processors ();
}

/* CPU time of loading one batch (runner and workers), ms. */
static double
cpu_per_batch (JsonObject *o)
{
  double per_sample = ls_json_number_or (o, "cpu_ms_per_sample", -1);
  double bs = ls_json_number_or (o, "batch_size", -1);
  return per_sample >= 0 && bs > 0 ? per_sample * bs : -1;
}

/* The loading-bound sentences: what the cores allow and which knob. */
static void
loading_findings (JsonObject *o, int cores, double step_ms, ls_verdict *v, knob_change *change)
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

/* Epoch boundaries with non-persistent workers: their cost, and whether
 * it is the run's limit. */
static gboolean
epoch_finding (JsonObject *o, ls_verdict *v, knob_change *change)
{
  double boundary = ls_json_number_or (o, "epoch_boundary_ms", -1), wait = num2 (o, LS_KEY_BATCH_WAIT_MS, "p50");
  gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
  double bs = ls_json_number_or (o, "batch_size", -1), n = ls_json_number_or (o, "dataset_samples", -1);
  double batches = ls_json_number_or (o, "batches", -1);
  if (boundary < 0 || workers == 0 || flag (o, "persistent") || bs <= 0 || n <= 0)
    return FALSE;
  double excess = boundary - MAX (wait, 0);
  double per_epoch = ceil (n / bs);
  double boundaries = MAX (ceil (batches / per_epoch) - 1, 1);
  double wall_ms = ls_json_number_or (o, "wall_s", -1) * 1000;
  double share = wall_ms > 0 ? excess * boundaries / wall_ms : 0;
  /* Worth a word when a boundary costs several normal waits and the
   * boundaries together a noticeable part of the run. The floor is only
   * against timer noise: a fast machine spawns two workers in under 5 ms,
   * which can still be most of a run with short epochs. */
  if (excess < 1 || excess < 3 * wait || share < 0.02)
    return FALSE;
  g_autofree char *each = excess >= 1000 ? g_strdup_printf ("%.1f s", excess / 1000) : ms_text (excess);
  add (v->findings, g_strdup_printf (_("epoch boundaries cost %s each, %.0f %% of the run (the workers are stopped "
                                       "and started again): persistent_workers=True"),
                                     each, 100 * share));
  change->persistent = 1;
  return share >= 0.25;
}

/* A run of the user's own script (--target pytorch): the step between two
 * batches is the script's (forward, backward, optimizer, on a GPU or on the
 * CPU), measured, so the limit is whichever of the wait and the step is the
 * larger part of a batch's time, and the most any DataLoader knob can give
 * is the wait. */
static gboolean
is_script_run (JsonObject *o)
{
  JsonObject *t = obj (o, "target");
  const char *kind = t ? str (t, "kind") : NULL;
  return kind && strcmp (kind, "pytorch") == 0;
}

static void
script_verdict (JsonObject *o, int cores, double wait, double step, ls_verdict *v, knob_change *change)
{
  double cycle = MAX (wait, 0) + step;
  double gain = cycle > 0 ? MAX (wait, 0) / cycle : 0;
  /* With no wait at all a batch would take the step alone. */
  double speedup = step > 0 ? cycle / step : 1;
  gboolean cpu = no_gpu (o);
  g_autofree char *w = ms_text (MAX (wait, 0)), *s = ms_text (step);
  /* On the CPU the step is the training step on the CPU, and the workers
   * share its cores: "N× as fast" would promise a speed no core gives. */
  if (wait <= 0.1 * step)
    {
      v->limit = LS_LIMIT_STEP;
      v->headline = g_strdup_printf (cpu ? _("step-bound: the training step on the CPU takes %s per batch, the wait "
                                             "for the next batch %s (%.0f %% of the time): the loader keeps up")
                                         : _("step-bound: the training step takes %s per batch, the wait for the next "
                                             "batch %s (%.0f %% of the time): the loader keeps up"),
                                     s, w, 100 * gain);
      const char *help = cpu ? _("a cheaper training step on the CPU (a smaller model, fewer samples per step)")
                             : _("a faster step (the model, the device, mixed precision)");
      if (speedup < 1.5)
        add (v->findings, g_strdup_printf (_("no DataLoader knob can make this run more than %.0f %% faster; %s is "
                                             "what would help"),
                                           100 * (speedup - 1), help));
      else
        add (v->findings, g_strdup_printf (_("no DataLoader knob can make this run more than %.1f\u00d7 as fast; %s "
                                             "is what would help"),
                                           speedup, help));
    }
  else
    {
      v->limit = LS_LIMIT_LOADING;
      v->headline = g_strdup_printf (cpu ? _("loading-bound: the script waits %s for each batch against a %s training "
                                             "step on the CPU (%.0f %% of its time)")
                                         : _("loading-bound: the script waits %s for each batch against a %s step "
                                             "(%.0f %% of its time)"),
                                     w, s, 100 * gain);
      loading_findings (o, cores, step, v, change);
    }
  if (cpu && speedup >= 1.5)
    v->gain = g_strdup_printf (_("the wait is %.0f %% of each batch's time (the training step on the CPU takes %s, "
                                 "the wait %s); on the CPU the workers share the %d cores with that step, so only idle "
                                 "cores take the wait away"),
                               100 * gain, s, w, cores);
  else if (speedup < 1.5)
    v->gain = g_strdup_printf (_("at most %.0f %% faster: the step takes %s, the wait %s"), 100 * (speedup - 1), s, w);
  else
    v->gain = g_strdup_printf (_("at most %.1f\u00d7 as fast: the step takes %s, the wait %s"), speedup, s, w);
}

/* The verdict of run o; the knobs its findings name in *out_change. */
static void
run_verdict (JsonObject *o, int machine_cores, gboolean busy_warning, ls_verdict *v, knob_change *out_change)
{
  int node_cores = cores_of (o, machine_cores);
  /* With ranks, each one's share of the node's cores (verdict-ranks.h). */
  int cores = ls_verdict_ranks_share (o, node_cores);
  knob_change change = { -1, -1, -1, -1, -1 };
  *out_change = change;
  const char *status = json_object_get_string_member_with_default (o, "status", "?");

  v->limit = LS_LIMIT_UNKNOWN;
  v->dataloader = ls_recommend_dataloader_text (o);
  run_warnings (o, cores, busy_warning, v);
  if (strcmp (status, "done") != 0 || ls_json_number_or (o, LS_KEY_THROUGHPUT, -1) <= 0)
    {
      /* TRANSLATORS: %s is the run's status as the store has it (failed, interrupted) */
      v->headline = g_strdup_printf (_("the run did not finish (%s): no verdict"), status);
      return;
    }
  double measured = ls_json_number_or (o, "batches", -1) - MAX (ls_json_number_or (o, "warmup_batches", -1), 0);
  if (measured < LS_VERDICT_MIN_BATCHES)
    {
      v->headline = g_strdup_printf (_("too few batches to tell: %.0f measured after the warm-up"), MAX (measured, 0));
      add (v->warnings, g_strdup_printf (_("only %.0f batches after the warm-up were measured (fewer than %d): too few "
                                           "to tell; give more --batches or a larger dataset"),
                                         MAX (measured, 0), LS_VERDICT_MIN_BATCHES));
      return;
    }

  double tput = ls_json_number_or (o, LS_KEY_THROUGHPUT, -1), bs = ls_json_number_or (o, "batch_size", -1);
  double period = bs > 0 ? bs * 1000 / tput : -1;
  double wait = num2 (o, LS_KEY_BATCH_WAIT_MS, "p50"), copy = num2 (o, LS_KEY_COPY_MS, "p50");
  double step = num2 (o, LS_KEY_COMPUTE_MS, "p50"), util = ls_json_number_or (o, LS_KEY_GPU_UTIL_EXACT, -1);
  ls_verdict_ranks_view (o, &wait, &step);
  double mem = peak_memory (o), ram = num2 (o, "machine_busy", "ram_bytes");
  gboolean non_blocking = flag (o, "non_blocking");
  const char *pin = str (o, "pin");
  gboolean epoch_bound = epoch_finding (o, v, &change);
  g_autofree char *w = ms_text (MAX (wait, 0));

  if (mem > 0 && ram > 0 && mem >= LS_VERDICT_MEMORY_BOUND * ram)
    {
      g_autofree char *m = bytes_text (mem), *r = bytes_text (ram);
      v->limit = LS_LIMIT_MEMORY;
      v->headline = g_strdup_printf (_("memory-bound: the loader's peak memory is %s of %s RAM (%.0f %%)"), m, r,
                                     100 * mem / ram);
      add (v->findings, g_strdup (_("more workers would swap: fewer workers, a smaller prefetch_factor or batch_size, "
                                    "or samples that take less memory")));
    }
  else if (epoch_bound)
    {
      v->limit = LS_LIMIT_EPOCH_BOUNDARY;
      v->headline = g_strdup_printf (_("epoch-boundary-bound: the first batch of every epoch waits %.0f ms while the "
                                       "workers start again"),
                                     ls_json_number_or (o, "epoch_boundary_ms", -1));
    }
  else if (is_script_run (o) && step >= 0)
    script_verdict (o, cores, wait, step, v, &change);
  else if (copy < 0 || step < 0 || util < 0)
    {
      /* No device: the loader alone. */
      v->limit = LS_LIMIT_LOADING;
      v->headline = g_strdup_printf (_("no GPU consumer (sink none): the loader alone delivers %.0f samples/s (wait "
                                       "%s per batch)"),
                                     tput, w);
      loading_findings (o, cores, period, v, &change);
    }
  else
    {
      /* Where the GPU's idle time goes: waiting for a batch, or for its
       * copy (which overlaps the previous step only when non-blocking). */
      double copy_cost = non_blocking ? MAX (copy - step, 0) : copy;
      g_autofree char *c = ms_text (copy), *s = ms_text (step);
      if (util >= LS_VERDICT_GPU_BOUND)
        {
          v->limit = LS_LIMIT_GPU;
          /* TRANSLATORS: the third %s is ≫ or > */
          v->headline = g_strdup_printf (_("GPU busy %.0f %%: GPU-bound (model step %s %s wait %s, copy %s): the "
                                           "loader keeps up, more workers will not help"),
                                         util * 100, s, much (step, MAX (wait, copy)), w, c);
          double batch_cpu = cpu_per_batch (o);
          gint64 workers = json_object_get_int_member_with_default (o, "workers", 0);
          int needed = batch_cpu > 0 && step > 0 ? (int) ceil (batch_cpu / step) : -1;
          if (needed >= 1 && workers > 2 * needed)
            add (v->findings, g_strdup_printf (ngettext ("fewer workers would likely keep up too (about %d core of "
                                                         "loading per step) and use less memory",
                                                         "fewer workers would likely keep up too (about %d cores of "
                                                         "loading per step) and use less memory",
                                                         (unsigned long) needed),
                                               needed));
        }
      else if (wait >= copy_cost && wait >= 0.05 * period)
        {
          v->limit = LS_LIMIT_LOADING;
          /* TRANSLATORS: the third %s is ≫ or > */
          v->headline = g_strdup_printf (_("GPU idle %.0f %%: loading-bound (wait %s %s copy %s)"), (1 - util) * 100,
                                         w, much (wait, copy), c);
          loading_findings (o, cores, MAX (step, copy_cost), v, &change);
        }
      else if (copy_cost > wait && copy_cost >= 0.05 * period)
        {
          v->limit = LS_LIMIT_COPY;
          gboolean pinned = pin && strcmp (pin, "off") != 0;
          /* TRANSLATORS: the third %s is ≫ or > */
          v->headline = g_strdup_printf (_("GPU idle %.0f %%: copy-bound (copy %s %s wait %s)"), (1 - util) * 100, c,
                                         much (copy, wait), w);
          if (!pinned || !non_blocking)
            {
              add (v->findings,
                   g_strdup (!pinned && !non_blocking
                                 ? _("copy-bound: pin_memory=True (pinned memory copies faster) and .to(device, "
                                     "non_blocking=True) (the copy overlaps the previous step)")
                             : !pinned ? _("copy-bound: pin_memory=True (pinned memory copies faster)")
                                       : _("copy-bound: .to(device, non_blocking=True) (the copy overlaps the previous "
                                           "step)")));
              change.pin_memory = pinned ? -1 : 1;
              change.non_blocking = non_blocking ? -1 : 1;
            }
          else
            {
              double bytes = ls_json_number_or (o, "batch_bytes", -1);
              g_autofree char *b = bytes_text (MAX (bytes, 0));
              add (v->findings, g_strdup_printf (_("pinned and non-blocking already: the link itself is the limit "
                                                   "(%s per batch in %s); send fewer bytes (uint8 images, normalized "
                                                   "on the GPU)"),
                                                 b, c));
            }
        }
      else
        {
          v->limit = util >= 0.7 ? LS_LIMIT_GPU : LS_LIMIT_UNKNOWN;
          double mean = num2 (o, LS_KEY_BATCH_WAIT_MS, "mean");
          g_autofree char *m = ms_text (MAX (mean, 0));
          g_autofree char *spikes = mean > 2 * MAX (wait, 0.01) ? g_strdup_printf (_(", mean %s: a few long waits"), m)
                                                                : g_strdup ("");
          /* TRANSLATORS: the second %s is empty, or ", mean 12 ms: a few long waits" */
          v->headline = g_strdup_printf (v->limit == LS_LIMIT_GPU
                                             ? _("GPU busy %.0f %%: no stage of the loader stands out (wait %s%s, copy "
                                                 "%s per %s step): mostly GPU-bound")
                                             : _("GPU busy %.0f %%: no stage of the loader stands out (wait %s%s, copy "
                                                 "%s per %s step)"),
                                         util * 100, w, spikes, c, s);
        }
    }
  ls_verdict_ranks_findings (o, node_cores, v, &change.workers);
  v->suggested = suggested_dataloader (o, &change);
  *out_change = change;
}

/* ---- public ----------------------------------------------------------- */

void
ls_verdict_for_run (JsonObject *summary, int cores, ls_verdict *out)
{
  verdict_init (out);
  out->index = 0;
  knob_change change;
  run_verdict (summary, cores, TRUE, out, &change);
}

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

  verdict_init (out);
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
  run_verdict (o, cores, FALSE, out, &change);
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

void
ls_verdict_clear (ls_verdict *v)
{
  g_clear_pointer (&v->headline, g_free);
  g_clear_pointer (&v->findings, g_ptr_array_unref);
  g_clear_pointer (&v->warnings, g_ptr_array_unref);
  g_clear_pointer (&v->recommendation, g_free);
  g_clear_pointer (&v->dataloader, g_free);
  g_clear_pointer (&v->suggested, g_free);
  g_clear_pointer (&v->gain, g_free);
  v->index = -1;
  v->limit = LS_LIMIT_UNKNOWN;
}

const char *
ls_limit_name (ls_limit limit)
{
  switch (limit)
    {
    case LS_LIMIT_LOADING: return "loading";
    case LS_LIMIT_COPY: return "copy";
    case LS_LIMIT_GPU: return "gpu";
    case LS_LIMIT_MEMORY: return "memory";
    case LS_LIMIT_EPOCH_BOUNDARY: return "epoch-boundary";
    case LS_LIMIT_STEP: return "step";
    case LS_LIMIT_UNKNOWN:
    default: return "unknown";
    }
}

static void
add_string_or_null (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_strings (JsonBuilder *b, const char *name, GPtrArray *list)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; list && i < list->len; i++)
    json_builder_add_string_value (b, list->pdata[i]);
  json_builder_end_array (b);
}

JsonNode *
ls_verdict_to_json (const ls_verdict *v)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "limit");
  json_builder_add_string_value (b, ls_limit_name (v->limit));
  add_string_or_null (b, "headline", v->headline);
  add_strings (b, "findings", v->findings);
  add_strings (b, "warnings", v->warnings);
  add_string_or_null (b, "recommendation", v->recommendation);
  add_string_or_null (b, "pytorch", v->dataloader);
  add_string_or_null (b, "pytorch_suggested", v->suggested);
  add_string_or_null (b, "expected_gain", v->gain);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* "  LABEL PADDING TEXT": the labels of the PyTorch lines padded to one
 * display width (a translated label may hold wide characters). */
static void
append_labelled (GString *s, const char *label, gsize width, const char *text)
{
  g_string_append (s, "  ");
  g_string_append (s, label);
  for (gsize w = ls_i18n_display_width (label); w < width; w++)
    g_string_append_c (s, ' ');
  g_string_append_printf (s, " %s\n", text);
}

char *
ls_verdict_text (const ls_verdict *v)
{
  GString *s = g_string_new (NULL);
  if (v->recommendation)
    {
      g_string_append_printf (s, _("Recommendation: %s"), v->recommendation);
      g_string_append_c (s, '\n');
      if (v->dataloader)
        g_string_append_printf (s, "  %s\n", v->dataloader);
    }
  g_string_append_printf (s, _("Verdict: %s"), v->headline ? v->headline : _("none"));
  g_string_append_c (s, '\n');
  for (guint i = 0; v->findings && i < v->findings->len; i++)
    g_string_append_printf (s, "  - %s\n", (char *) v->findings->pdata[i]);
  for (guint i = 0; v->warnings && i < v->warnings->len; i++)
    g_string_append_printf (s, "  ! %s\n", (char *) v->warnings->pdata[i]);
  /* TRANSLATORS: labels of a verdict's last lines, before a PyTorch DataLoader call or a sentence */
  const char *in_pytorch = _("In PyTorch:"), *to_try = _("To try:"), *expected = _("Expected:");
  gsize width = MAX (ls_i18n_display_width (in_pytorch),
                     MAX (ls_i18n_display_width (to_try), ls_i18n_display_width (expected)));
  if (!v->recommendation && v->dataloader)
    append_labelled (s, in_pytorch, width, v->dataloader);
  if (v->suggested)
    append_labelled (s, to_try, width, v->suggested);
  if (v->gain)
    append_labelled (s, expected, width, v->gain);
  return g_string_free (s, FALSE);
}

void
ls_verdict_print (FILE *to, const ls_verdict *v)
{
  g_autofree char *text = ls_verdict_text (v);
  fputs (text, to);
}
