#include "loader/run-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/prng.h"
#include "platform/clock.h"
#include "platform/procmem.h"

uint64_t
ls_batch_hash (const ls_batch *b)
{
  uint64_t h = ls_mix64 (((uint64_t) b->epoch << 40) ^ b->batch ^ ((uint64_t) b->count << 20));
  size_t words = b->bytes / 8;
  const uint8_t *p = b->data;

  for (size_t i = 0; i < words; i++)
    {
      uint64_t v;
      memcpy (&v, p + i * 8, 8);
      h = (h ^ v) * 0x100000001B3ull + (h >> 29);
    }
  for (size_t i = words * 8; i < b->bytes; i++)
    h = (h ^ p[i]) * 0x100000001B3ull;
  for (uint32_t i = 0; i < b->count; i++)
    h = ls_mix64 (h ^ (uint64_t) (uint32_t) b->labels[i]);
  return ls_mix64 (h);
}

static uint64_t
self_cpu_ns (void)
{
  uint64_t user = 0, sys = 0;
  ls_proccpu_read (ls_process_self_pid (), &user, &sys, NULL);
  return user + sys;
}

static double
ms_between (uint64_t a, uint64_t b)
{
  return (double) (b - a) / 1e6;
}

/* b - a in ms, negative when b is earlier (a batch built before the
 * iteration's clock started). */
static double
ms_since (uint64_t a, uint64_t b)
{
  return b >= a ? (double) (b - a) / 1e6 : -(double) (a - b) / 1e6;
}

/* Gives back the slots a sink is done with. */
static void
release_slots (ls_pool *pool, const uint32_t *slots, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      ls_batch b = { .slot = slots[i] };
      ls_pool_release (pool, &b);
    }
}

/* Files the sink's finished timings under their batches. */
static void
collect_timings (ls_sink *sink, ls_run_result *r)
{
  ls_sink_timing t[16];
  size_t n;
  while ((n = ls_sink_take_timings (sink, t, 16)) > 0)
    for (size_t i = 0; i < n; i++)
      if (t[i].seq < r->n_timeline)
        {
          r->timeline[t[i].seq].copy_ms = t[i].copy_ms;
          r->timeline[t[i].seq].compute_ms = t[i].compute_ms;
          r->timeline[t[i].seq].stage_ms = t[i].stage_ms;
        }
}

/* Hands finished records to on_batch: with a device sink, once its copy
 * and compute are known; up to `upto` (exclusive). */
static void
emit_batches (const ls_run_config *config, const ls_run_result *r, size_t *emitted, size_t upto)
{
  if (!config->on_batch)
    {
      *emitted = upto;
      return;
    }
  for (; *emitted < upto; (*emitted)++)
    config->on_batch (config->user, *emitted, &r->timeline[*emitted]);
}

static size_t
complete_upto (const ls_run_result *r, bool device)
{
  if (!device)
    return r->n_timeline;
  size_t n = 0;
  while (n < r->n_timeline && r->timeline[n].compute_ms >= 0)
    n++;
  return n;
}

static void
emit_memory (const ls_run_config *config, ls_memsampler *sampler, size_t *seen)
{
  ls_memory_point pts[8];
  size_t n;
  if (!config->on_memory)
    return;
  while ((n = ls_memsampler_points_since (sampler, *seen, pts, 8)) > 0)
    {
      for (size_t i = 0; i < n; i++)
        config->on_memory (config->user, &pts[i]);
      *seen += n;
    }
}

static void
emit_workers (const ls_run_config *config, ls_pool *pool, size_t *known)
{
  size_t n;
  const ls_worker_info *w = ls_pool_workers (pool, &n);
  if (n > *known && config->on_workers)
    config->on_workers (config->user, w + *known, n - *known);
  *known = n;
}

