#include "app/core/run-summary.h"
#include "app/core/i18n.h"

#include "app/core/run-options.h"
#include "app/core/summary-keys.h"
#include "app/core/terminal-text.h"

#include <math.h>
#include <string.h>

const char *
ls_run_status_name (ls_run_status status)
{
  switch (status)
    {
    case LS_RUN_DONE: return "done";
    case LS_RUN_FAILED: return "failed";
    case LS_RUN_INTERRUPTED: return "interrupted";
    default: return "unknown";
    }
}

const char *
ls_stage_name (int stage)
{
  static const char *const names[LS_N_STAGES] = { "read", "decode", "transform", "write", "idle", "busy" };
  return stage >= 0 && stage < LS_N_STAGES ? names[stage] : "?";
}

double
ls_batch_record_stage (const ls_batch_record *b, int stage)
{
  switch (stage)
    {
    case LS_STAGE_READ: return b->read_ms;
    case LS_STAGE_DECODE: return b->decode_ms;
    case LS_STAGE_TRANSFORM: return b->transform_ms;
    case LS_STAGE_WRITE: return b->write_ms;
    case LS_STAGE_IDLE: return b->idle_ms;
    case LS_STAGE_BUSY: return b->busy_ms;
    default: return 0;
    }
}

const char *
ls_script_stage_name (int stage)
{
  static const char *const names[LS_N_SCRIPT_STAGES] = { "sampler", "getitem", "collate", "handoff", "pin" };
  return stage >= 0 && stage < LS_N_SCRIPT_STAGES ? names[stage] : "?";
}

double
ls_batch_record_script_stage (const ls_batch_record *b, int stage)
{
  switch (stage)
    {
    case LS_SCRIPT_STAGE_SAMPLER: return b->sampler_ms;
    case LS_SCRIPT_STAGE_GETITEM: return b->getitem_ms;
    case LS_SCRIPT_STAGE_COLLATE: return b->collate_ms;
    case LS_SCRIPT_STAGE_HANDOFF: return b->handoff_ms;
    case LS_SCRIPT_STAGE_PIN: return b->pin_ms;
    default: return NAN;
    }
}

void
ls_run_stage_summary (const ls_run_result *r, ls_stage_summary *out)
{
  gboolean unknown = FALSE;

  memset (out, 0, sizeof *out);
  for (size_t i = 0; i < r->n_timeline; i++)
    for (int k = 0; k < LS_N_STAGES; k++)
      {
        double v = ls_batch_record_stage (&r->timeline[i], k);
        unknown |= isnan (v);
        out->total_ms[k] += v;
        if (i >= r->warmup_used)
          out->mean_ms[k] += v;
      }
  /* Not measured is unknown (null), never 0. */
  if (r->n_timeline > r->warmup_used && !unknown)
    {
      out->valid = TRUE;
      out->measured_batches = r->n_timeline - r->warmup_used;
      for (int k = 0; k < LS_N_STAGES; k++)
        out->mean_ms[k] /= (double) out->measured_batches;
    }
  for (size_t i = 0; i < r->n_workers; i++)
    if (r->workers[i].wall_ns)
      {
        out->workers_reported++;
        out->workers_wall_ms += (double) r->workers[i].wall_ns / 1e6;
        out->workers_idle_ms += (double) r->workers[i].idle_ns / 1e6;
        out->workers_busy_ms += (double) r->workers[i].busy_ns / 1e6;
      }
}

