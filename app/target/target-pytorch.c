/* The user's PyTorch script as the run's target (target-pytorch.h). */
#include "app/target/target-pytorch.h"
#include "app/core/i18n.h"

#include <gio/gio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/core/json-util.h"
#include "app/core/run-options.h"
#include "app/core/run-summary.h"
#include "app/core/summary-keys.h"
#include "app/core/worker-path.h"
#include "loader/gpumon.h"
#include "app/core/terminal-text.h"
#include "app/target/probe-line.h"
#include "app/target/probe-phase.h"
#include "app/target/probe-process.h"
#include "app/target/target-ranks.h"
#include "platform/clock.h"
#include "platform/procmem.h"
#include "platform/process-identity.h"
#include "platform/process.h"

char *
ls_target_probe_dir (GError **error)
{
  const char *env = g_getenv ("LOADSCOPE_PROBE_PATH");
  g_autofree char *exe = ls_self_exe_path ();
  g_autofree char *dir = g_path_get_dirname (exe);
  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);
  if (env && *env)
    g_ptr_array_add (tried, g_strdup (env));
  g_ptr_array_add (tried, g_build_filename (dir, "..", "data", "probe", NULL));
  g_ptr_array_add (tried, g_build_filename (dir, "..", "share", "loadscope", "probe", NULL));
  for (guint i = 0; i < tried->len; i++)
    {
      g_autofree char *init = g_build_filename (tried->pdata[i], "loadscope_probe", "__main__.py", NULL);
      if (g_file_test (init, G_FILE_TEST_IS_REGULAR))
        return g_canonicalize_filename (tried->pdata[i], NULL);
    }
  g_autoptr (GString) looked = g_string_new (NULL);
  for (guint i = 0; i < tried->len; i++)
    g_string_append_printf (looked, "%s%s", i ? ", " : "", (char *) tried->pdata[i]);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("the PyTorch probe (loadscope_probe) was not found (looked in %s); build with `meson compile` or "
               "install with `meson install`, or set LOADSCOPE_PROBE_PATH"),
               looked->str);
  return NULL;
}

char *
ls_target_pytorch_name (const char *script)
{
  g_autofree char *base = g_path_get_basename (script);
  return g_strdup_printf ("pytorch: %s", base);
}

/* (unused on Windows, where --target pytorch is refused) */
G_GNUC_UNUSED static char *
script_hash (const char *script)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (script, &data, &len, NULL))
    return NULL;
  g_autofree char *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
  return g_strndup (hex, 12);
}


#define SAMPLE_MS 100
#define MAX_PIDS 256
#define MAX_WORKER_RECORDS 65536

/* What the run loop keeps between events. */
typedef struct {
  ls_run_config *config;
  ls_run_result *r;
  JsonObject *target;
  ls_pid pid;                /* the interpreter's */
  uint64_t t0_ns;            /* the script started */
  ls_phase phase;            /* the run's phase and its clock (--timeout) */
  gboolean started;          /* on_started called */
  gboolean have_loader;
  gboolean finished;         /* the probe said "finished", with its end proof */
  const char *end_token;     /* the proof: random per run, given to the probe alone ($LOADSCOPE_PROBE_TOKEN) */
  gboolean failed;           /* the probe said "error" */
  double probe_cpu_ms;       /* the script's own CPU, as it reported at the end (< 0: not) */
  size_t cap_workers, cap_timeline, cap_series;
  ls_pid pids[MAX_PIDS];     /* every process sampled: [0] the script */
  uint64_t pid_cpu_ns[MAX_PIDS];
  size_t n_pids;
  double steps_sum_ms;
  gboolean copies_watched;   /* the probe times the script's copies to the device (CUDA) */
  size_t copies_timed;       /* measured batches whose copy it timed */
  ls_gpumon *gpumon;         /* NVML, when the script's device is CUDA */
  ls_probe_state proto;      /* the channel's protocol: the last batch seq */
  const char *base;          /* the script's file name (UTF-8), for messages */
  uint64_t script_start;     /* its start time (process identity): workers start later */
  gboolean broken;           /* the script broke the protocol: the run ends, failed */
  uint64_t measure_from_ns;  /* the first measured batch arrived (our clock) */
  uint64_t measure_to_ns;    /* the last batch arrived */
  unsigned knobs;            /* ls_knob_flag: the knobs given, the others are the script's */
} pt_run;

