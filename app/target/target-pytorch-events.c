/* The probe's events as the script run takes them (probe-line.h checks
 * each line): the probe, the DataLoader, its workers, each batch, the
 * stages, the ranks, the end and its proof, an error. Apart from the run
 * loop (target-pytorch.c), which only hands them the lines. */
#include <math.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/run-options.h"
#include "app/core/summary-keys.h"
#include "app/target/target-pytorch-private.h"
#include "app/target/target-ranks.h"
#include "platform/clock.h"
#include "platform/process-identity.h"

#define MAX_WORKER_RECORDS 65536

static void
add_pid (pt_run *s, ls_pid pid)
{
  for (size_t i = 0; i < s->n_pids; i++)
    if (s->pids[i] == pid)
      return;
  if (s->n_pids < MAX_PIDS)
    s->pids[s->n_pids++] = pid;
}

static void
on_probe (pt_run *s, JsonObject *o)
{
  /* The interpreter itself, or below it when --python is a wrapper that
   * does not exec. */
  gint64 pid = json_object_get_int_member (o, "pid");
  if (pid != (gint64) s->pid && !ls_process_is_descendant (pid, s->pid, s->script_start))
    {
      broken (s, "probe.pid is not the script's process");
      return;
    }
  add_pid (s, (ls_pid) pid);
  const char *keys[] = { "python", "executable", "torch" };
  for (size_t i = 0; i < G_N_ELEMENTS (keys); i++)
    if (json_object_has_member (o, keys[i]))
      json_object_set_string_member (s->target, keys[i], json_object_get_string_member (o, keys[i]));
  gboolean cuda = json_object_get_boolean_member_with_default (o, "cuda", FALSE);
  s->copies_watched = json_object_get_boolean_member_with_default (o, "copies_timed", FALSE);
  const char *device = json_object_get_string_member_with_default (o, "device", "cpu");
  /* The script's step is the consumer: on a CUDA device it is "cuda";
   * on the CPU there is no device copy, as with the none sink. */
  g_strlcpy (s->r->sink_name, cuda ? "cuda" : "none", sizeof s->r->sink_name);
  s->config->sink.kind = cuda ? LS_SINK_CUDA : LS_SINK_NONE;
  /* untranslated: kept in the store with the run's figures */
  g_snprintf (s->r->device_name, sizeof s->r->device_name, "%s (the script's own step)", device);
  s->r->simulated = false;
  /* The GPU's own view of the script's device, as for Loadscope's CUDA
   * sink: NVML's utilization over the measured batches (device 0: the
   * probe names no bus id). */
  if (cuda && !s->gpumon)
    {
      ls_error gerr = { 0 };
      if (ls_gpumon_start (0, 100, &s->gpumon, &gerr) != LS_OK)
        g_strlcpy (s->r->gpu_note, gerr.message, sizeof s->r->gpu_note);
    }
}

/* target.knobs: each DataLoader knob's value as the loader really had it
 * and whose it is, {"batch_size": {"value": 16, "from": "script"}, ...};
 * "loadscope" for those given on the command line or in the window. */
static void
knobs_used (pt_run *s, JsonObject *o)
{
  static const struct {
    const char *name;
    unsigned flag;
  } knobs[] = {
    { "num_workers", LS_KNOB_WORKERS },       { "batch_size", LS_KNOB_BATCH_SIZE },
    { "prefetch_factor", LS_KNOB_PREFETCH },  { "persistent_workers", LS_KNOB_PERSISTENT },
    { "pin_memory", LS_KNOB_PIN },            { "multiprocessing_context", LS_KNOB_START },
  };
  JsonObject *used = json_object_new ();
  for (size_t i = 0; i < G_N_ELEMENTS (knobs); i++)
    {
      JsonNode *v = json_object_get_member (o, knobs[i].name);
      if (!v || (!JSON_NODE_HOLDS_VALUE (v) && !JSON_NODE_HOLDS_NULL (v)))
        continue;
      JsonObject *k = json_object_new ();
      json_object_set_member (k, "value", json_node_copy (v));
      json_object_set_string_member (k, "from", s->knobs & knobs[i].flag ? "loadscope" : "script");
      json_object_set_object_member (used, knobs[i].name, k);
    }
  json_object_set_object_member (s->target, "knobs", used);
}

