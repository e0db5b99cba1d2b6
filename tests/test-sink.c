/* Sinks without a GPU: the simulated device's timeline and figures (in
 * virtual time, so that they do not depend on the machine's load), whole
 * runs on it (only what load cannot change), the none sink, auto's
 * fallback, and the memory sampler seeing every worker. */
#include <math.h>
#include <string.h>

#include "loader/run.h"
#include "loader/sink-sim.h"
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

/* ---- the sim sink's timeline in virtual time ----
 *
 * The device model is driven by a virtual clock: waiting advances it, and
 * a loader that makes one batch every load_ms is played against it the way
 * ls_run consumes batches (wait for the batch, submit, release what the
 * sink gives back; after the last, drain). Utilization is computed as
 * ls_run computes it: model-step time of the batches after the warm-up
 * over the time from the warm-up's end until the device is done. Nothing
 * here sleeps or reads the real clock, so no figure depends on how busy
 * the machine is. */

typedef struct {
  uint64_t now;
  uint64_t waits; /* how often the sink had to wait */
} vclock;

static uint64_t
vclock_now (void *user)
{
  return ((vclock *) user)->now;
}

static void
vclock_wait_until (void *user, uint64_t t)
{
  vclock *c = user;
  if (t > c->now)
    {
      c->now = t;
      c->waits++;
    }
}

typedef struct {
  double util;
  double copy_ms, compute_ms; /* of the last batch */
  double wall_ms;             /* first batch ready to the device done */
  uint64_t host_bytes;
  size_t max_held;            /* most slots the sink held at once */
} played;

#define PLAY_BATCHES 40
#define PLAY_WARMUP 2
/* Device-bound, the window holds one step more than it counts. */
#define EDGE ((double) (PLAY_BATCHES - PLAY_WARMUP) / (PLAY_BATCHES - PLAY_WARMUP + 1))