static void
add_stages (JsonBuilder *b, const ls_run_result *r)
{
  ls_stage_summary st;

  ls_run_stage_summary (r, &st);
  json_builder_set_member_name (b, "stages_ms");
  if (!st.valid)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  for (int k = 0; k < LS_N_STAGES; k++)
    {
      json_builder_set_member_name (b, ls_stage_name (k));
      json_builder_add_double_value (b, st.mean_ms[k]);
    }
  json_builder_set_member_name (b, "measured_batches");
  json_builder_add_int_value (b, (gint64) st.measured_batches);
  json_builder_set_member_name (b, "total");
  json_builder_begin_object (b);
  for (int k = 0; k < LS_N_STAGES; k++)
    {
      json_builder_set_member_name (b, ls_stage_name (k));
      json_builder_add_double_value (b, st.total_ms[k]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "workers");
  if (st.workers_reported)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "reported");
      json_builder_add_int_value (b, st.workers_reported);
      json_builder_set_member_name (b, "wall");
      json_builder_add_double_value (b, st.workers_wall_ms);
      json_builder_set_member_name (b, "idle");
      json_builder_add_double_value (b, st.workers_idle_ms);
      json_builder_set_member_name (b, "busy");
      json_builder_add_double_value (b, st.workers_busy_ms);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static void
add_dist (JsonBuilder *b, const char *name, const ls_dist *d)
{
  json_builder_set_member_name (b, name);
  if (!d->valid)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "p50");
  json_builder_add_double_value (b, d->p50);
  json_builder_set_member_name (b, "p95");
  json_builder_add_double_value (b, d->p95);
  json_builder_set_member_name (b, "p99");
  json_builder_add_double_value (b, d->p99);
  json_builder_set_member_name (b, "max");
  json_builder_add_double_value (b, d->max);
  json_builder_set_member_name (b, "mean");
  json_builder_add_double_value (b, d->mean);
  json_builder_end_object (b);
}

static void
add_bytes_or_null (JsonBuilder *b, const char *name, unsigned valid, unsigned bit, uint64_t value)
{
  json_builder_set_member_name (b, name);
  if (valid & bit)
    json_builder_add_int_value (b, (gint64) value);
  else
    json_builder_add_null_value (b);
}

static void
add_ms_or_null (JsonBuilder *b, const char *name, double ms)
{
  json_builder_set_member_name (b, name);
  if (ms < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, ms);
}

/* The wait for the first batch in its parts (they add up to it). */
static void
add_first_batch_parts (JsonBuilder *b, const ls_first_batch *f)
{
  json_builder_set_member_name (b, "first_batch_parts_ms");
  if (!f->valid)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  add_ms_or_null (b, "worker_start", f->worker_start_ms);
  add_ms_or_null (b, "arena_populate", f->populate_ms);
  add_ms_or_null (b, "first_task_in_flight", f->in_flight_ms);
  add_ms_or_null (b, "first_build", f->build_ms);
  add_ms_or_null (b, "handoff", f->handoff_ms);
  json_builder_end_object (b);
}