static void *
grow (void *p, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *q = realloc (p, n * size);
  if (!q)
    abort ();
  *cap = n;
  return q;
}

/* text as UTF-8 in dst, cut on a character: it may be the script's own
 * text or a file name, and the store and its export keep UTF-8. */
static void
copy_utf8 (char *dst, gsize size, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  const char *end = valid;
  while (*end && (gsize) (g_utf8_next_char (end) - valid) < size)
    end = g_utf8_next_char (end);
  memcpy (dst, valid, (gsize) (end - valid));
  dst[end - valid] = '\0';
}

static void
fail (pt_run *s, ls_run_status status, const char *message)
{
  if (s->r->status != LS_RUN_DONE)
    return; /* the first reason stands */
  s->r->status = status;
  copy_utf8 (s->r->error, sizeof s->r->error, message);
}

/* The script wrote what the probe never writes: the run ends, failed,
 * naming the script and the line's fault. */
static void
broken (pt_run *s, const char *why)
{
  char msg[LS_ERROR_MESSAGE_MAX];
  /* untranslated: the run's error, kept in the store */
  g_snprintf (msg, sizeof msg, "%s broke the probe's protocol (%s); it was stopped", s->base, why);
  fail (s, LS_RUN_FAILED, msg);
  s->broken = TRUE;
}

static void
ensure_started (pt_run *s)
{
  if (s->started)
    return;
  s->started = TRUE;
  if (s->config->on_started)
    s->config->on_started (s->config->user, s->r);
}

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
static gboolean
on_line (gpointer user, const char *line, gsize len)
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

/* One sample of the script and its workers, as loader/memsampler.c takes. */
static void
sample (pt_run *s, ls_memory_summary *m)
{
  ls_memory_point p = { 0 };
  unsigned valid = ~0u;
  gboolean any = FALSE;
  p.t_ms = (double) (ls_clock_ns () - s->t0_ns) / 1e6;
  for (size_t i = 0; i < s->n_pids; i++)
    {
      ls_procmem pm;
      ls_error err = { 0 };
      if (ls_procmem_read (s->pids[i], &pm, &err) != LS_OK)
        continue;
      any = TRUE;
      valid &= pm.valid;
      p.processes++;
      p.rss_bytes += pm.rss_bytes;
      p.pss_bytes += pm.pss_bytes;
      p.uss_bytes += pm.uss_bytes;
      p.working_set_bytes += pm.working_set_bytes;
      p.private_bytes += pm.private_bytes;
      if (i == 0)
        p.runner_pss_bytes = pm.pss_bytes;
      uint64_t user = 0, sys = 0;
      if (ls_proccpu_read (s->pids[i], &user, &sys, &err) == LS_OK)
        {
          s->pid_cpu_ns[i] = user + sys;
          p.cpu_ns += user + sys;
        }
    }
  if (!any)
    return;
  m->series = grow (m->series, &s->cap_series, m->n_series + 1, sizeof *m->series);
  m->series[m->n_series++] = p;
  m->samples++;
  m->valid |= valid;
  uint64_t *peak[] = { &m->peak.rss_bytes, &m->peak.pss_bytes, &m->peak.uss_bytes, &m->peak.working_set_bytes,
                       &m->peak.private_bytes };
  uint64_t now[] = { p.rss_bytes, p.pss_bytes, p.uss_bytes, p.working_set_bytes, p.private_bytes };
  for (size_t k = 0; k < G_N_ELEMENTS (now); k++)
    if (now[k] > *peak[k])
      *peak[k] = now[k];
  if (s->config->on_memory)
    s->config->on_memory (s->config->user, &p);
}

static void
memory_means (ls_memory_summary *m)
{
  m->peak.valid = m->mean.valid = m->valid;
  if (!m->n_series)
    return;
  double sum[5] = { 0 };
  for (size_t i = 0; i < m->n_series; i++)
    {
      sum[0] += (double) m->series[i].rss_bytes;
      sum[1] += (double) m->series[i].pss_bytes;
      sum[2] += (double) m->series[i].uss_bytes;
      sum[3] += (double) m->series[i].working_set_bytes;
      sum[4] += (double) m->series[i].private_bytes;
    }
  double n = (double) m->n_series;
  m->mean.rss_bytes = (uint64_t) (sum[0] / n);
  m->mean.pss_bytes = (uint64_t) (sum[1] / n);
  m->mean.uss_bytes = (uint64_t) (sum[2] / n);
  m->mean.working_set_bytes = (uint64_t) (sum[3] / n);
  m->mean.private_bytes = (uint64_t) (sum[4] / n);
}