static played
play (const ls_sink_config *sc, size_t batch_bytes, double load_ms)
{
  vclock clock = { .now = 1000000000u };
  ls_sim_clock sim_clock = { vclock_now, vclock_wait_until, &clock };
  ls_sink *sink = NULL;
  ls_error err = { 0 };
  uint8_t *data = g_malloc0 (batch_bytes);
  bool held[PLAY_BATCHES] = { false };
  size_t n_held = 0;
  played out = { 0 };
  uint32_t release[LS_SINK_MAX_HELD + 2];
  size_t n_release = 0;
  uint64_t t0 = clock.now, window_start = clock.now;
  double busy = 0;

  g_assert_cmpint (ls_sink_sim_open_clocked (sc, NULL, &sim_clock, &sink, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_name (sink), ==, "sim");
  g_assert_true (ls_sink_simulated (sink));
  for (uint32_t k = 0; k < PLAY_BATCHES; k++)
    {
      /* The loader has batch k ready at t0 + k x load_ms. */
      uint64_t ready = t0 + (uint64_t) (k * load_ms * 1e6);
      if (clock.now < ready)
        clock.now = ready;
      ls_batch b = { .slot = k, .count = 16, .data = data, .bytes = batch_bytes };
      held[k] = true;
      n_held++;
      out.max_held = MAX (out.max_held, n_held);
      g_assert_cmpint (ls_sink_submit (sink, &b, release, &n_release, &err), ==, LS_OK);
      for (size_t i = 0; i < n_release; i++)
        {
          g_assert_true (release[i] <= k && held[release[i]]);
          held[release[i]] = false;
          n_held--;
        }
      if (k + 1 == PLAY_WARMUP)
        window_start = clock.now;
    }
  g_assert_cmpint (ls_sink_drain (sink, release, &n_release, &err), ==, LS_OK);
  for (size_t i = 0; i < n_release; i++)
    {
      g_assert_true (held[release[i]]);
      held[release[i]] = false;
      n_held--;
    }
  g_assert_cmpuint (n_held, ==, 0); /* every slot comes back */

  ls_sink_timing t[PLAY_BATCHES];
  size_t n = ls_sink_take_timings (sink, t, PLAY_BATCHES);
  g_assert_cmpuint (n, ==, PLAY_BATCHES);
  for (size_t i = 0; i < n; i++)
    {
      g_assert_cmpuint (t[i].seq, ==, i);
      if (i >= PLAY_WARMUP)
        busy += t[i].compute_ms;
    }
  out.util = busy / ((double) (clock.now - window_start) / 1e6);
  out.copy_ms = t[n - 1].copy_ms;
  out.compute_ms = t[n - 1].compute_ms;
  out.wall_ms = (double) (clock.now - t0) / 1e6;
  out.host_bytes = ls_sink_host_bytes_copied (sink);
  ls_sink_close (sink);
  g_free (data);
  return out;
}

static ls_sink_config
sim_config (double model_ms)
{
  ls_sink_config c;
  ls_sink_config_init (&c);
  c.kind = LS_SINK_SIM;
  c.model_ms = model_ms;
  return c;
}

/* 16 x 32 x 32 x 3 bytes, as the runs below. */
#define SMALL_BATCH ((size_t) 16 * 32 * 32 * 3)

static void
test_virtual_fast_loader_keeps_sim_gpu_busy (void)
{
  ls_sink_config c = sim_config (10);
  played p = play (&c, SMALL_BATCH, 0);
  double copy = SMALL_BATCH / 6e9 * 1e3;

  g_test_message ("utilization %.5f", p.util);
  g_assert_cmpfloat (fabs (p.compute_ms - 10), <, 1e-9);
  g_assert_cmpfloat (fabs (p.copy_ms - copy), <, 1e-6);
  /* Blocking copies wait for the step before: a step every 10 ms + copy.
   * (The window also holds the last warm-up step, which is not counted:
   * 38 of 39 periods, as in ls_run.) */
  g_assert_cmpfloat (fabs (p.util - EDGE * 10 / (10 + copy)), <, 1e-3);
  g_assert_cmpfloat (p.util, <=, 1.0);
  /* The run is as long as the device made it. */
  g_assert_cmpfloat (fabs (p.wall_ms - PLAY_BATCHES * (10 + copy)), <, 0.1);
}

static void
test_virtual_slow_loader_starves_sim_gpu (void)
{
  /* A batch every 32 ms (16 samples x 2 ms on one worker), a 4 ms step. */
  ls_sink_config c = sim_config (4);
  played p = play (&c, SMALL_BATCH, 32);
  g_test_message ("utilization %.5f", p.util);
  g_assert_cmpfloat (fabs (p.util - 4.0 / 32), <, 0.005);
}

static void
test_virtual_faster_loading_never_lowers_utilization (void)
{
  /* What more workers do: batches ready sooner. A 5 ms step. */
  const double load_ms[] = { 40, 20, 10, 6, 5, 2.5, 0 };
  double prev = 0;
  ls_sink_config c = sim_config (5);
  for (size_t i = 0; i < G_N_ELEMENTS (load_ms); i++)
    {
      played p = play (&c, SMALL_BATCH, load_ms[i]);
      g_test_message ("a batch every %.1f ms: utilization %.4f", load_ms[i], p.util);
      g_assert_cmpfloat (p.util, >=, prev);
      /* Loader-bound: the step over the loader's period; then device-bound. */
      double expect = load_ms[i] > 5 + SMALL_BATCH / 6e6 ? 5 / load_ms[i] : 5 / (5 + SMALL_BATCH / 6e6);
      g_assert_cmpfloat (p.util, >=, EDGE * expect - 1e-3);
      g_assert_cmpfloat (p.util, <=, expect + 1e-3);
      prev = p.util;
    }
  g_assert_cmpfloat (prev, >, 0.97);
}

static void
test_virtual_pin_modes_and_overlap (void)
{
  /* A slow link makes the copy matter: 16 x 64 x 64 x 3 x 4 bytes = 786 KB
   * at 0.25 GB/s pageable (3.15 ms), 0.5 GB/s pinned (1.57 ms); a 3 ms step. */
  const size_t bytes = (size_t) 16 * 64 * 64 * 3 * 4;
  double util[2][3];
  for (int nb = 0; nb < 2; nb++)
    for (int pin = 0; pin < 3; pin++)
      {
        ls_sink_config c = sim_config (3);
        c.pin = (ls_pin_mode) pin;
        c.non_blocking = nb;
        c.sim_bandwidth_gbps[LS_PIN_OFF] = 0.25;
        c.sim_bandwidth_gbps[LS_PIN_STAGING] = 0.5;
        c.sim_bandwidth_gbps[LS_PIN_ARENA] = 0.5;
        played p = play (&c, bytes, 0);
        double copy = bytes / (pin == LS_PIN_OFF ? 0.25e6 : 0.5e6);
        g_test_message ("non-blocking %d pin %s: utilization %.4f, copy %.3f ms, slots held %zu", nb,
                        ls_pin_mode_name ((ls_pin_mode) pin), p.util, p.copy_ms, p.max_held);
        util[nb][pin] = p.util;
        g_assert_cmpfloat (fabs (p.copy_ms - copy), <, 1e-6);
        /* Blocking: copy then step, one after the other. Non-blocking: the
         * copy of the next batch runs during the step. */
        double expect = EDGE * (nb ? 3 / MAX (3, copy) : 3 / (3 + copy));
        g_assert_cmpfloat (fabs (p.util - expect), <, 0.01);
        /* Staging copies every batch once more on the host and frees the
         * slot at once; the others hold it until its copy is done. */
        g_assert_cmpuint (p.host_bytes, ==, pin == LS_PIN_STAGING ? (uint64_t) PLAY_BATCHES * bytes : 0);
        g_assert_cmpuint (p.max_held, <=, pin == LS_PIN_STAGING ? 1 : LS_SINK_MAX_HELD + 1);
      }
  /* Pinned memory copies faster than pageable: higher utilization. */
  g_assert_cmpfloat (util[0][LS_PIN_STAGING], >, util[0][LS_PIN_OFF] + 0.1);
  g_assert_cmpfloat (util[0][LS_PIN_ARENA], >, util[0][LS_PIN_OFF] + 0.1);
  /* Overlapping the copy with the step beats waiting for it. */
  g_assert_cmpfloat (util[1][LS_PIN_ARENA], >, util[0][LS_PIN_ARENA] + 0.1);
}

/* ---- whole runs in real time: only what no load can change ---- */

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
  /* A loaded machine lowers utilization (how far is the benchmarks'
   * business, bench-pool); it can never pass 1 ... */
  g_test_message ("utilization %.3f", r.gpu_util_exact);
  g_assert_cmpfloat (r.gpu_util_exact, >, 0);
  g_assert_cmpfloat (r.gpu_util_exact, <=, 1.0);
  /* ... and the run is never shorter than the device made it: the
   * consumer really waits for the modelled steps. */
  g_assert_cmpfloat (r.measured_s * 1e3, >=, compute - 10);
  ls_run_result_clear (&r);
}