JsonNode *
ls_run_summary_json (const ls_run_config *config, const ls_run_result *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  const ls_pool_config *pool = &config->pool;
  const ls_memory_summary *mem = &r->memory;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "run_id");
  json_builder_add_null_value (b); /* set by the caller once the run is recorded */
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, ls_run_status_name (r->status));
  json_builder_set_member_name (b, "error");
  if (r->status == LS_RUN_DONE)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, r->error);
  json_builder_set_member_name (b, "sink");
  json_builder_add_string_value (b, r->sink_name);
  json_builder_set_member_name (b, "simulated");
  json_builder_add_boolean_value (b, r->simulated);
  json_builder_set_member_name (b, "sink_note");
  if (r->sink_note[0])
    json_builder_add_string_value (b, r->sink_note);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "device");
  json_builder_add_string_value (b, r->device_name);
  json_builder_set_member_name (b, "dataset");
  json_builder_add_string_value (b, pool->dataset.kind[0] && strcmp (pool->dataset.kind, "synthetic") != 0
                                        ? pool->dataset.path
                                        : "synthetic");
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, pool->dataset.kind);
  json_builder_set_member_name (b, "dataset_samples");
  json_builder_add_int_value (b, (gint64) r->dataset_samples);
  json_builder_set_member_name (b, "sample_bytes");
  json_builder_add_int_value (b, (gint64) r->sample_bytes);
  json_builder_set_member_name (b, "workers");
  json_builder_add_int_value (b, pool->num_workers);
  json_builder_set_member_name (b, "start");
  json_builder_add_string_value (b, ls_start_method_name (pool->start));
  gboolean has_device = strcmp (r->sink_name, "none") != 0;
  json_builder_set_member_name (b, "pin");
  if (has_device)
    json_builder_add_string_value (b, ls_pin_mode_name (config->sink.pin));
  else
    json_builder_add_null_value (b); /* no device copy with the none sink */
  json_builder_set_member_name (b, "non_blocking");
  if (has_device)
    json_builder_add_boolean_value (b, config->sink.non_blocking);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "model_ms");
  if (has_device)
    json_builder_add_double_value (b, config->sink.model_ms);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "prefetch");
  json_builder_add_int_value (b, pool->prefetch_factor);
  json_builder_set_member_name (b, "persistent");
  json_builder_add_boolean_value (b, pool->persistent_workers);
  json_builder_set_member_name (b, "batch_size");
  json_builder_add_int_value (b, pool->batch_size);
  json_builder_set_member_name (b, "batches");
  json_builder_add_int_value (b, (gint64) r->batches);
  json_builder_set_member_name (b, "warmup_batches");
  json_builder_add_int_value (b, r->warmup_used);
  json_builder_set_member_name (b, "samples");
  json_builder_add_int_value (b, (gint64) r->samples);
  json_builder_set_member_name (b, LS_KEY_THROUGHPUT);
  if (r->measured_s > 0)
    json_builder_add_double_value (b, r->throughput_sps);
  else
    json_builder_add_null_value (b);
  add_dist (b, LS_KEY_BATCH_WAIT_MS, &r->wait_ms);
  add_dist (b, LS_KEY_COPY_MS, &r->copy_ms);
  add_dist (b, LS_KEY_COMPUTE_MS, &r->compute_ms);
  add_stages (b, r);
  json_builder_set_member_name (b, "batch_bytes");
  json_builder_add_int_value (b, (gint64) r->batch_bytes);
  json_builder_set_member_name (b, "host_bytes_copied");
  json_builder_add_int_value (b, (gint64) r->host_bytes_copied);
  json_builder_set_member_name (b, LS_KEY_GPU_UTIL_EXACT);
  if (r->gpu_util_exact >= 0)
    json_builder_add_double_value (b, r->gpu_util_exact);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, LS_KEY_GPU_UTIL_NVML);
  if (r->gpu_util_nvml >= 0)
    json_builder_add_double_value (b, r->gpu_util_nvml);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "nvml");
  if (r->gpu.valid)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "device");
      json_builder_add_string_value (b, r->gpu.device_name);
      json_builder_set_member_name (b, "driver");
      json_builder_add_string_value (b, r->gpu.driver_version);
      json_builder_set_member_name (b, "samples");
      json_builder_add_int_value (b, (gint64) r->gpu.samples);
      json_builder_set_member_name (b, "peak_mem_used_bytes");
      json_builder_add_int_value (b, (gint64) r->gpu.peak_mem_used_bytes);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  add_bytes_or_null (b, "rss_peak_bytes", mem->valid, LS_PROCMEM_RSS, mem->peak.rss_bytes);
  add_bytes_or_null (b, LS_KEY_PSS_PEAK, mem->valid, LS_PROCMEM_PSS, mem->peak.pss_bytes);
  add_bytes_or_null (b, "uss_peak_bytes", mem->valid, LS_PROCMEM_USS, mem->peak.uss_bytes);
  add_bytes_or_null (b, "rss_mean_bytes", mem->valid, LS_PROCMEM_RSS, mem->mean.rss_bytes);
  add_bytes_or_null (b, "pss_mean_bytes", mem->valid, LS_PROCMEM_PSS, mem->mean.pss_bytes);
  add_bytes_or_null (b, "private_peak_bytes", mem->valid, LS_PROCMEM_PRIVATE, mem->peak.private_bytes);
  add_bytes_or_null (b, "working_set_peak_bytes", mem->valid, LS_PROCMEM_WORKING_SET, mem->peak.working_set_bytes);
  json_builder_set_member_name (b, "arena_bytes");
  json_builder_add_int_value (b, (gint64) r->arena_bytes);
  /* The page size backing the arena (huge pages where the system gave
   * them), and populating its pages before the run started. */
  json_builder_set_member_name (b, "arena_page_bytes");
  if (r->arena_page_bytes > 0)
    json_builder_add_int_value (b, (gint64) r->arena_page_bytes);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "arena_populate_ms");
  json_builder_add_double_value (b, r->arena_populate_ms);
  json_builder_set_member_name (b, "samples_taken");
  json_builder_add_int_value (b, (gint64) mem->samples);
  json_builder_set_member_name (b, "sampler_cpu_ms");
  json_builder_add_double_value (b, (double) mem->sampler_cpu_ns / 1e6);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "worker_startup_ms");
  json_builder_begin_array (b);
  for (size_t i = 0; i < r->n_workers; i++)
    if (r->workers[i].startup_ms >= 0)
      json_builder_add_double_value (b, r->workers[i].startup_ms);
    else
      json_builder_add_null_value (b);
  json_builder_end_array (b);
  /* Page faults each worker took building the measured batches: near 0
   * once the arena is populated in every worker. */
  json_builder_set_member_name (b, "worker_measured_faults");
  json_builder_begin_array (b);
  for (size_t i = 0; i < r->n_workers; i++)
    json_builder_add_int_value (b, (gint64) r->workers[i].measured_faults);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "worker_pids");
  json_builder_begin_array (b);
  for (size_t i = 0; i < r->n_workers; i++)
    json_builder_add_int_value (b, (gint64) r->workers[i].pid);
  json_builder_end_array (b);

  add_ms_or_null (b, LS_KEY_FIRST_BATCH_MS, r->time_to_first_batch_ms);
  add_ms_or_null (b, "epoch_boundary_ms", r->epoch_boundary_ms);
  add_first_batch_parts (b, &r->first_batch);
  json_builder_set_member_name (b, "cpu_percent");
  json_builder_add_double_value (b, r->cpu_percent);
  json_builder_set_member_name (b, "cpu_ms_per_sample");
  json_builder_add_double_value (b, r->cpu_ms_per_sample);
  json_builder_set_member_name (b, "skipped_samples");
  json_builder_add_int_value (b, (gint64) r->skipped_samples);
  json_builder_set_member_name (b, "wall_s");
  json_builder_add_double_value (b, r->wall_s);
  if (config->checksum)
    {
      char hex[17];
      g_snprintf (hex, sizeof hex, "%016" G_GINT64_MODIFIER "x", (guint64) r->checksum);
      json_builder_set_member_name (b, "checksum");
      json_builder_add_string_value (b, hex);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
ls_run_summary_print (FILE *to, const ls_run_config *config, const ls_run_result *r)
{
  const ls_pool_config *pool = &config->pool;

  fprintf (to, _("run %s: %s, %u workers (%s), batch %u, prefetch %u, persistent %s, sink %s%s\n"),
           ls_run_status_name (r->status), pool->dataset.kind, pool->num_workers, ls_start_method_name (pool->start),
           pool->batch_size, pool->prefetch_factor, pool->persistent_workers ? "on" : "off", r->sink_name,
           r->simulated ? _(" (SIMULATED GPU)") : "");
  /* The error may be the script's own text, the note name its device:
   * escaped, as they may hold terminal escapes. */
  g_autofree char *note = ls_terminal_text (r->sink_note), *why = ls_terminal_text (r->error);
  if (r->sink_note[0])
    {
      ls_i18n_print_label (to, "  ", _("note:"), 21);
      fprintf (to, "%s\n", note);
    }
  if (r->status != LS_RUN_DONE)
    {
      ls_i18n_print_label (to, "  ", _("error:"), 21);
      fprintf (to, "%s\n", why);
    }
  ls_i18n_print_label (to, "  ", _("batches:"), 21);
  fprintf (to, _("%llu (%llu samples, first %u not measured)\n"), (unsigned long long) r->batches,
           (unsigned long long) r->samples, r->warmup_used);
  if (r->status != LS_RUN_DONE)
    return; /* the figures of a run cut short mislead more than they tell */
  if (r->measured_s > 0)
    {
      ls_i18n_print_label (to, "  ", _("throughput:"), 21);
      fprintf (to, _("%.0f samples/s\n"), r->throughput_sps);
    }
  if (r->wait_ms.valid)
    {
      ls_i18n_print_label (to, "  ", _("batch wait:"), 21);
      fprintf (to, _("p50 %.3f  p95 %.3f  p99 %.3f  max %.3f ms\n"), r->wait_ms.p50, r->wait_ms.p95, r->wait_ms.p99,
               r->wait_ms.max);
    }
  if (r->copy_ms.valid)
    {
      ls_i18n_print_label (to, "  ", _("copy / compute:"), 21);
      fprintf (to, _("p50 %.3f / %.3f ms per batch (pin %s, non-blocking %s)%s\n"), r->copy_ms.p50,
               r->compute_ms.p50, ls_pin_mode_name (config->sink.pin), config->sink.non_blocking ? "on" : "off",
               r->simulated ? _(", simulated") : "");
    }
  ls_stage_summary st;
  ls_run_stage_summary (r, &st);
  if (st.valid)
    {
      ls_i18n_print_label (to, "  ", _("build per batch:"), 21);
      fprintf (to, _("read %.2f  decode %.2f  transform %.2f  write %.2f ms (workers idle %.2f ms)\n"),
               st.mean_ms[LS_STAGE_READ], st.mean_ms[LS_STAGE_DECODE], st.mean_ms[LS_STAGE_TRANSFORM],
               st.mean_ms[LS_STAGE_WRITE], st.mean_ms[LS_STAGE_IDLE]);
    }
  if (r->gpu_util_exact >= 0)
    {
      ls_i18n_print_label (to, "  ", _("GPU utilization:"), 21);
      fprintf (to, "%.1f %%%s\n", r->gpu_util_exact * 100, r->simulated ? _(" (simulated)") : "");
    }
  if (r->time_to_first_batch_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("first batch after:"), 21);
      fprintf (to, _("%.1f ms\n"), r->time_to_first_batch_ms);
    }
  if (r->first_batch.valid)
    {
      ls_i18n_print_label (to, "    ", _("its parts:"), 21);
      fprintf (to, _("worker start %.1f, arena populate %.1f, first task in flight %.1f, build %.1f, hand-off %.1f ms\n"),
               r->first_batch.worker_start_ms, r->first_batch.populate_ms, r->first_batch.in_flight_ms,
               r->first_batch.build_ms, r->first_batch.handoff_ms);
    }
  if (r->arena_page_bytes > 0)
    {
      ls_i18n_print_label (to, "  ", _("arena pages:"), 21);
      fprintf (to, _("%llu KiB (populated in %.1f ms before the run)\n"),
               (unsigned long long) (r->arena_page_bytes / 1024), r->arena_populate_ms);
    }
  guint64 faults = 0, written = 0, worst = 0;
  for (size_t i = 0; i < r->n_workers; i++)
    {
      faults += r->workers[i].measured_faults;
      written += r->workers[i].measured_bytes;
      worst = MAX (worst, r->workers[i].measured_faults);
    }
  if (written > 0)
    {
      ls_i18n_print_label (to, "  ", _("page faults:"), 21);
      fprintf (to, _("%llu in the workers building %.1f MB of measured batches (at most %llu in one worker)\n"),
               (unsigned long long) faults, written / 1e6, (unsigned long long) worst);
    }
  if (r->epoch_boundary_ms >= 0)
    {
      ls_i18n_print_label (to, "  ", _("epoch boundary:"), 21);
      fprintf (to, _("%.1f ms\n"), r->epoch_boundary_ms);
    }
  if (r->memory.valid & LS_PROCMEM_PSS)
    {
      ls_i18n_print_label (to, "  ", _("peak memory:"), 21);
      fprintf (to, _("PSS %.1f MB, RSS %.1f MB (arena %.1f MB)\n"), r->memory.peak.pss_bytes / 1e6,
               r->memory.peak.rss_bytes / 1e6, r->arena_bytes / 1e6);
    }
  ls_i18n_print_label (to, "  ", _("CPU:"), 21);
  fprintf (to, _("%.0f %% of one core, %.2f ms per sample\n"), r->cpu_percent, r->cpu_ms_per_sample);
  if (r->skipped_samples)
    {
      ls_i18n_print_label (to, "  ", _("skipped samples:"), 21);
      fprintf (to, "%llu\n", (unsigned long long) r->skipped_samples);
    }
}
