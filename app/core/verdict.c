/* The verdict of one run: which stage limits it (the GPU waits for data,
 * for the copy, or is itself the limit; memory; epoch boundaries; a
 * script's own step), from its measured figures. The sentences about
 * cores and knobs are verdict-findings.c's, what a sweep adds is
 * verdict-sweep.c's, the verdict as text and JSON verdict-text.c's. */
#include "app/core/verdict.h"
#include "app/core/verdict-ranks.h"

#include <math.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/json-util.h"
#include "app/core/recommend.h"
#include "app/core/summary-keys.h"
#include "app/core/verdict-private.h"

void
ls_verdict_init (ls_verdict *v)
{
  memset (v, 0, sizeof *v);
  v->index = -1;
  v->findings = g_ptr_array_new_with_free_func (g_free);
  v->warnings = g_ptr_array_new_with_free_func (g_free);
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
      ls_verdict_loading_findings (o, cores, step, v, change);
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
void
ls_verdict_of_run (JsonObject *o, int machine_cores, gboolean busy_warning, ls_verdict *v, knob_change *out_change)
{
  int node_cores = cores_of (o, machine_cores);
  /* With ranks, each one's share of the node's cores (verdict-ranks.h). */
  int cores = ls_verdict_ranks_share (o, node_cores);
  knob_change change = { -1, -1, -1, -1, -1 };
  *out_change = change;
  const char *status = json_object_get_string_member_with_default (o, "status", "?");

  v->limit = LS_LIMIT_UNKNOWN;
  v->dataloader = ls_recommend_dataloader_text (o);
  ls_verdict_run_warnings (o, cores, busy_warning, v);
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
      ls_verdict_loading_findings (o, cores, period, v, &change);
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
          ls_verdict_loading_findings (o, cores, MAX (step, copy_cost), v, &change);
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
  v->suggested = ls_verdict_suggested_dataloader (o, &change);
  *out_change = change;
}

/* ---- public ----------------------------------------------------------- */

void
ls_verdict_for_run (JsonObject *summary, int cores, ls_verdict *out)
{
  ls_verdict_init (out);
  out->index = 0;
  knob_change change;
  ls_verdict_of_run (summary, cores, TRUE, out, &change);
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