static void
test_slow_loader_starves_sim_gpu (void)
{
  /* One worker, 16 x 2 ms of CPU per batch, a 4 ms step: the GPU waits.
   * Load only makes the loader slower, so these bounds hold on any machine. */
  ls_run_config c = config (1, 2000, LS_SINK_SIM, 4);
  c.pool.dataset.count = 16 * 20;
  ls_run_result r = run_ok (&c);
  g_test_message ("utilization %.3f, wait p50 %.2f ms", r.gpu_util_exact, r.wait_ms.p50);
  g_assert_cmpfloat (r.gpu_util_exact, >, 0);
  g_assert_cmpfloat (r.gpu_util_exact, <, 0.25);
  /* Starved: the GPU waits longer for each batch than its modelled step
   * takes. Relative to the step, not a time in ms: how long the wait is
   * depends on the machine's load (20 ms was missed at 19.9 under ASan). */
  g_assert_cmpfloat (r.wait_ms.p50, >, r.compute_ms.p50);
  ls_run_result_clear (&r);
}

static void
test_pin_modes_in_a_run (void)
{
  /* The modelled figures of whole runs: copy times from bytes, host bytes. */
  uint64_t host[3];
  for (int pin = 0; pin < 3; pin++)
    {
      ls_run_config c = config (2, 0, LS_SINK_SIM, 3);
      c.pool.dataset.width = c.pool.dataset.height = 64;
      c.pool.dataset.output = LS_OUTPUT_F32_CHW;
      c.sink.pin = (ls_pin_mode) pin;
      c.sink.non_blocking = pin == LS_PIN_ARENA;
      c.sink.sim_bandwidth_gbps[LS_PIN_OFF] = 0.25;
      c.sink.sim_bandwidth_gbps[LS_PIN_STAGING] = 0.5;
      c.sink.sim_bandwidth_gbps[LS_PIN_ARENA] = 0.5;
      ls_run_result r = run_ok (&c);
      host[pin] = r.host_bytes_copied;
      double copy = 16.0 * 64 * 64 * 3 * 4 / (pin == LS_PIN_OFF ? 0.25e6 : 0.5e6);
      g_test_message ("pin %s: utilization %.3f, copy p50 %.3f ms, host bytes %llu",
                      ls_pin_mode_name ((ls_pin_mode) pin), r.gpu_util_exact, r.copy_ms.p50,
                      (unsigned long long) r.host_bytes_copied);
      g_assert_cmpfloat (fabs (r.copy_ms.p50 - copy), <, 1e-6);
      g_assert_cmpfloat (r.gpu_util_exact, >, 0);
      g_assert_cmpfloat (r.gpu_util_exact, <=, 1.0);
      ls_run_result_clear (&r);
    }
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

/* The worker's share is the tree's PSS less the runner's: the ballast is
 * private to the worker, so all of it counts there. The tree's USS is not
 * compared across runs: how much of the runner's memory a fresh fork shares
 * (and so leaves out of USS) varies from run to run by tens of MB. */
static uint64_t
workers_peak_pss (const ls_memory_summary *m)
{
  uint64_t peak = 0;
  for (size_t i = 0; i < m->n_series; i++)
    {
      const ls_memory_point *p = &m->series[i];
      if (p->pss_bytes > p->runner_pss_bytes)
        peak = MAX (peak, p->pss_bytes - p->runner_pss_bytes);
    }
  return peak;
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
      g_assert_true (r.memory.valid & LS_PROCMEM_PSS);
      g_assert_cmpuint (r.memory.n_series, >=, 3);
      peak[alloc] = workers_peak_pss (&r.memory);
      /* Every point has the runner and its worker. */
      size_t with_worker = 0;
      for (size_t i = 0; i < r.memory.n_series; i++)
        with_worker += r.memory.series[i].processes == 2;
      g_assert_cmpuint (with_worker, >=, 2);
      ls_run_result_clear (&r);
    }
  g_test_message ("worker's peak PSS %.1f MB without, %.1f MB with 100 MB in the worker", peak[0] / 1e6, peak[1] / 1e6);
  /* 100 MiB touched page by page: all resident, all the worker's own */
  g_assert_cmpuint (peak[1], >=, 95u * 1024 * 1024);
  g_assert_cmpuint (peak[1], >=, peak[0] + 60u * 1024 * 1024);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/sink/virtual/fast-loader-keeps-sim-gpu-busy", test_virtual_fast_loader_keeps_sim_gpu_busy);
  g_test_add_func ("/loader/sink/virtual/slow-loader-starves-sim-gpu", test_virtual_slow_loader_starves_sim_gpu);
  g_test_add_func ("/loader/sink/virtual/faster-loading-never-lowers-utilization",
                   test_virtual_faster_loading_never_lowers_utilization);
  g_test_add_func ("/loader/sink/virtual/pin-modes-and-overlap", test_virtual_pin_modes_and_overlap);
  g_test_add_func ("/loader/sink/fast-loader-keeps-sim-gpu-busy", test_fast_loader_keeps_sim_gpu_busy);
  g_test_add_func ("/loader/sink/slow-loader-starves-sim-gpu", test_slow_loader_starves_sim_gpu);
  g_test_add_func ("/loader/sink/pin-modes-in-a-run", test_pin_modes_in_a_run);
  g_test_add_func ("/loader/sink/none-and-auto", test_none_and_auto);
  g_test_add_func ("/loader/memory/sampler-sees-a-worker-allocate", test_sampler_sees_a_worker_allocate);
  return ls_test_run_checked_shm_only ();
}
