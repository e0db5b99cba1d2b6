#include "app/core/run-options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/record-ranges.h"
#include "app/core/worker-path.h"
#include "loader/pool.h"
#include "loader/transform.h"

#define LS_ERROR_DOMAIN g_quark_from_static_string ("loadscope-usage")

const ls_run_defaults ls_run_default = {
  .workers = LS_RUN_DEFAULT_WORKERS,
  .batch_size = LS_RUN_DEFAULT_BATCH_SIZE,
  .prefetch = LS_RUN_DEFAULT_PREFETCH,
  .persistent = LS_RUN_DEFAULT_PERSISTENT,
  .pin = LS_RUN_DEFAULT_PIN,
  .non_blocking = LS_RUN_DEFAULT_NON_BLOCKING,
  .start = LS_RUN_DEFAULT_START,
  .model_ms = LS_RUN_DEFAULT_MODEL_MS,
};

char *
ls_run_defaults_text (void)
{
  return g_strdup_printf (_("batch %d, prefetch %d, persistent workers %s, pin %s, non-blocking %s, start %s, "
                            "model step %d ms"),
                          LS_RUN_DEFAULT_BATCH_SIZE, LS_RUN_DEFAULT_PREFETCH, LS_RUN_DEFAULT_PERSISTENT_TEXT,
                          LS_RUN_DEFAULT_PIN_TEXT, LS_RUN_DEFAULT_NON_BLOCKING_TEXT, LS_RUN_DEFAULT_START_TEXT,
                          LS_RUN_DEFAULT_MODEL_MS);
}

void
ls_run_options_init (ls_run_options *o)
{
  memset (o, 0, sizeof *o);
  o->count = 2000;
  o->crop = LS_DEFAULT_CROP;
  o->pixel_limit_mp = LS_DEFAULT_PIXEL_LIMIT / 1e6;
  /* not given until parsed: a script keeps its own (resolve takes the
   * defaults for Loadscope's loader) */
  o->workers = LS_RUN_KNOB_UNSET;
  o->batch_size = LS_RUN_KNOB_UNSET;
  o->prefetch = LS_RUN_KNOB_UNSET;
  o->epochs = -1;
  o->batches = 0;
  o->warmup = -1;
  o->seed = 0;
  o->timeout = 60;
  o->fail_every = 0;
  o->crash_at = -1;
  o->hang_at = -1;
  o->model_ms = ls_run_default.model_ms;
}

void
ls_run_options_clear (ls_run_options *o)
{
  g_free (o->dataset);
  g_free (o->format);
  g_free (o->size);
  g_free (o->persistent);
  g_free (o->start);
  g_free (o->sink);
  g_free (o->on_error);
  g_free (o->output);
  g_free (o->shuffle);
  g_free (o->in_order);
  g_free (o->pin);
  g_free (o->non_blocking);
  g_free (o->db);
  g_free (o->events);
  g_free (o->target);
  g_free (o->script);
  g_free (o->python);
  g_free (o->script_args);
  g_free (o->launcher);
}

gboolean
ls_run_options_pytorch (const ls_run_options *o)
{
  return o->target && strcmp (o->target, "pytorch") == 0;
}

guint
ls_run_options_knobs_given (const ls_run_options *o)
{
  return (o->workers != LS_RUN_KNOB_UNSET ? LS_KNOB_WORKERS : 0)
         | (o->batch_size != LS_RUN_KNOB_UNSET ? LS_KNOB_BATCH_SIZE : 0)
         | (o->prefetch != LS_RUN_KNOB_UNSET ? LS_KNOB_PREFETCH : 0) | (o->persistent ? LS_KNOB_PERSISTENT : 0)
         | (o->pin ? LS_KNOB_PIN : 0) | (o->start ? LS_KNOB_START : 0);
}

/* The help of the knobs whose default is a constant of run-options.h: a
 * sentence of the catalogue with the default put in when shown. Built once
 * (GOption keeps pointers to the texts it shows), in the locale of the
 * first call. */
enum
{
  HELP_WORKERS,
  HELP_BATCH_SIZE,
  HELP_PREFETCH,
  HELP_PERSISTENT,
  HELP_START,
  HELP_PIN,
  HELP_NON_BLOCKING,
  HELP_MODEL_MS,
  N_HELP
};
static const char *default_help[N_HELP];
#define DEFAULT_HELP(K) default_help[HELP_##K]

