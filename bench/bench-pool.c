/* Worker-pool benchmarks, measured side by side in one run and printed as
 * ratios (this machine is shared and noisy; compare within a run):
 *
 *   1. hand-off: per-batch cost of the pool with zero-cost samples,
 *      1/2/4 workers, against the goal of <= 20 us per batch;
 *   2. start-up: time to first batch and per-worker start, fork vs spawn,
 *      2 and 4 workers, against the goal of <= 50 ms;
 *   3. scaling: throughput with a CPU-bound sample cost at 1..cores workers
 *      as a fraction of workers x the in-process rate, goal >= 0.95;
 *   4. the simulated GPU's utilization against workers (a loader-bound
 *      run: more workers should raise it until the device is the limit).
 *      This was a unit test once; it depends on the machine's load, so it
 *      is measured here (test-sink checks the model in virtual time).
 *
 *   bench-pool [WORKER_EXE]    (default: $LOADSCOPE_WORKER) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/run.h"
#include "platform/sysinfo.h"

static const char *worker_exe;

static ls_run_config
config (uint32_t workers, ls_start_method start, uint64_t count, uint32_t side, uint32_t batch, uint32_t cost_us,
        double work_per_us)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  strcpy (c.pool.dataset.kind, "synthetic");
  c.pool.dataset.count = count;
  c.pool.dataset.width = side;
  c.pool.dataset.height = side;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.dataset.sample_cost_us = cost_us;
  c.pool.dataset.work_per_us = work_per_us;
  c.pool.num_workers = workers;
  c.pool.batch_size = batch;
  c.pool.start = start;
  c.pool.worker_path = worker_exe;
  c.pool.epochs = 1;
  c.pool.timeout_s = 60;
  c.warmup = workers ? workers : 1;
  c.sample_interval_ms = 100;
  return c;
}

static ls_run_result
run (const ls_run_config *c)
{
  ls_run_result r;
  ls_error err = { 0 };
  if (ls_run (c, &r, &err) != LS_OK || r.status != LS_RUN_DONE)
    {
      fprintf (stderr, "bench-pool: run failed: %s%s\n", err.message, r.error);
      exit (1);
    }
  return r;
}

static void
bench_handoff (void)
{
  const uint32_t workers[] = { 0, 1, 2, 4 };
  printf ("\n1. Hand-off: 40000 batches of 1 sample of 1 byte, no work (goal <= 20 us per batch)\n");
  printf ("   %-8s %12s %14s\n", "workers", "batches/s", "us per batch");
  for (size_t i = 0; i < sizeof workers / sizeof workers[0]; i++)
    {
      ls_run_config c = config (workers[i], LS_START_FORK, 40000, 1, 1, 0, 0);
      ls_run_result r = run (&c);
      double bps = (double) (r.batches - r.warmup_used) / r.measured_s;
      printf ("   %-8u %12.0f %14.1f\n", workers[i], bps, 1e6 / bps);
      ls_run_result_clear (&r);
    }
}

static void
bench_startup (void)
{
  printf ("\n2. Start-up: 224x224 u8 samples, batch 64, 5 batches (goal <= 50 ms to the first batch)\n");
  printf ("   %-8s %-6s %22s %24s\n", "workers", "start", "time to first batch ms", "worker start ms (max)");
  for (uint32_t w = 2; w <= 4; w += 2)
    for (int s = LS_START_FORK; s <= LS_START_SPAWN; s++)
      {
        double best_ttfb = 1e9, best_start = 1e9;
        for (int rep = 0; rep < 3; rep++)
          {
            ls_run_config c = config (w, (ls_start_method) s, 320, 224, 64, 0, 0);
            ls_run_result r = run (&c);
            double worst = 0;
            for (size_t k = 0; k < r.n_workers; k++)
              if (r.workers[k].startup_ms > worst)
                worst = r.workers[k].startup_ms;
            if (r.time_to_first_batch_ms < best_ttfb)
              best_ttfb = r.time_to_first_batch_ms;
            if (worst < best_start)
              best_start = worst;
            ls_run_result_clear (&r);
          }
        printf ("   %-8u %-6s %22.1f %24.2f\n", w, s == LS_START_FORK ? "fork" : "spawn", best_ttfb, best_start);
      }
  printf ("   (best of 3; PyTorch 1.13 on this kind of machine, 2 workers: 300 ms fork, 1.2-1.4 s spawn)\n");
}

static void
bench_scaling (int cores)
{
  const uint32_t cost = 1000;
  double work = ls_synthetic_calibrate ();
  printf ("\n3. Scaling: %u us of CPU per sample, 8x8 samples, batch 16 (goal >= 0.95 at workers = cores = %d)\n",
          cost, cores);
  ls_run_config c = config (0, LS_START_FORK, 2000, 8, 16, cost, work);
  ls_run_result base = run (&c);
  printf ("   %-8s %12s %22s\n", "workers", "samples/s", "/ (workers x in-process)");
  printf ("   %-8u %12.0f %22s\n", 0, base.throughput_sps, "(in-process rate)");
  for (int w = 1; w <= cores; w++)
    for (int s = LS_START_FORK; s <= LS_START_SPAWN; s++)
      {
        ls_run_config cw = config ((uint32_t) w, (ls_start_method) s, 2000 * (uint64_t) w, 8, 16, cost, work);
        cw.pool.persistent_workers = true;
        ls_run_result r = run (&cw);
        printf ("   %-2d %-5s %12.0f %22.3f\n", w, s == LS_START_FORK ? "fork" : "spawn", r.throughput_sps,
                r.throughput_sps / (w * base.throughput_sps));
        ls_run_result_clear (&r);
      }
  ls_run_result_clear (&base);
}

static void
bench_sim_utilization (int cores)
{
  double work = ls_synthetic_calibrate ();
  printf ("\n4. Simulated GPU: 600 us of CPU per sample, 32x32 samples, batch 16, a 5 ms step\n");
  printf ("   %-8s %12s %12s %16s\n", "workers", "utilization", "samples/s", "wait p50 ms");
  for (int w = 0; w <= cores; w++)
    {
      ls_run_config c = config ((uint32_t) w, LS_START_FORK, 640, 32, 16, 600, work);
      c.pool.persistent_workers = true;
      ls_sink_config_init (&c.sink);
      c.sink.kind = LS_SINK_SIM;
      c.sink.model_ms = 5;
      ls_run_result r = run (&c);
      printf ("   %-8d %12.3f %12.0f %16.2f\n", w, r.gpu_util_exact, r.throughput_sps, r.wait_ms.p50);
      ls_run_result_clear (&r);
    }
}

int
main (int argc, char **argv)
{
  ls_sysinfo info;
  worker_exe = argc > 1 ? argv[1] : getenv ("LOADSCOPE_WORKER");
  if (!worker_exe)
    {
      fprintf (stderr, "usage: bench-pool WORKER_EXE (or set LOADSCOPE_WORKER)\n");
      return 2;
    }
  ls_sysinfo_read (&info, NULL);
  printf ("bench-pool on %s, %s, %d cores (%d usable)\n", info.cpu_model, info.kernel, info.logical_cores,
          info.affinity_cores);
  bench_handoff ();
  bench_startup ();
  bench_scaling (info.affinity_cores);
  bench_sim_utilization (info.affinity_cores);
  return 0;
}