/* The summary's figures from the timeline, as loader/run.c defines them:
 * the consumer's step of batch k ends when it calls next() for k+1. */
static void
figures (pt_run *s, double wall_s)
{
  ls_run_result *r = s->r;
  size_t n = r->n_timeline;
  uint32_t w = s->config->warmup;
  r->warmup_used = n > w ? w : 0;
  r->time_to_first_batch_ms = n ? r->timeline[0].ready_ms : -1;
  r->epoch_boundary_ms = -1;
  r->gpu_util_exact = -1;
  r->gpu_util_nvml = -1;
  double *waits = malloc ((n + 1) * sizeof *waits), *steps = malloc ((n + 1) * sizeof *steps);
  double *copies = malloc ((n + 1) * sizeof *copies);
  size_t m = 0, ns = 0, nc = 0;
  double boundary = 0, step_sum = 0;
  int boundaries = 0;
  for (size_t i = 0; i < n; i++)
    {
      const ls_batch_record *b = &r->timeline[i];
      if (b->batch == 0 && b->epoch > r->timeline[0].epoch)
        {
          boundary += b->wait_ms;
          boundaries++;
        }
      if (i < r->warmup_used)
        continue;
      waits[m++] = b->wait_ms;
      r->measured_samples += b->samples;
      if (b->compute_ms >= 0)
        {
          steps[ns++] = b->compute_ms;
          step_sum += b->compute_ms;
        }
      if (isfinite (b->copy_ms))
        copies[nc++] = b->copy_ms;
    }
  if (boundaries)
    r->epoch_boundary_ms = boundary / boundaries;
  r->wait_ms = ls_dist_of (waits, m);
  r->compute_ms = ls_dist_of (steps, ns);
  r->copy_ms = ls_dist_of (copies, nc);
  s->copies_timed = nc;
  free (copies);
  s->steps_sum_ms = step_sum;
  if (m)
    {
      const ls_batch_record *last = &r->timeline[n - 1];
      double start = 0;
      if (r->warmup_used)
        {
          const ls_batch_record *wb = &r->timeline[r->warmup_used - 1];
          start = wb->ready_ms + (wb->compute_ms > 0 ? wb->compute_ms : 0);
        }
      else
        start = r->timeline[0].ready_ms - r->timeline[0].wait_ms;
      double end = last->ready_ms + (last->compute_ms > 0 ? last->compute_ms : 0);
      r->measured_s = (end - start) / 1e3;
      if (r->measured_s > 0)
        {
          r->throughput_sps = (double) r->measured_samples / r->measured_s;
          if (strcmp (r->sink_name, "cuda") == 0)
            r->gpu_util_exact = step_sum / (end - start);
        }
    }
  free (waits);
  free (steps);
  r->wall_s = wall_s;
  uint64_t cpu_ns = 0;
  for (size_t i = 0; i < s->n_pids; i++)
    cpu_ns += i == 0 && s->probe_cpu_ms >= 0 ? (uint64_t) (s->probe_cpu_ms * 1e6) : s->pid_cpu_ns[i];
  for (size_t i = 0; i < r->n_workers; i++)
    for (size_t k = 0; k < s->n_pids; k++)
      if (s->pids[k] == r->workers[i].pid)
        r->workers[i].cpu_ns = s->pid_cpu_ns[k];
  r->cpu_percent = wall_s > 0 ? (double) cpu_ns / 1e9 / wall_s * 100 : 0;
  r->cpu_ms_per_sample = r->samples ? (double) cpu_ns / 1e6 / (double) r->samples : 0;
  memory_means (&r->memory);
}