/* Where the builders' time went inside the script's DataLoader, per batch
 * (data/probe/loadscope_probe/stages.py): the sampler, the Dataset's
 * __getitem__, collate_fn, the hand-off to the training process, the
 * workers' idle gap and the fetch's wall time (busy), in ms;
 * the summary's stages_ms for a script (the checked figures, as sent). */
static void
on_stages (pt_run *s, JsonObject *o)
{
  static const char *const names[] = { "sampler", "getitem", "collate", "handoff", "pin", "idle", "busy" };
  JsonObject *st = json_object_new ();
  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      double ms = ls_json_number_or (o, names[i], -1);
      if (ms >= 0)
        json_object_set_double_member (st, names[i], ms);
      else
        json_object_set_null_member (st, names[i]);
    }
  json_object_set_object_member (s->target, "stages_ms", st);
  /* __getitem__ per sample (mean, p50, p95) and a worker's CPU time per
   * batch beside its wall time (busy), where the probe saw them. */
  static const struct { const char *from, *to; } figures[] = {
    { "getitem_per_sample", "getitem_per_sample_ms" }, { "getitem_p50", "getitem_p50_ms" },
    { "getitem_p95", "getitem_p95_ms" }, { "worker_busy", "worker_busy_ms" }, { "worker_cpu", "worker_cpu_ms" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (figures); i++)
    {
      double v = ls_json_number_or (o, figures[i].from, -1);
      if (v >= 0)
        json_object_set_double_member (s->target, figures[i].to, v);
    }
  double timed = ls_json_number_or (o, "getitem_samples_timed", -1);
  if (timed >= 0)
    json_object_set_int_member (s->target, "getitem_samples_timed", (gint64) timed);
  double batches = ls_json_number_or (o, "batches", -1);
  if (batches >= 0)
    json_object_set_int_member (s->target, "stages_batches", (gint64) batches);
}

static void
on_loader (pt_run *s, JsonObject *o)
{
  ls_pool_config *p = &s->config->pool;
  s->have_loader = TRUE;
  p->num_workers = (uint32_t) json_object_get_int_member_with_default (o, "num_workers", p->num_workers);
  if (!json_object_get_null_member (o, "batch_size"))
    p->batch_size = (uint32_t) json_object_get_int_member_with_default (o, "batch_size", p->batch_size);
  if (p->num_workers)
    {
      p->prefetch_factor = (uint32_t) json_object_get_int_member_with_default (o, "prefetch_factor", 2);
      p->persistent_workers = json_object_get_boolean_member_with_default (o, "persistent_workers", FALSE);
      const char *mp = json_object_get_string_member_with_default (o, "multiprocessing_context", NULL);
      if (mp)
        p->start = strcmp (mp, "spawn") == 0 ? LS_START_SPAWN : LS_START_FORK;
    }
  if (json_object_has_member (o, "dataset_samples") && !json_object_get_null_member (o, "dataset_samples"))
    s->r->dataset_samples = (uint64_t) json_object_get_int_member (o, "dataset_samples");
  /* pin_memory left to the script: the run records the script's. */
  if (!(s->knobs & LS_KNOB_PIN) && json_object_has_member (o, "pin_memory"))
    s->config->sink.pin = json_object_get_boolean_member_with_default (o, "pin_memory", FALSE) ? LS_PIN_STAGING
                                                                                                 : LS_PIN_OFF;
  knobs_used (s, o);
  JsonObject *seen = json_object_new ();
  const char *knobs[] = { "index", "num_workers", "batch_size", "prefetch_factor", "persistent_workers",
                          "pin_memory", "multiprocessing_context", "dataset", "dataset_samples" };
  for (size_t i = 0; i < G_N_ELEMENTS (knobs); i++)
    if (json_object_has_member (o, knobs[i]))
      json_object_set_member (seen, knobs[i], json_node_copy (json_object_get_member (o, knobs[i])));
  json_object_set_object_member (s->target, "loader", seen);
  if (json_object_has_member (o, "script_asked"))
    json_object_set_member (s->target, "script_asked", json_node_copy (json_object_get_member (o, "script_asked")));
  if (json_object_has_member (o, "notes"))
    json_object_set_member (s->target, "not_applied", json_node_copy (json_object_get_member (o, "notes")));
  ensure_started (s);
}

