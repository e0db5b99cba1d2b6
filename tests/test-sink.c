/* Sinks without a GPU: the simulated device's timeline and figures, the
 * none sink, auto's fallback, and the memory sampler seeing every worker. */
#include <math.h>
#include <string.h>

#include "loader/run.h"
#include "test-util.h"

static ls_run_config
config (uint32_t workers, uint32_t cost_us, ls_sink_kind sink, double model_ms)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 16 * 40;
  c.pool.dataset.width = c.pool.dataset.height = 32;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.dataset.sample_cost_us = cost_us;
  c.pool.dataset.work_per_us = cost_us ? ls_synthetic_calibrate () : 0;
  c.pool.num_workers = workers;
  c.pool.batch_size = 16;
  c.pool.persistent_workers = true;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c.pool.epochs = 1;
  c.pool.timeout_s = 30;
  c.warmup = 2;
  c.sample_interval_ms = 50;
  ls_sink_config_init (&c.sink);
  c.sink.kind = sink;
  c.sink.model_ms = model_ms;
  return c;
}

static ls_run_result
run_ok (const ls_run_config *c)
{
  ls_run_result r;
  ls_error err = { 0 };
  g_assert_cmpint (ls_run (c, &r, &err), ==, LS_OK);
  if (r.status != LS_RUN_DONE)
    g_error ("run failed: %s", r.error);
  return r;
}

static void
test_fast_loader_keeps_sim_gpu_busy (void)
{
  ls_run_config c = config (2, 0, LS_SINK_SIM, 10);
  ls_run_result r = run_ok (&c);
  double compute = 0;

  g_assert_cmpstr (r.sink_name, ==, "sim");
  g_assert_true (r.simulated);
  g_assert_cmpstr (r.device_name, ==, "simulated");
  g_assert_true (r.copy_ms.valid && r.compute_ms.valid);
  g_assert_cmpfloat (fabs (r.compute_ms.p50 - 10), <, 1e-6);
  /* Copy time is bytes / bandwidth: 16 x 32 x 32 x 3 bytes at 6 GB/s. */
  g_assert_cmpfloat (fabs (r.copy_ms.p50 - 16.0 * 32 * 32 * 3 / 6e9 * 1e3), <, 1e-6);
  for (size_t i = r.warmup_used; i < r.n_timeline; i++)
    compute += r.timeline[i].compute_ms;
  /* Utilization is compute over wall: with data always ready, near 1. */
  g_test_message ("utilization %.3f", r.gpu_util_exact);
  g_assert_cmpfloat (r.gpu_util_exact, >, 0.85);
  g_assert_cmpfloat (r.gpu_util_exact, <=, 1.0);
  /* ... and the run is as long as the device made it. */
  g_assert_cmpfloat (r.measured_s * 1e3, >=, compute * 0.95);
  ls_run_result_clear (&r);
}

static void
test_slow_loader_starves_sim_gpu (void)
{
  /* One worker, 16 x 2 ms of CPU per batch, a 4 ms step: the GPU waits. */
  ls_run_config c = config (1, 2000, LS_SINK_SIM, 4);
  c.pool.dataset.count = 16 * 20;
  ls_run_result r = run_ok (&c);
  g_test_message ("utilization %.3f, wait p50 %.2f ms", r.gpu_util_exact, r.wait_ms.p50);
  g_assert_cmpfloat (r.gpu_util_exact, >, 0.05);
  g_assert_cmpfloat (r.gpu_util_exact, <, 0.25);
  g_assert_cmpfloat (r.wait_ms.p50, >, 20);
  ls_run_result_clear (&r);
}

static void
test_more_workers_never_lower_utilization (void)
{
  double prev = 0;
  for (uint32_t w = 0; w <= 2; w++)
    {
      ls_run_config c = config (w, 600, LS_SINK_SIM, 5);
      ls_run_result r = run_ok (&c);
      g_test_message ("%u workers: utilization %.3f, %.0f samples/s, wait p50 %.2f ms", w, r.gpu_util_exact,
                      r.throughput_sps, r.wait_ms.p50);
      /* Timing noise (a loaded machine, sanitizers) moves it a little. */
      g_assert_cmpfloat (r.gpu_util_exact, >=, prev - 0.1);
      prev = r.gpu_util_exact;
      ls_run_result_clear (&r);
    }
}