static char *
probe_config_json (const ls_target_pytorch *t, const ls_run_config *c)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  /* Only the knobs given: the probe leaves the others as the script set
   * them (the script's batch 16 and pin_memory=True stay). */
  if (t->knobs & LS_KNOB_WORKERS)
    {
      json_builder_set_member_name (b, "workers");
      json_builder_add_int_value (b, c->pool.num_workers);
    }
  if (t->knobs & LS_KNOB_BATCH_SIZE)
    {
      json_builder_set_member_name (b, "batch_size");
      json_builder_add_int_value (b, c->pool.batch_size);
    }
  if (t->knobs & LS_KNOB_PREFETCH)
    {
      json_builder_set_member_name (b, "prefetch");
      json_builder_add_int_value (b, c->pool.prefetch_factor);
    }
  if (t->knobs & LS_KNOB_PERSISTENT)
    {
      json_builder_set_member_name (b, "persistent");
      json_builder_add_boolean_value (b, c->pool.persistent_workers);
    }
  if (t->knobs & LS_KNOB_PIN)
    {
      json_builder_set_member_name (b, "pin");
      json_builder_add_string_value (b, ls_pin_mode_name (c->sink.pin));
    }
  if (t->knobs & LS_KNOB_START)
    {
      json_builder_set_member_name (b, "start");
      json_builder_add_string_value (b, ls_start_method_name (c->pool.start));
    }
  if (t->replay)
    {
      json_builder_set_member_name (b, "replay");
      json_builder_add_int_value (b, t->replay);
    }
  if (t->files_log)
    {
      json_builder_set_member_name (b, "files_log");
      json_builder_add_string_value (b, t->files_log);
    }
  ls_target_ranks_config (b, t->ranks, t->threads, c->warmup);
  ls_target_ranks_launcher (b, t->launcher);
  json_builder_set_member_name (b, "loader");
  json_builder_add_int_value (b, t->loader);
  json_builder_set_member_name (b, "batches");
  json_builder_add_int_value (b, (gint64) c->max_batches);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