static void
on_workers (pt_run *s, JsonObject *o)
{
  JsonArray *pids = json_object_get_array_member (o, "pids");
  uint32_t epoch = (uint32_t) json_object_get_int_member_with_default (o, "epoch", 0);
  guint n = pids ? json_array_get_length (pids) : 0;
  size_t first = s->r->n_workers;
  /* Only the script's own processes are sampled: a pid that runs but not
   * below the script (pid 1, the runner, another user's) is a forgery; one
   * that is gone already (a quick worker) is recorded, not sampled. */
  gboolean mine[LS_PROBE_MAX_WORKERS];
  for (guint i = 0; i < n; i++)
    {
      gint64 pid = json_array_get_int_element (pids, i);
      mine[i] = ls_process_is_descendant (pid, s->pid, s->script_start);
      if (!mine[i] && ls_process_start_time (pid) != 0)
        {
          /* untranslated: the run's error, kept in the store (through the protocol error) */
          g_autofree char *why = g_strdup_printf ("workers.pids: pid %" G_GINT64_FORMAT
                                                  " is not one of the script's processes", pid);
          broken (s, why);
          return;
        }
    }
  if (first + n > MAX_WORKER_RECORDS)
    {
      broken (s, "more than 65536 worker processes");
      return;
    }
  s->r->workers = grow (s->r->workers, &s->cap_workers, first + n, sizeof *s->r->workers);
  for (guint i = 0; i < n; i++)
    {
      ls_worker_info *w = &s->r->workers[first + i];
      memset (w, 0, sizeof *w);
      w->index = i;
      w->epoch = epoch;
      w->pid = (ls_pid) json_array_get_int_element (pids, i);
      w->startup_ms = -1;
      w->exit.kind = LS_EXIT_RUNNING;
      if (mine[i])
        add_pid (s, w->pid);
    }
  s->r->n_workers = first + n;
  ensure_started (s);
  if (s->config->on_workers && n)
    s->config->on_workers (s->config->user, s->r->workers + first, n);
}

static void
on_worker_ready (pt_run *s, JsonObject *o)
{
  ls_pid pid = (ls_pid) json_object_get_int_member_with_default (o, "pid", 0);
  for (size_t i = s->r->n_workers; i-- > 0;)
    if (s->r->workers[i].pid == pid)
      {
        s->r->workers[i].startup_ms = json_object_get_double_member_with_default (o, "startup_ms", -1);
        return;
      }
}

/* The worker index of the process that built a batch: -1 for the
 * script's own process (num_workers 0), LS_BATCH_WORKER_UNKNOWN for a pid
 * no worker had (or none given). */
static int32_t
builder_of (const pt_run *s, gint64 pid)
{
  if (pid <= 0)
    return LS_BATCH_WORKER_UNKNOWN;
  if (pid == (gint64) s->pid || (s->n_pids > 0 && pid == (gint64) s->pids[0]))
    return -1;
  for (size_t i = s->r->n_workers; i-- > 0;)
    if ((gint64) s->r->workers[i].pid == pid)
      return (int32_t) s->r->workers[i].index;
  return LS_BATCH_WORKER_UNKNOWN;
}

static void
on_batch (pt_run *s, JsonObject *o)
{
  ensure_started (s);
  uint64_t seq = (uint64_t) json_object_get_int_member_with_default (o, "seq", (gint64) s->r->n_timeline);
  s->r->timeline = grow (s->r->timeline, &s->cap_timeline, s->r->n_timeline + 1, sizeof *s->r->timeline);
  ls_batch_record *b = &s->r->timeline[s->r->n_timeline++];
  memset (b, 0, sizeof *b);
  b->epoch = (uint32_t) json_object_get_int_member_with_default (o, "epoch", 0);
  b->batch = (uint64_t) json_object_get_int_member_with_default (o, "batch", 0);
  b->samples = (uint32_t) json_object_get_int_member_with_default (o, "samples", 0);
  b->ready_ms = ls_json_number_or (o, "ready_ms", 0);
  b->wait_ms = ls_json_number_or (o, "wait_ms", 0);
  b->compute_ms = ls_json_number_or (o, LS_KEY_COMPUTE_MS, -1);
  /* The copy is the probe's CUDA events around the script's own .to() of
   * the batch (null on the CPU). A script's stages are not the loader's
   * four: unknown (NaN: null in events and the store), not 0. Its
   * builder's time on the batch (the fetch: __getitem__ and collate_fn)
   * and the worker's gap before it are the same figures as the loader's
   * busy and idle. */
  b->copy_ms = ls_json_number_or (o, LS_KEY_COPY_MS, NAN);
  b->stage_ms = NAN;
  b->read_ms = b->decode_ms = b->transform_ms = b->write_ms = NAN;
  b->busy_ms = ls_json_number_or (o, "busy_ms", NAN);
  b->idle_ms = ls_json_number_or (o, "idle_ms", NAN);
  b->sampler_ms = ls_json_number_or (o, "sampler_ms", NAN);
  b->getitem_ms = ls_json_number_or (o, "getitem_ms", NAN);
  b->collate_ms = ls_json_number_or (o, "collate_ms", NAN);
  b->handoff_ms = ls_json_number_or (o, "handoff_ms", NAN);
  b->pin_ms = ls_json_number_or (o, "pin_ms", NAN);
  b->build_start_ms = ls_json_number_or (o, "build_start_ms", NAN);
  b->build_end_ms = ls_json_number_or (o, "build_end_ms", NAN);
  b->worker = builder_of (s, json_object_get_int_member_with_default (o, "worker_pid", 0));
  s->r->batches++;
  s->r->samples += b->samples;
  uint64_t now = ls_clock_ns ();
  if (s->r->n_timeline == (size_t) s->config->warmup + 1)
    s->measure_from_ns = now;
  s->measure_to_ns = now;
  if (s->config->on_batch)
    s->config->on_batch (s->config->user, seq, b);
}