int
ls_run (const ls_run_config *config, ls_run_result *r, ls_error *err)
{
  size_t emitted = 0, memory_seen = 0, workers_known = 0;
  ls_pool *pool = NULL;
  ls_sink *sink = NULL;
  uint32_t release[LS_SINK_MAX_HELD + 2];
  size_t n_release = 0;
  ls_memsampler *sampler = NULL;
  ls_error run_err = { 0 };
  size_t cap = 0;
  double boundary_sum = 0;
  uint32_t boundaries = 0;
  uint32_t prev_epoch = 0;
  uint64_t window_start = 0, last_consumed = 0;

  memset (r, 0, sizeof *r);
  r->time_to_first_batch_ms = -1;
  r->epoch_boundary_ms = -1;

  r->gpu_util_exact = -1;
  r->gpu_util_nvml = -1;
  if (ls_pool_create (&config->pool, &pool, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  r->arena_bytes = ls_arena_bytes (ls_pool_arena (pool));
  r->arena_page_bytes = ls_pool_arena (pool)->page_bytes;
  r->arena_populate_ms = ls_pool_arena (pool)->populate_ms;
  r->dataset_samples = ls_dataset_length (ls_pool_dataset (pool));
  r->sample_bytes = ls_dataset_sample_bytes (ls_pool_dataset (pool));
  r->batch_bytes = r->sample_bytes * config->pool.batch_size;
  if (ls_sink_open (&config->sink, ls_pool_arena (pool), &sink, r->sink_note, sizeof r->sink_note, err) != LS_OK)
    {
      ls_pool_free (pool);
      return err ? err->code : LS_ERR_UNSUPPORTED;
    }
  snprintf (r->sink_name, sizeof r->sink_name, "%s", ls_sink_name (sink));
  r->simulated = ls_sink_simulated (sink);
  snprintf (r->device_name, sizeof r->device_name, "%s", ls_sink_device_name (sink));

  uint64_t planned = config->pool.epochs ? ls_pool_batches_per_epoch (pool) * config->pool.epochs : UINT64_MAX;
  if (config->max_batches && config->max_batches < planned)
    planned = config->max_batches;
  /* Too short a run for a warm-up: measure all of it. */
  r->warmup_used = planned > config->warmup ? config->warmup : 0;
  ls_pool_set_warmup (pool, r->warmup_used);

  if (ls_memsampler_start (pool, config->sample_interval_ms, &sampler, err) != LS_OK)
    {
      ls_sink_close (sink);
      ls_pool_free (pool);
      return err ? err->code : LS_ERR_OS;
    }

  /* The GPU's own view, where there is a GPU. */
  ls_gpumon *gpumon = NULL;
  if (ls_sink_kind_of (sink) == LS_SINK_CUDA)
    {
      ls_error gerr = { 0 };
      /* By the device's bus id: NVML's indices are not CUDA's. */
      if (ls_gpumon_start_device (ls_sink_pci_bus_id (sink), (unsigned) config->sink.device, 100, &gpumon, &gerr)
          != LS_OK)
        snprintf (r->gpu_note, sizeof r->gpu_note, "%s", gerr.message);
    }

  if (config->on_started)
    config->on_started (config->user, r);
  bool device = ls_sink_kind_of (sink) != LS_SINK_NONE;

  double *waits = NULL;
  uint64_t cpu0 = self_cpu_ns ();
  uint64_t t_iter = ls_clock_ns ();
  window_start = t_iter;

  r->status = LS_RUN_DONE;
  while (r->batches < planned)
    {
      ls_batch b;
      if (config->interrupt && *config->interrupt)
        {
          r->status = LS_RUN_INTERRUPTED;
          snprintf (r->error, sizeof r->error, "interrupted after %llu batches", (unsigned long long) r->batches);
          break;
        }
      uint64_t t0 = ls_clock_ns ();
      int rc = ls_pool_next (pool, &b, &run_err);
      uint64_t t1 = ls_clock_ns ();
      if (rc == LS_POOL_END)
        break;
      if (rc != LS_OK)
        {
          r->status = LS_RUN_FAILED;
          memcpy (r->error, run_err.message, sizeof r->error);
          break;
        }

      if (r->n_timeline == cap)
        {
          cap = cap ? cap * 2 : 1024;
          ls_batch_record *tl = realloc (r->timeline, cap * sizeof *tl);
          double *w = realloc (waits, cap * sizeof *w);
          if (!tl || !w)
            {
              free (tl ? tl : r->timeline);
              free (w ? w : waits);
              r->timeline = NULL;
              waits = NULL;
              ls_pool_release (pool, &b);
              r->status = LS_RUN_FAILED;
              snprintf (r->error, sizeof r->error, "out of memory recording batch %llu",
                        (unsigned long long) r->batches);
              break;
            }
          r->timeline = tl;
          waits = w;
        }
      double wait = ms_between (t0, t1);
      r->timeline[r->n_timeline++] = (ls_batch_record){ .epoch = b.epoch,
                                                        .batch = b.batch,
                                                        .samples = b.count,
                                                        .ready_ms = ms_between (t_iter, t1),
                                                        .wait_ms = wait,
                                                        .copy_ms = -1,
                                                        .compute_ms = -1,
                                                        .read_ms = (double) b.stages.read_ns / 1e6,
                                                        .decode_ms = (double) b.stages.decode_ns / 1e6,
                                                        .transform_ms = (double) b.stages.transform_ns / 1e6,
                                                        .write_ms = (double) b.stages.write_ns / 1e6,
                                                        .idle_ms = (double) b.stages.idle_ns / 1e6,
                                                        .busy_ms = (double) b.stages.busy_ns / 1e6,
                                                        .sampler_ms = NAN,
                                                        .getitem_ms = NAN,
                                                        .collate_ms = NAN,
                                                        .handoff_ms = NAN,
                                                        .pin_ms = NAN,
                                                        .build_start_ms = NAN,
                                                        .build_end_ms = NAN,
                                                        .worker = LS_BATCH_WORKER_UNKNOWN };
      if (b.stages.done_ns != 0)
        {
          ls_batch_record *rec = &r->timeline[r->n_timeline - 1];
          rec->build_start_ms = ms_since (t_iter, b.stages.start_ns);
          rec->build_end_ms = ms_since (t_iter, b.stages.done_ns);
          rec->worker = b.stages.worker;
        }

      if (r->batches == 0)
        r->time_to_first_batch_ms = ms_between (t_iter, t1);
      else if (b.epoch != prev_epoch)
        {
          boundary_sum += wait;
          boundaries++;
        }
      prev_epoch = b.epoch;

      if (r->batches >= r->warmup_used)
        {
          waits[r->batches - r->warmup_used] = wait;
          r->measured_samples += b.count;
        }
      r->batches++;
      r->samples += b.count;
      r->skipped_samples += b.skipped;
      if (config->checksum)
        r->checksum += ls_batch_hash (&b);

      if (ls_sink_submit (sink, &b, release, &n_release, &run_err) != LS_OK)
        {
          r->status = LS_RUN_FAILED;
          memcpy (r->error, run_err.message, sizeof r->error);
          break;
        }
      release_slots (pool, release, n_release);
      collect_timings (sink, r);
      last_consumed = ls_clock_ns ();
      emit_workers (config, pool, &workers_known);
      emit_batches (config, r, &emitted, complete_upto (r, device));
      emit_memory (config, sampler, &memory_seen);
      /* The measured window opens once the warm-up batches are consumed. */
      if (r->warmup_used && r->batches == r->warmup_used)
        window_start = last_consumed;
    }

  if (ls_sink_drain (sink, release, &n_release, &run_err) != LS_OK && r->status == LS_RUN_DONE)
    {
      r->status = LS_RUN_FAILED;
      memcpy (r->error, run_err.message, sizeof r->error);
    }
  uint64_t t_drained = ls_clock_ns ();
  release_slots (pool, release, n_release);
  collect_timings (sink, r);
  r->host_bytes_copied = ls_sink_host_bytes_copied (sink);
  emit_batches (config, r, &emitted, r->n_timeline);
  /* Before the pool: a pinned arena is unregistered while still mapped. */
  ls_sink_close (sink);
  sink = NULL;

  emit_memory (config, sampler, &memory_seen);
  ls_memsampler_stop (sampler, &r->memory);
  if (gpumon)
    {
      ls_gpumon_stop (gpumon, &r->gpu);
      double from = ((double) window_start - (double) r->gpu.start_ns) / 1e6;
      double to = ((double) t_drained - (double) r->gpu.start_ns) / 1e6;
      r->gpu_util_nvml = ls_gpumon_mean_util (&r->gpu, from, to);
      if (r->gpu_util_nvml < 0)
        r->gpu_util_nvml = -1;
    }
  /* The loader's CPU, not the measuring's: the sampler's reads of /proc
   * (kernel time walking page tables) are reported on their own. */
  uint64_t cpu_self = self_cpu_ns () - cpu0;
  cpu_self = cpu_self > r->memory.sampler_cpu_ns ? cpu_self - r->memory.sampler_cpu_ns : 0;
  ls_pool_stop (pool); /* the workers report their CPU time as they stop */
  r->first_batch = ls_pool_first_batch (pool);
  uint64_t t_end = ls_clock_ns ();
  size_t n_workers = 0;
  const ls_worker_info *infos = ls_pool_workers (pool, &n_workers);
  if (n_workers && (r->workers = malloc (n_workers * sizeof *r->workers)) != NULL)
    {
      memcpy (r->workers, infos, n_workers * sizeof *r->workers);
      r->n_workers = n_workers;
    }
  ls_pool_free (pool);

  size_t measured = r->batches > r->warmup_used ? (size_t) (r->batches - r->warmup_used) : 0;
  r->wait_ms = ls_dist_of (waits, measured);
  if (device && measured)
    {
      /* Copy and compute of the measured batches; busy time over the
       * window from the end of the warm-up until the device finished. */
      double busy = 0;
      size_t n = 0;
      for (size_t i = r->warmup_used; i < r->n_timeline; i++)
        if (r->timeline[i].compute_ms >= 0)
          waits[n++] = r->timeline[i].copy_ms;
      r->copy_ms = ls_dist_of (waits, n);
      n = 0;
      for (size_t i = r->warmup_used; i < r->n_timeline; i++)
        if (r->timeline[i].compute_ms >= 0)
          {
            waits[n++] = r->timeline[i].compute_ms;
            busy += r->timeline[i].compute_ms;
          }
      r->compute_ms = ls_dist_of (waits, n);
      if (t_drained > window_start)
        r->gpu_util_exact = busy / ms_between (window_start, t_drained);
    }
  free (waits);
  if (last_consumed > window_start)
    {
      r->measured_s = (double) (last_consumed - window_start) / 1e9;
      r->throughput_sps = (double) r->measured_samples / r->measured_s;
    }
  if (boundaries)
    r->epoch_boundary_ms = boundary_sum / boundaries;
  r->wall_s = (double) (t_end - t_iter) / 1e9;

  uint64_t cpu_workers = 0;
  for (size_t i = 0; i < r->n_workers; i++)
    cpu_workers += r->workers[i].cpu_ns;
  if (r->wall_s > 0)
    r->cpu_percent = (double) (cpu_self + cpu_workers) / 1e9 / r->wall_s * 100.0;
  if (r->samples)
    r->cpu_ms_per_sample = (double) (cpu_self + cpu_workers) / 1e6 / (double) r->samples;
  return LS_OK;
}

void
ls_run_result_clear (ls_run_result *r)
{
  free (r->workers);
  free (r->timeline);
  ls_memory_summary_clear (&r->memory);
  ls_gpumon_summary_clear (&r->gpu);
  memset (r, 0, sizeof *r);
}