static void
build_default_help (void)
{
  static gsize built = 0;
  if (!g_once_init_enter (&built))
    return;
  default_help[HELP_WORKERS]
      = g_strdup_printf (_("Worker processes; 0 loads in this process (default %d)"), LS_RUN_DEFAULT_WORKERS);
  default_help[HELP_BATCH_SIZE] = g_strdup_printf (_("Samples per batch (default %d)"), LS_RUN_DEFAULT_BATCH_SIZE);
  default_help[HELP_PREFETCH]
      = g_strdup_printf (_("Batches in flight per worker (default %d)"), LS_RUN_DEFAULT_PREFETCH);
  default_help[HELP_PERSISTENT]
      = g_strdup_printf (_("Keep workers across epochs (default %s, as PyTorch)"), LS_RUN_DEFAULT_PERSISTENT_TEXT);
  default_help[HELP_START] = g_strdup_printf (_("How workers start (default %s)"), LS_RUN_DEFAULT_START_TEXT);
  default_help[HELP_PIN] = g_strdup_printf (_("Host memory the copy reads: pageable, a pinned staging copy (PyTorch's "
                                               "pin_memory), or the pinned arena itself (default %s)"),
                                            LS_RUN_DEFAULT_PIN_TEXT);
  default_help[HELP_NON_BLOCKING]
      = g_strdup_printf (_("Copy asynchronously on a copy stream, overlapped with the model step (default %s)"),
                         LS_RUN_DEFAULT_NON_BLOCKING_TEXT);
  default_help[HELP_MODEL_MS]
      = g_strdup_printf (_("Device busy time of the model step per batch, in ms (default %g)"),
                         (double) LS_RUN_DEFAULT_MODEL_MS);
  g_once_init_leave (&built, 1);
}

/* The option texts are marked N_() and translated by GOption (the
 * groups' translation domain); the DataLoader knobs' values (on|off,
 * fork|spawn ...) stay as typed. */