gboolean
ls_target_pytorch_run (const ls_target_pytorch *t, ls_run_config *config, ls_run_result *result,
                       JsonObject *target, GError **error)
{
  if (!t->script || !g_file_test (t->script, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("--script %s: no such file"), t->script ? t->script : "");
      return FALSE;
    }
  g_autofree char *probe = ls_target_probe_dir (error);
  if (!probe)
    return FALSE;
  g_auto (GStrv) args = NULL;
  if (t->script_args && *t->script_args && !g_shell_parse_argv (t->script_args, NULL, &args, error))
    {
      g_prefix_error (error, "--script-args: ");
      return FALSE;
    }
  g_autofree char *script = g_canonicalize_filename (t->script, NULL);
  g_autofree char *name = ls_target_pytorch_name (script);
  g_autofree char *hash = script_hash (script);
  /* A file name need not be UTF-8; what is stored and exported must be. */
  g_autofree char *name_text = g_utf8_make_valid (name, -1), *script_text = g_utf8_make_valid (script, -1);
  g_autofree char *base_name = g_path_get_basename (script);
  g_autofree char *base = g_utf8_make_valid (base_name, -1);
  /* The run's dataset column names the script. */
  if (!g_utf8_validate (config->pool.dataset.path, -1, NULL))
    {
      g_autofree char *raw = g_strdup (config->pool.dataset.path);
      copy_utf8 (config->pool.dataset.path, sizeof config->pool.dataset.path, raw);
    }
  json_object_set_string_member (target, "kind", "pytorch");
  json_object_set_string_member (target, "name", name_text);
  json_object_set_string_member (target, "script", script_text);
  json_object_set_string_member (target, "script_sha256", hash ? hash : "");
  g_autofree char *args_text = g_utf8_make_valid (t->script_args ? t->script_args : "", -1);
  json_object_set_string_member (target, "script_args", args_text);
  json_object_set_string_member (target, "python", t->python ? t->python : "python3");
  ls_target_ranks_describe (target, t->ranks, t->threads);
  if (t->ranks > 0)
    json_object_set_string_member (target, "launcher", t->launcher ? t->launcher : "probe");

  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  /* The probe's __main__.py by its path, not `-m loadscope_probe`: -m puts
   * the working folder first on sys.path, where a torch/ or a
   * loadscope_probe.py would shadow torch or the probe. A file's own
   * folder comes first instead, and the probe puts the script's there. */
  g_autofree char *probe_main = g_build_filename (probe, "loadscope_probe", "__main__.py", NULL);
  g_ptr_array_add (argv, (char *) (t->python ? t->python : "python3"));
  g_ptr_array_add (argv, probe_main);
  g_ptr_array_add (argv, script);
  for (char **a = args; a && *a; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);

  g_autofree char *cfg = probe_config_json (t, config);
  const char *old_path = g_getenv ("PYTHONPATH");
  g_autofree char *path = old_path && *old_path ? g_strconcat (probe, G_SEARCHPATH_SEPARATOR_S, old_path, NULL)
                                                 : g_strdup (probe);
  /* --threads: OpenMP reads it before the probe can call torch.set_num_threads. */
  g_autofree char *omp = t->threads > 0 ? g_strdup_printf ("%d", t->threads) : NULL;
  /* The probe's end proof: it takes it out of its environment before the
   * script runs, and its "finished" line carries it. */
  g_autofree char *token = g_uuid_string_random ();
  const char *env[] = { "PYTHONPATH", path, "LOADSCOPE_PROBE_CONFIG", cfg, "LOADSCOPE_PROBE_TOKEN", token,
                        omp ? "OMP_NUM_THREADS" : NULL, omp, NULL };
  g_autoptr (ls_probe_process) proc = ls_probe_process_start ((const char *const *) argv->pdata, env, error);
  if (!proc)
    return FALSE;

  pt_run s = { 0 };
  memset (result, 0, sizeof *result);
  result->status = LS_RUN_DONE;
  result->time_to_first_batch_ms = result->epoch_boundary_ms = result->gpu_util_exact = result->gpu_util_nvml = -1;
  g_strlcpy (result->sink_name, "none", sizeof result->sink_name);
  g_strlcpy (result->device_name, "cpu (the script's own step)", sizeof result->device_name);
  config->pool.epochs = 0; /* the script decides */
  s.config = config;
  s.r = result;
  s.target = target;
  s.knobs = t->knobs;
  s.probe_cpu_ms = -1;
  s.end_token = token;
  s.pid = (ls_pid) ls_probe_process_pid (proc);
  s.script_start = ls_process_start_time (s.pid);
  s.base = base;
  ls_probe_state_init (&s.proto);
  s.pids[s.n_pids++] = s.pid;
  s.t0_ns = ls_clock_ns ();
  ls_phase_init (&s.phase, config->pool.timeout_s, s.t0_ns);
  uint64_t next_sample = s.t0_ns;
  gboolean open = TRUE;

  /* Every turn waits at most SAMPLE_MS / 2 and reads at most 64 KiB, so
   * the timeout and the interrupt are looked at whatever the script writes
   * (or does not write, or closes). */
  for (;;)
    {
      g_autoptr (GError) line_error = NULL;
      ls_probe_read got = ls_probe_process_read (proc, SAMPLE_MS / 2, on_line, &s, &line_error);
      if (got == LS_PROBE_READ_ERROR)
        {
          if (line_error)
            broken (&s, line_error->message);
          break;
        }
      open = got == LS_PROBE_READ_MORE;
      uint64_t now = ls_clock_ns ();
      if (now >= next_sample)
        {
          sample (&s, &result->memory);
          next_sample = now + (uint64_t) SAMPLE_MS * 1000000u;
        }
      if (config->interrupt && *config->interrupt)
        {
          fail (&s, LS_RUN_INTERRUPTED, "interrupted");
          break;
        }
      /* The script ended (a worker it left may still hold the pipe: its
       * lines are read at the end). */
      if (ls_probe_process_exited (proc))
        break;
      if (!open)
        ls_phase_closed (&s.phase, now);
      if (ls_phase_expired (&s.phase, now))
        {
          char msg[LS_ERROR_MESSAGE_MAX];
          ls_phase_message (&s.phase, base, result->batches, msg, sizeof msg);
          fail (&s, LS_RUN_FAILED, msg);
          break;
        }
    }
  uint64_t end_ns = ls_clock_ns ();
  /* The probe ends the script; what it leaves behind (its workers, a
   * child in a session of its own, the per-run folder) goes with it. */
  sample (&s, &result->memory);
  ls_probe_process_end (proc, s.broken ? NULL : on_line, &s);

  /* The probe ends its process with status 0 once it said "finished":
   * anything else after it (a status, a signal) is not the probe's end. */
  const ls_exit_status *end_st = ls_probe_process_status (proc);
  if (result->status == LS_RUN_DONE && s.finished && end_st->kind != LS_EXIT_RUNNING
      && !(end_st->kind == LS_EXIT_CODE && end_st->code == 0))
    {
      char msg[LS_ERROR_MESSAGE_MAX], how[128];
      ls_exit_status_describe (end_st, how, sizeof how);
      /* untranslated: the run's error, kept in the store */
      g_snprintf (msg, sizeof msg, "%s reported its end, then %s%s (the probe's own end exits with status 0)", base,
                  end_st->kind == LS_EXIT_SIGNAL ? "was " : "", how);
      fail (&s, LS_RUN_FAILED, msg);
    }
  if (result->status == LS_RUN_DONE && !s.finished)
    {
      char msg[LS_ERROR_MESSAGE_MAX], how[128];
      const ls_exit_status *st = ls_probe_process_status (proc);
      ls_exit_status_describe (st, how, sizeof how);
      if (st->kind == LS_EXIT_CODE)
        /* untranslated: the run's error, kept in the store */
        g_snprintf (msg, sizeof msg, "%s ended with exit status %d before the probe reported", base, st->code);
      else
        g_snprintf (msg, sizeof msg, "%s %s%s", base, st->kind == LS_EXIT_SIGNAL ? "was " : "", how);
      fail (&s, LS_RUN_FAILED, msg);
    }
  ensure_started (&s);
  figures (&s, (double) (end_ns - s.t0_ns) / 1e9);
  ls_target_ranks_node (target, result);
  if (s.gpumon)
    {
      ls_gpumon_stop (s.gpumon, &result->gpu);
      if (s.measure_from_ns && s.measure_to_ns > s.measure_from_ns)
        {
          double from = ((double) s.measure_from_ns - (double) result->gpu.start_ns) / 1e6;
          double to = ((double) s.measure_to_ns - (double) result->gpu.start_ns) / 1e6;
          /* NVML is read every 100 ms: batches that came faster than that
           * are given the 250 ms around them, so at least one reading. */
          if (to - from < 250)
            {
              double mid = (from + to) / 2;
              g_snprintf (result->gpu_note, sizeof result->gpu_note,
                          /* untranslated: kept in the store with the run's figures */
                          "the measured batches took %.0f ms, less than NVML's readings allow: utilization over "
                          "the 250 ms around them",
                          to - from);
              from = mid - 125;
              to = mid + 125;
            }
          double util = ls_gpumon_mean_util (&result->gpu, from, to);
          result->gpu_util_nvml = util >= 0 ? util : -1;
        }
    }
  /* Where the copy per batch comes from, or why it is null, where a
   * reader meets it. */
  const char *copy_note = NULL;
  g_autofree char *timed_note = NULL;
  if (s.copies_timed > 0)
    copy_note = timed_note = g_strdup_printf (
        /* untranslated: kept in the store with the run's figures */
        "timed on the device: CUDA events around the script's own .to() / .cuda() of the batch's tensors "
        "(%" G_GSIZE_FORMAT " measured batches)", s.copies_timed);
  else if (config->sink.kind != LS_SINK_CUDA)
    copy_note = "none: the script's step runs on the CPU (torch.cuda.is_available() is False), so there is no copy "
                "to a device to time";
  else if (s.copies_watched)
    copy_note = "none seen: the script did not copy the batch's tensors to the device with .to() or .cuda() (a "
                "copy of its own making, or none, is not timed)";
  else
    copy_note = "not measured: the probe could not watch the script's copies to the device";
  json_object_set_string_member (target, "copy_note", copy_note);
  if (s.probe_cpu_ms >= 0)
    json_object_set_double_member (target, "script_cpu_ms", s.probe_cpu_ms);
  else
    json_object_set_double_member (target, "script_cpu_ms", (double) s.pid_cpu_ns[0] / 1e6);
  if (result->compute_ms.valid)
    json_object_set_double_member (target, "step_ms_p50", result->compute_ms.p50);
  if (result->measured_s > 0)
    json_object_set_double_member (target, "step_share", s.steps_sum_ms / (result->measured_s * 1e3));
  return TRUE;
}
