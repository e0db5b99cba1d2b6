#include "loader/run.h"

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

int
ls_run (const ls_run_config *config, ls_run_result *r, ls_error *err)
{
  ls_pool *pool = NULL;
  ls_memsampler *sampler = NULL;
  ls_error run_err = { 0 };
  size_t cap = 0;
  double boundary_sum = 0;
  uint32_t boundaries = 0;
  uint32_t prev_epoch = 0;
  uint64_t window_start = 0, last_ready = 0;

  memset (r, 0, sizeof *r);
  r->time_to_first_batch_ms = -1;
  r->epoch_boundary_ms = -1;

  if (ls_pool_create (&config->pool, &pool, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  r->arena_bytes = ls_arena_bytes (ls_pool_arena (pool));
  r->dataset_samples = ls_dataset_length (ls_pool_dataset (pool));
  r->sample_bytes = ls_dataset_sample_bytes (ls_pool_dataset (pool));

  uint64_t planned = config->pool.epochs ? ls_pool_batches_per_epoch (pool) * config->pool.epochs : UINT64_MAX;
  if (config->max_batches && config->max_batches < planned)
    planned = config->max_batches;
  /* Too short a run for a warm-up: measure all of it. */
  r->warmup_used = planned > config->warmup ? config->warmup : 0;

  if (ls_memsampler_start (pool, config->sample_interval_ms, &sampler, err) != LS_OK)
    {
      ls_pool_free (pool);
      return err ? err->code : LS_ERR_OS;
    }

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
      r->timeline[r->n_timeline++] = (ls_batch_record){ b.epoch, b.batch, b.count, ms_between (t_iter, t1), wait };

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
      if (r->warmup_used && r->batches + 1 == r->warmup_used)
        window_start = t1;
      r->batches++;
      r->samples += b.count;
      r->skipped_samples += b.skipped;
      last_ready = t1;
      if (config->checksum)
        r->checksum += ls_batch_hash (&b);

      /* LS_SINK_NONE: the consumer hands the batch straight back. */
      ls_pool_release (pool, &b);
    }

  ls_memsampler_stop (sampler, &r->memory);
  /* The loader's CPU, not the measuring's: the sampler's reads of /proc
   * (kernel time walking page tables) are reported on their own. */
  uint64_t cpu_self = self_cpu_ns () - cpu0;
  cpu_self = cpu_self > r->memory.sampler_cpu_ns ? cpu_self - r->memory.sampler_cpu_ns : 0;
  ls_pool_stop (pool); /* the workers report their CPU time as they stop */
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
  free (waits);
  if (last_ready > window_start)
    {
      r->measured_s = (double) (last_ready - window_start) / 1e9;
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
  memset (r, 0, sizeof *r);
}