void
ls_run_options_add_to (ls_run_options *o, GOptionContext *context)
{
  build_default_help ();
  GOptionEntry knobs[] = {
    { "dataset", 0, 0, G_OPTION_ARG_STRING, &o->dataset,
      N_("What to load: a folder of class folders of JPEGs, an HDF5 file, or 'synthetic'"), "PATH|synthetic" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o->format, N_("Dataset format (default auto: by the path)"),
      "auto|jpeg-dir|hdf5" },
    { "crop", 0, 0, G_OPTION_ARG_INT, &o->crop, N_("Side of the random resized crop of images (default 224)"), "N" },
    { "pixel-limit", 0, 0, G_OPTION_ARG_DOUBLE, &o->pixel_limit_mp,
      N_("Refuse images larger than this many megapixels (default 64)"), "MP" },
    { "workers", 0, 0, G_OPTION_ARG_INT, &o->workers, DEFAULT_HELP (WORKERS), "N" },
    { "batch-size", 0, 0, G_OPTION_ARG_INT, &o->batch_size, DEFAULT_HELP (BATCH_SIZE), "B" },
    { "prefetch", 0, 0, G_OPTION_ARG_INT, &o->prefetch, DEFAULT_HELP (PREFETCH), "P" },
    { "persistent", 0, 0, G_OPTION_ARG_STRING, &o->persistent, DEFAULT_HELP (PERSISTENT), "on|off" },
    { "start", 0, 0, G_OPTION_ARG_STRING, &o->start, DEFAULT_HELP (START), "fork|spawn" },
    { "shuffle", 0, 0, G_OPTION_ARG_STRING, &o->shuffle, N_("Shuffle each epoch (default on)"), "on|off" },
    { "drop-last", 0, 0, G_OPTION_ARG_NONE, &o->drop_last, N_("Drop the last partial batch of each epoch"), NULL },
    { "in-order", 0, 0, G_OPTION_ARG_STRING, &o->in_order, N_("Deliver batches in order (default on)"), "on|off" },
    { "epochs", 0, 0, G_OPTION_ARG_INT, &o->epochs, N_("Epochs to run (default 1; with --batches, as many as needed)"), "E" },
    { "batches", 0, 0, G_OPTION_ARG_INT64, &o->batches, N_("Stop after K batches"), "K" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &o->warmup, N_("Batches left out of the figures (default: workers, at least 1)"), "W" },
    { "sink", 0, 0, G_OPTION_ARG_STRING, &o->sink,
      N_("Consumer of the batches: a CUDA GPU, a simulated one, or none (default auto: cuda if a GPU answers, else sim)"),
      "auto|cuda|sim|none" },
    { "pin", 0, 0, G_OPTION_ARG_STRING, &o->pin,
      DEFAULT_HELP (PIN),
      "off|staging|arena" },
    { "non-blocking", 0, 0, G_OPTION_ARG_STRING, &o->non_blocking,
      DEFAULT_HELP (NON_BLOCKING), "on|off" },
    { "model-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->model_ms, DEFAULT_HELP (MODEL_MS),
      "X" },
    { "device", 0, 0, G_OPTION_ARG_INT, &o->device, N_("CUDA device index (default 0)"), "N" },
    { "sim-bandwidth-pageable", 0, 0, G_OPTION_ARG_DOUBLE, &o->sim_bw_pageable,
      N_("Sim sink: host-to-device GB/s from pageable memory (default 6)"), "GBPS" },
    { "sim-bandwidth-pinned", 0, 0, G_OPTION_ARG_DOUBLE, &o->sim_bw_pinned,
      N_("Sim sink: host-to-device GB/s from pinned memory (default 24)"), "GBPS" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &o->seed, N_("Seed of shuffling and random transforms (default 0)"), "S" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &o->timeout, N_("Seconds to wait for a batch before failing, counted once the workers have started (a start may take up to 120 s); 0 waits forever (default 60)"), "SEC" },
    { "on-error", 0, 0, G_OPTION_ARG_STRING, &o->on_error, N_("A sample that fails stops the run, or is replaced and counted (default fail)"), "fail|skip" },
    { "output", 0, 0, G_OPTION_ARG_STRING, &o->output, N_("Sample layout (default f32-chw)"), "f32-chw|u8-hwc" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, N_("Print the run summary as one JSON object"), NULL },
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &o->db, N_("The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)"),
      "PATH" },
    { "no-db", 0, 0, G_OPTION_ARG_NONE, &o->no_db, N_("Do not record the run"), NULL },
    { "events", 0, 0, G_OPTION_ARG_FILENAME, &o->events, N_("Stream the run as JSON lines to FILE (- for stdout)"),
      "FILE|-" },
    { "sweep-id", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT64, &o->sweep_id, N_("The sweep this run belongs to"), "ID" },
    { "checksum", 0, 0, G_OPTION_ARG_NONE, &o->checksum, N_("Hash every batch (shows the batches are identical across knobs)"), NULL },
    { "diagnose", 0, 0, G_OPTION_ARG_NONE, &o->diagnose,
      N_("Run the knobs three times (data prepared -- for a script: its first batches replayed --, dataset in page "
         "cache, evicted from it) and separate GPU (or the script's step) time, "
         "preparation stall and fetch stall; not recorded"), NULL },
    { NULL },
  };
  GOptionEntry synthetic[] = {
    { "count", 0, 0, G_OPTION_ARG_INT64, &o->count, N_("Samples (default 2000)"), "N" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &o->size, N_("Sample size (default 224x224)"), "WxH" },
    { "sample-cost-us", 0, 0, G_OPTION_ARG_INT, &o->sample_cost_us, N_("CPU work per sample in microseconds (default 0)"), "U" },
    { NULL },
  };
  GOptionEntry faults[] = {
    { "fail-every", 0, 0, G_OPTION_ARG_INT64, &o->fail_every, N_("Every K-th sample fails to read"), "K" },
    { "crash-at", 0, 0, G_OPTION_ARG_INT64, &o->crash_at, N_("The worker reading sample I crashes"), "I" },
    { "hang-at", 0, 0, G_OPTION_ARG_INT64, &o->hang_at, N_("The worker reading sample I hangs"), "I" },
    { NULL },
  };
  GOptionEntry target[] = {
    { "target", 0, 0, G_OPTION_ARG_STRING, &o->target,
      N_("What is measured: Loadscope's own loader over --dataset, or your PyTorch script's DataLoader (default loadscope)"),
      "loadscope|pytorch" },
    { "script", 0, 0, G_OPTION_ARG_FILENAME, &o->script, N_("--target pytorch: the training script, run unmodified"),
      "FILE.py" },
    { "python", 0, 0, G_OPTION_ARG_FILENAME, &o->python, N_("--target pytorch: the interpreter (default python3)"),
      "PATH" },
    { "script-args", 0, 0, G_OPTION_ARG_STRING, &o->script_args,
      N_("--target pytorch: the script's arguments, split as a shell would"), "\"ARGS\"" },
    { "loader", 0, 0, G_OPTION_ARG_INT, &o->loader,
      N_("--target pytorch: which DataLoader gets the knobs and is measured, from 0 in the order the script builds "
         "them (default 0)"), "N" },
    { "ranks", 0, 0, G_OPTION_ARG_INT, &o->ranks,
      N_("--target pytorch: start N ranks of the script as `torchrun --standalone --nproc-per-node N` does "
         "(RANK, WORLD_SIZE, MASTER_ADDR/PORT on the loopback), each measured; --workers is per rank"), "N" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &o->threads,
      N_("--target pytorch: intra-op threads of the script (of each rank): OMP_NUM_THREADS and "
         "torch.set_num_threads (default: the script's own; torchrun's 1 with --ranks above 1)"), "T" },
    { "launcher", 0, 0, G_OPTION_ARG_STRING, &o->launcher,
      N_("--target pytorch --ranks N: who starts the ranks: probe (as torchrun does, the default) or torchrun (your "
         "own `torchrun --standalone --nproc-per-node N` from PATH, the probe in each rank)"), "probe|torchrun" },
    { NULL },
  };

  g_option_context_add_main_entries (context, knobs, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, target, GETTEXT_PACKAGE);
  /* GOption shows a group's title as given (its --help-NAME line it
   * translates through the domain): the titles are translated here. */
  GOptionGroup *g = g_option_group_new ("synthetic", _("Synthetic dataset (--dataset synthetic):"),
                                        N_("Show the synthetic dataset's options"), NULL, NULL);
  g_option_group_set_translation_domain (g, GETTEXT_PACKAGE);
  g_option_group_add_entries (g, synthetic);
  g_option_context_add_group (context, g);
  g = g_option_group_new ("faults", _("Fault injection (synthetic dataset), to see how failures are reported:"),
                          N_("Show the fault-injection options"), NULL, NULL);
  g_option_group_set_translation_domain (g, GETTEXT_PACKAGE);
  g_option_group_add_entries (g, faults);
  g_option_context_add_group (context, g);
}