static void
test_pin_modes_and_overlap (void)
{
  /* A slow link makes the copy matter: 16 x 64 x 64 x 3 x 4 bytes = 786 KB. */
  double util[2][3];
  uint64_t host[3];
  for (int nb = 0; nb < 2; nb++)
    for (int pin = 0; pin < 3; pin++)
      {
        ls_run_config c = config (2, 0, LS_SINK_SIM, 3);
        c.pool.dataset.width = c.pool.dataset.height = 64;
        c.pool.dataset.output = LS_OUTPUT_F32_CHW;
        c.sink.pin = (ls_pin_mode) pin;
        c.sink.non_blocking = nb;
        c.sink.sim_bandwidth_gbps[LS_PIN_OFF] = 0.25;
        c.sink.sim_bandwidth_gbps[LS_PIN_STAGING] = 0.5;
        c.sink.sim_bandwidth_gbps[LS_PIN_ARENA] = 0.5;
        ls_run_result r = run_ok (&c);
        util[nb][pin] = r.gpu_util_exact;
        host[pin] = r.host_bytes_copied;
        g_test_message ("non-blocking %d pin %s: utilization %.3f, copy p50 %.3f ms, host bytes %llu", nb,
                        ls_pin_mode_name ((ls_pin_mode) pin), r.gpu_util_exact, r.copy_ms.p50,
                        (unsigned long long) r.host_bytes_copied);
        if (pin == LS_PIN_OFF)
          g_assert_cmpfloat (r.copy_ms.p50, >, 3.0);
        ls_run_result_clear (&r);
      }
  /* Pinned memory copies faster than pageable: higher utilization. */
  g_assert_cmpfloat (util[0][LS_PIN_STAGING], >, util[0][LS_PIN_OFF]);
  g_assert_cmpfloat (util[0][LS_PIN_ARENA], >, util[0][LS_PIN_OFF]);
  /* Overlapping the copy with the step beats waiting for it. */
  g_assert_cmpfloat (util[1][LS_PIN_ARENA], >, util[0][LS_PIN_ARENA] + 0.1);
  /* Staging copies every batch once more on the host; the pinned arena does not. */
  g_assert_cmpuint (host[LS_PIN_STAGING], ==, 40ull * 16 * 64 * 64 * 3 * 4);
  g_assert_cmpuint (host[LS_PIN_ARENA], ==, 0);
  g_assert_cmpuint (host[LS_PIN_OFF], ==, 0);
}

static void
test_none_and_auto (void)
{
  ls_run_config c = config (1, 0, LS_SINK_NONE, 10);
  ls_run_result r = run_ok (&c);
  g_assert_cmpstr (r.sink_name, ==, "none");
  g_assert_false (r.simulated);
  g_assert_false (r.copy_ms.valid);
  g_assert_cmpfloat (r.gpu_util_exact, <, 0);
  g_assert_cmpstr (r.sink_note, ==, "");
  ls_run_result_clear (&r);

  /* No GPU here: auto says why and simulates. */
  c = config (1, 0, LS_SINK_AUTO, 1);
  r = run_ok (&c);
  g_assert_cmpstr (r.sink_name, ==, "sim");
  g_assert_true (r.simulated);
  g_assert_nonnull (strstr (r.sink_note, "using the simulated GPU sink"));
  ls_run_result_clear (&r);

  /* Explicit cuda without a GPU: the run does not start, and says why. */
  c = config (1, 0, LS_SINK_CUDA, 1);
  ls_error err = { 0 };
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_ERR_UNSUPPORTED);
  g_assert_true (strstr (err.message, "CUDA") || strstr (err.message, "cuda"));
}

static void
test_sampler_sees_a_worker_allocate (void)
{
  uint64_t peak[2];
  for (int alloc = 0; alloc < 2; alloc++)
    {
      ls_run_config c = config (1, 400, LS_SINK_NONE, 0);
      c.pool.dataset.count = 16 * 60; /* about 0.4 s of loading */
      c.pool.dataset.alloc_mb = alloc ? 100 : 0;
      c.sample_interval_ms = 100;
      ls_run_result r = run_ok (&c);
      g_assert_true (r.memory.valid & LS_PROCMEM_USS);
      g_assert_cmpuint (r.memory.n_series, >=, 3);
      peak[alloc] = r.memory.peak.uss_bytes;
      /* Every point has the runner and its worker. */
      size_t with_worker = 0;
      for (size_t i = 0; i < r.memory.n_series; i++)
        with_worker += r.memory.series[i].processes == 2;
      g_assert_cmpuint (with_worker, >=, 2);
      ls_run_result_clear (&r);
    }
  g_test_message ("peak USS %.1f MB without, %.1f MB with 100 MB in the worker", peak[0] / 1e6, peak[1] / 1e6);
  /* 100 MiB, less what the allocator (or a sanitizer's) does not make resident */
  g_assert_cmpuint (peak[1], >=, peak[0] + 85u * 1024 * 1024);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/sink/fast-loader-keeps-sim-gpu-busy", test_fast_loader_keeps_sim_gpu_busy);
  g_test_add_func ("/loader/sink/slow-loader-starves-sim-gpu", test_slow_loader_starves_sim_gpu);
  g_test_add_func ("/loader/sink/more-workers-never-lower-utilization", test_more_workers_never_lower_utilization);
  g_test_add_func ("/loader/sink/pin-modes-and-overlap", test_pin_modes_and_overlap);
  g_test_add_func ("/loader/sink/none-and-auto", test_none_and_auto);
  g_test_add_func ("/loader/memory/sampler-sees-a-worker-allocate", test_sampler_sees_a_worker_allocate);
  return ls_test_run_checked_shm_only ();
}