/* A string member the protocol check let through, or fallback (missing, null). */
static const char *
text_or (JsonObject *o, const char *name, const char *fallback)
{
  JsonNode *n = json_object_get_member (o, name);
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n)
                                                                                         : fallback;
}

/* One line of the channel (probe-process.h); FALSE ends the reading. */
gboolean
ls_target_pytorch_on_line (gpointer user, const char *line, gsize len)
{
  pt_run *s = user;
  if (s->broken)
    return FALSE;
  ls_probe_event ev;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) o = ls_probe_line_parse (&s->proto, line, len, &ev, &error);
  if (!o)
    {
      broken (s, error->message);
      return FALSE;
    }
  switch (ev)
    {
    case LS_PROBE_EV_PROBE:
      on_probe (s, o);
      break;
    case LS_PROBE_EV_LOADER:
      on_loader (s, o);
      break;
    case LS_PROBE_EV_WORKERS:
      on_workers (s, o);
      break;
    case LS_PROBE_EV_WORKER_READY:
      on_worker_ready (s, o);
      break;
    case LS_PROBE_EV_BATCH:
      /* The probe stops at --batches: more is not the probe writing. */
      if (s->config->max_batches && s->r->n_timeline >= s->config->max_batches)
        broken (s, "more batches than --batches");
      else
        on_batch (s, o);
      break;
    case LS_PROBE_EV_FINISHED:
      /* The probe's own end carries the token it took out of its
       * environment before the script ran; a line the script wrote does
       * not (a forged end followed by os._exit(0) is no finished run). */
      if (g_strcmp0 (text_or (o, "end", NULL), s->end_token) != 0)
        {
          char msg[LS_ERROR_MESSAGE_MAX];
          g_snprintf (msg, sizeof msg,
                      /* untranslated: the run's error, kept in the store */
                      "%s wrote a \"finished\" line that is not the probe's own end (its end proof is %s); the run "
                      "is not taken as done",
                      s->base, text_or (o, "end", NULL) ? "wrong" : "missing");
          fail (s, LS_RUN_FAILED, msg);
          s->broken = TRUE;
          return FALSE;
        }
      s->finished = TRUE;
      s->probe_cpu_ms = ls_json_number_or (o, "cpu_ms", -1);
      json_object_set_string_member (s->target, "ended", text_or (o, "reason", "?"));
      break;
    case LS_PROBE_EV_STAGES:
      on_stages (s, o);
      break;
    case LS_PROBE_EV_RANKS:
      ls_target_ranks_take (s->target, o);
      break;
    case LS_PROBE_EV_ERROR:
      {
        s->failed = TRUE;
        fail (s, LS_RUN_FAILED, text_or (o, "message", "the script failed"));
        json_object_set_string_member (s->target, "error_kind", text_or (o, "kind", "?"));
        const char *tb = text_or (o, "traceback", NULL);
        if (tb)
          json_object_set_string_member (s->target, "traceback", tb);
      }
      break;
    }
  if (!s->broken)
    ls_phase_event (&s->phase, ev, ls_clock_ns ());
  return !s->broken;
}