const char *
ls_start_method_name (ls_start_method m)
{
  return m == LS_START_SPAWN ? "spawn" : "fork";
}

static gboolean
parse_on_off (const char *option, const char *value, gboolean fallback, gboolean *out, GError **error)
{
  if (!value)
    *out = fallback;
  else if (strcmp (value, "on") == 0 || strcmp (value, "true") == 0 || strcmp (value, "1") == 0)
    *out = TRUE;
  else if (strcmp (value, "off") == 0 || strcmp (value, "false") == 0 || strcmp (value, "0") == 0)
    *out = FALSE;
  else
    {
      g_set_error (error, LS_ERROR_DOMAIN, 2, _("--%s %s: expected on or off"), option, value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_size (const char *text, uint32_t *w, uint32_t *h, GError **error)
{
  char *end = NULL;
  unsigned long long a, b;

  errno = 0;
  a = strtoull (text, &end, 10);
  if (errno || end == text || (*end != 'x' && *end != 'X'))
    goto bad;
  const char *rest = end + 1;
  b = strtoull (rest, &end, 10);
  if (errno || end == rest || *end || a == 0 || b == 0 || a > 65535 || b > 65535)
    goto bad;
  *w = (uint32_t) a;
  *h = (uint32_t) b;
  return TRUE;
bad:
  g_set_error (error, LS_ERROR_DOMAIN, 2, _("--size %s: expected WIDTHxHEIGHT such as 224x224"), text);
  return FALSE;
}

static gboolean
fail (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, LS_ERROR_DOMAIN, 2, msg);
  g_free (msg);
  return FALSE;
}

/* A floating-point knob: finite and within [min, max]. Written so that NaN,
 * which fails every comparison, fails it too (--model-ms nan). */
static gboolean
real_in (double v, double min, double max)
{
  return isfinite (v) && v >= min && v <= max;
}

gboolean
ls_run_options_resolve (const ls_run_options *o, ls_run_config *config, GError **error)
{
  ls_pool_config *pool = &config->pool;
  ls_dataset_spec *spec = &pool->dataset;
  gboolean persistent, shuffle, in_order;

  memset (config, 0, sizeof *config);
  ls_pool_config_init (pool);

  if (o->target && !ls_run_options_pytorch (o) && strcmp (o->target, "loadscope") != 0)
    return fail (error, _("--target %s: expected loadscope or pytorch"), o->target);
  if (ls_run_options_pytorch (o))
    {
      if (!o->script)
        return fail (error, _("--target pytorch needs --script FILE.py (the training script to measure)"));
      if (o->dataset)
        return fail (error, _("--dataset is for --target loadscope: a PyTorch script loads its own data"));
      if (o->loader < 0)
        return fail (error, _("--loader %d: must not be negative"), o->loader);
      if (o->ranks < 0 || o->ranks > LS_RUN_MAX_RANKS)
        return fail (error, _("--ranks %d: must be between 1 and %d (one process per GPU of a node)"), o->ranks,
                     LS_RUN_MAX_RANKS);
      if (o->threads < 0 || o->threads > LS_RUN_MAX_THREADS)
        return fail (error, _("--threads %d: must be between 1 and %d"), o->threads, LS_RUN_MAX_THREADS);
      if (o->launcher && strcmp (o->launcher, "probe") != 0 && strcmp (o->launcher, "torchrun") != 0)
        return fail (error, _("--launcher '%s': must be probe or torchrun"), o->launcher);
      if (o->launcher && !o->ranks)
        return fail (error, _("--launcher is for --ranks N (who starts the ranks)"));
      if (o->ranks && o->diagnose)
        return fail (error, _("--diagnose measures one process: it does not take --ranks"));
      if (strlen (o->script) >= sizeof spec->path)
        return fail (error, _("--script: the path is longer than %zu bytes"), sizeof spec->path - 1);
      g_strlcpy (spec->kind, "pytorch", sizeof spec->kind);
      g_strlcpy (spec->path, o->script, sizeof spec->path);
    }
  else if (o->script || o->python || o->script_args)
    return fail (error, _("--script, --python and --script-args are for --target pytorch"));
  else if (o->ranks || o->threads)
    return fail (error, _("--ranks and --threads are for --target pytorch (the script's ranks and threads)"));
  else if (o->launcher)
    return fail (error, _("--launcher is for --target pytorch --ranks N (who starts the script's ranks)"));
  else if (!o->dataset)
    return fail (error, _("--dataset is missing: give a folder of class folders of JPEGs, an HDF5 file, or 'synthetic'"));
  if (o->crop < 1 || o->crop > 4096)
    return fail (error, _("--crop %d: must be between 1 and 4096"), o->crop);
  if (!real_in (o->pixel_limit_mp, 0, 1e5) || !(o->pixel_limit_mp > 0))
    return fail (error, _("--pixel-limit %g: must be more than 0 and at most 100000 (MP)"), o->pixel_limit_mp);
  if (spec->kind[0])
    ; /* --target pytorch: the script's own data */
  else if (strcmp (o->dataset, "synthetic") == 0)
    {
      if (o->format && strcmp (o->format, "auto") != 0)
        return fail (error, _("--format %s: the synthetic dataset has no format to choose"), o->format);
      g_strlcpy (spec->kind, "synthetic", sizeof spec->kind);
      if (o->count <= 0)
        return fail (error, _("--count %lld: must be at least 1"), (long long) o->count);
      spec->count = (uint64_t) o->count;
      spec->width = spec->height = 224;
      if (o->size && !parse_size (o->size, &spec->width, &spec->height, error))
        return FALSE;
      if (o->sample_cost_us < 0 || o->sample_cost_us > 10000000)
        return fail (error, _("--sample-cost-us %d: must be between 0 and 10000000"), o->sample_cost_us);
      spec->sample_cost_us = (uint32_t) o->sample_cost_us;
      if (spec->sample_cost_us)
        spec->work_per_us = ls_synthetic_calibrate ();
    }
  else
    {
      ls_error err = { 0 };
      const char *kind = NULL;
      if (!o->format || strcmp (o->format, "auto") == 0)
        {
          kind = ls_dataset_detect_kind (o->dataset, &err);
          if (!kind)
            return fail (error, "--dataset %s", err.message);
        }
      else if (strcmp (o->format, "jpeg-dir") == 0 || strcmp (o->format, "hdf5") == 0)
        kind = o->format;
      else
        return fail (error, _("--format %s: expected auto, jpeg-dir or hdf5"), o->format);
      if (strlen (o->dataset) >= sizeof spec->path)
        return fail (error, _("--dataset: the path is longer than %zu bytes"), sizeof spec->path - 1);
      g_strlcpy (spec->kind, kind, sizeof spec->kind);
      g_strlcpy (spec->path, o->dataset, sizeof spec->path);
      spec->width = spec->height = (uint32_t) o->crop;
      spec->pixel_limit = (uint64_t) (o->pixel_limit_mp * 1e6);
      if (o->size || o->sample_cost_us || o->fail_every > 0 || o->crash_at >= 0 || o->hang_at >= 0)
        return fail (error, _("--size, --sample-cost-us and the fault-injection options are for --dataset synthetic"));
    }
  if (o->seed < 0)
    return fail (error, _("--seed %lld: must not be negative"), (long long) o->seed);
  spec->seed = (uint64_t) o->seed;
  pool->seed = (uint64_t) o->seed;

  if (!o->output || strcmp (o->output, "f32-chw") == 0)
    spec->output = LS_OUTPUT_F32_CHW;
  else if (strcmp (o->output, "u8-hwc") == 0)
    spec->output = LS_OUTPUT_U8_HWC;
  else
    return fail (error, _("--output %s: expected f32-chw or u8-hwc"), o->output);

  if (o->fail_every < 0)
    return fail (error, _("--fail-every %lld: must not be negative"), (long long) o->fail_every);
  spec->fail_every = (uint64_t) o->fail_every;
  spec->crash_at = o->crash_at >= 0 ? (uint64_t) o->crash_at + 1 : 0;
  spec->hang_at = o->hang_at >= 0 ? (uint64_t) o->hang_at + 1 : 0;

  int workers = o->workers != LS_RUN_KNOB_UNSET ? o->workers : ls_run_default.workers;
  int batch_size = o->batch_size != LS_RUN_KNOB_UNSET ? o->batch_size : ls_run_default.batch_size;
  int prefetch = o->prefetch != LS_RUN_KNOB_UNSET ? o->prefetch : ls_run_default.prefetch;
  if (workers < 0 || workers > LS_POOL_MAX_WORKERS)
    return fail (error, _("--workers %d: must be between 0 and %d"), workers, LS_POOL_MAX_WORKERS);
  pool->num_workers = (uint32_t) workers;
  if (batch_size < 1 || batch_size > 65536)
    return fail (error, _("--batch-size %d: must be between 1 and 65536"), batch_size);
  pool->batch_size = (uint32_t) batch_size;
  if (prefetch < 1 || prefetch > 64)
    return fail (error, _("--prefetch %d: must be between 1 and 64"), prefetch);
  pool->prefetch_factor = (uint32_t) prefetch;
  if (!parse_on_off ("persistent", o->persistent, ls_run_default.persistent, &persistent, error)
      || !parse_on_off ("shuffle", o->shuffle, TRUE, &shuffle, error)
      || !parse_on_off ("in-order", o->in_order, TRUE, &in_order, error))
    return FALSE;
  pool->persistent_workers = persistent;
  pool->shuffle = shuffle;
  pool->in_order = in_order;
  pool->drop_last = o->drop_last;

  if (!o->start)
    pool->start = ls_run_default.start;
  else if (strcmp (o->start, "fork") == 0)
    {
#ifdef G_OS_WIN32
      /* said before any run starts, so a sweep refuses its whole grid */
      return fail (error, _("--start fork: Windows has no fork; workers start as spawned loadscope-worker.exe "
                            "(--start spawn)"));
#endif
      pool->start = LS_START_FORK;
    }
  else if (strcmp (o->start, "spawn") == 0)
    pool->start = LS_START_SPAWN;
  else
    return fail (error, _("--start %s: expected fork or spawn"), o->start);
  if (pool->start == LS_START_SPAWN)
    pool->worker_path = ls_worker_path_for_process ();

  if (!o->on_error || strcmp (o->on_error, "fail") == 0)
    pool->skip_bad_samples = false;
  else if (strcmp (o->on_error, "skip") == 0)
    pool->skip_bad_samples = true;
  else
    return fail (error, _("--on-error %s: expected fail or skip"), o->on_error);

  if (!real_in (o->timeout, 0, 1e7))
    return fail (error, _("--timeout %g: must be between 0 and 10000000 s (0 waits forever)"), o->timeout);
  pool->timeout_s = o->timeout;

  if (o->batches < 0 || (double) o->batches > LS_RECORD_MAX_COUNT)
    return fail (error, _("--batches %lld: must be between 0 and %.0f (what the store keeps)"),
                 (long long) o->batches, LS_RECORD_MAX_COUNT);
  config->max_batches = (uint64_t) o->batches;
  if (o->epochs == 0 || o->epochs < -1 || o->epochs > LS_RECORD_MAX_EPOCHS)
    return fail (error, _("--epochs %d: must be between 1 and %d (what the store keeps)"), o->epochs,
                 LS_RECORD_MAX_EPOCHS);
  /* --batches alone runs as many epochs as it takes. */
  pool->epochs = o->epochs > 0 ? (uint32_t) o->epochs : (o->batches > 0 ? 0 : 1);
  if (o->warmup < -1)
    return fail (error, _("--warmup %d: must not be negative"), o->warmup);
  config->warmup = o->warmup >= 0 ? (uint32_t) o->warmup : (pool->num_workers ? pool->num_workers : 1);

  ls_sink_config *sink = &config->sink;
  ls_sink_config_init (sink);
  if (!o->sink || strcmp (o->sink, "auto") == 0)
    sink->kind = LS_SINK_AUTO;
  else if (strcmp (o->sink, "cuda") == 0)
    sink->kind = LS_SINK_CUDA;
  else if (strcmp (o->sink, "sim") == 0)
    sink->kind = LS_SINK_SIM;
  else if (strcmp (o->sink, "none") == 0)
    sink->kind = LS_SINK_NONE;
  else
    return fail (error, _("--sink %s: expected auto, cuda, sim or none"), o->sink);
  if (!o->pin)
    sink->pin = ls_run_default.pin;
  else if (strcmp (o->pin, "off") == 0)
    sink->pin = LS_PIN_OFF;
  else if (strcmp (o->pin, "staging") == 0)
    sink->pin = LS_PIN_STAGING;
  else if (strcmp (o->pin, "arena") == 0)
    sink->pin = LS_PIN_ARENA;
  else
    return fail (error, _("--pin %s: expected off, staging or arena"), o->pin);
  gboolean non_blocking;
  if (!parse_on_off ("non-blocking", o->non_blocking, ls_run_default.non_blocking, &non_blocking, error))
    return FALSE;
  sink->non_blocking = non_blocking;
  if (!real_in (o->model_ms, 0, 60000))
    return fail (error, _("--model-ms %g: must be between 0 and 60000"), o->model_ms);
  sink->model_ms = o->model_ms;
  if (o->device < 0)
    return fail (error, _("--device %d: must not be negative"), o->device);
  sink->device = o->device;
  /* 0: the sim sink's default; else 0.01 (a batch of 64 f32 224² in 4 s) to 10000 GB/s */
  if (!real_in (o->sim_bw_pageable, 0, 1e4) || (o->sim_bw_pageable > 0 && o->sim_bw_pageable < 0.01))
    return fail (error, _("--sim-bandwidth-pageable %g: must be 0 (the default) or between 0.01 and 10000 GB/s"),
                 o->sim_bw_pageable);
  if (!real_in (o->sim_bw_pinned, 0, 1e4) || (o->sim_bw_pinned > 0 && o->sim_bw_pinned < 0.01))
    return fail (error, _("--sim-bandwidth-pinned %g: must be 0 (the default) or between 0.01 and 10000 GB/s"),
                 o->sim_bw_pinned);
  sink->sim_bandwidth_gbps[LS_PIN_OFF] = o->sim_bw_pageable;
  sink->sim_bandwidth_gbps[LS_PIN_STAGING] = o->sim_bw_pinned;
  sink->sim_bandwidth_gbps[LS_PIN_ARENA] = o->sim_bw_pinned;
  config->checksum = o->checksum;
  config->sample_interval_ms = 100;
  return TRUE;
}
