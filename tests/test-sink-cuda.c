/* The cuda sink (built only when nvcc was found). Without a usable GPU —
 * no driver, or no device — an explicit cuda sink is refused with the CUDA
 * error named, and auto falls back to the simulated sink and says why.
 * With a GPU, every pin mode, blocking and not, moves real batches and
 * reports positive timings, releasing each slot exactly once.
 *
 * Built twice: test-sink-cuda against the real CUDA runtime (the GPU half
 * runs only where a GPU answers), and test-sink-cuda-fake against
 * fake-cudart.c (LS_FAKE_CUDA), where the GPU half always runs on a
 * modelled device, and errors can be injected. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "loader/gpumon.h"
#include "loader/run.h"
#include "loader/sink.h"
#include "test-util.h"

#ifdef LS_FAKE_CUDA
int fake_cuda_live_objects (void);
/* Everything the sink took from the runtime is given back. */
#define assert_runtime_clean() g_assert_cmpint (fake_cuda_live_objects (), ==, 0)
#else
#define assert_runtime_clean() ((void) 0)
#endif

#define SLOTS 6
#define BATCH 8
#define SAMPLE_BYTES (3 * 64 * 64 + 5) /* not a multiple of 16: the kernel's tail */

/* Asks the CUDA runtime itself whether a device answers. */
static gboolean
have_gpu (char *why, size_t why_len)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess)
    {
      g_snprintf (why, why_len, "cudaGetDeviceCount failed with %s", cudaGetErrorName (e));
      return FALSE;
    }
  if (count == 0)
    {
      g_snprintf (why, why_len, "no CUDA device");
      return FALSE;
    }
  return TRUE;
}

static void
make_arena (ls_arena *arena)
{
  ls_error err = { 0 };
  g_assert_cmpint (ls_arena_create (arena, SLOTS, BATCH, SAMPLE_BYTES, &err), ==, LS_OK);
  for (uint32_t s = 0; s < SLOTS; s++)
    {
      uint8_t *d = ls_arena_data (arena, s);
      for (size_t i = 0; i < (size_t) BATCH * SAMPLE_BYTES; i++)
        d[i] = (uint8_t) (i * 31 + s);
    }
}

static ls_sink_config
sink_config (ls_sink_kind kind, ls_pin_mode pin, gboolean non_blocking, double model_ms)
{
  ls_sink_config c;
  ls_sink_config_init (&c);
  c.kind = kind;
  c.pin = pin;
  c.non_blocking = non_blocking;
  c.model_ms = model_ms;
  return c;
}

/* ------------------------------------------------------------- no GPU */

static void
check_refused (const char *why)
{
  ls_arena arena;
  ls_sink *sink = (ls_sink *) 0x1;
  ls_error err = { 0 };
  char note[LS_ERROR_MESSAGE_MAX];

  g_test_message ("no GPU: %s", why);
  make_arena (&arena);

  /* Explicit cuda: an error naming the CUDA call and error, no sink. */
  for (int pin = LS_PIN_OFF; pin <= LS_PIN_ARENA; pin++)
    {
      ls_sink_config c = sink_config (LS_SINK_CUDA, (ls_pin_mode) pin, pin == LS_PIN_ARENA, 10);
      ls_error_clear (&err);
      g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_ERR_UNSUPPORTED);
      g_assert_null (sink);
      g_assert_cmpint (err.code, ==, LS_ERR_UNSUPPORTED);
      g_test_message ("cuda: %s", err.message);
      if (strstr (why, "cudaGetDeviceCount"))
        {
          g_assert_nonnull (strstr (err.message, "no usable GPU: cudaGetDeviceCount failed with cudaError"));
          /* The error's name and its text, e.g. "cudaErrorInsufficientDriver (CUDA driver ...)". */
          g_assert_nonnull (strstr (err.message, why + strlen ("cudaGetDeviceCount failed with ")));
          g_assert_nonnull (strstr (err.message, " ("));
        }
      else
        g_assert_cmpstr (err.message, ==, "no CUDA device");
    }
  /* A NULL err is allowed too. */
  {
    ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_STAGING, FALSE, 1);
    g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, NULL), ==, LS_ERR_UNSUPPORTED);
    g_assert_null (sink);
  }

  /* Auto: the simulated sink, labelled, with the reason in the note. */
  {
    ls_sink_config c = sink_config (LS_SINK_AUTO, LS_PIN_ARENA, TRUE, 1);
    ls_error_clear (&err);
    g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_OK);
    g_assert_nonnull (sink);
    g_test_message ("auto: %s", note);
    g_assert_cmpstr (ls_sink_name (sink), ==, "sim");
    g_assert_true (ls_sink_simulated (sink));
    g_assert_cmpint (ls_sink_kind_of (sink), ==, LS_SINK_SIM);
    g_assert_cmpstr (ls_sink_device_name (sink), ==, "simulated");
    if (strstr (why, "cudaGetDeviceCount"))
      g_assert_nonnull (strstr (note, "no usable GPU: cudaGetDeviceCount failed with cudaError"));
    else
      g_assert_nonnull (strstr (note, "no CUDA device"));
    g_assert_nonnull (strstr (note, "simulated"));
    ls_sink_close (sink);
  }
  ls_arena_close (&arena);
  assert_runtime_clean ();
}

static void
test_refused_without_gpu (void)
{
  char why[128];
  if (have_gpu (why, sizeof why))
    {
      g_test_skip ("a GPU answers here");
      return;
    }
  check_refused (why);
}

/* A whole run asking for cuda fails cleanly: the reason, no segment left
 * behind (the program's shm check), no worker left running. */
static void
test_run_refused_without_gpu (void)
{
  char why[128];
  ls_run_config c;
  ls_run_result r;
  ls_error err = { 0 };

  if (have_gpu (why, sizeof why))
    {
      g_test_skip ("a GPU answers here");
      return;
    }
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 64;
  c.pool.dataset.width = c.pool.dataset.height = 16;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.num_workers = 2;
  c.pool.batch_size = 8;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c.pool.epochs = 1;
  c.pool.timeout_s = 30;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_CUDA;
  c.sink.pin = LS_PIN_ARENA;
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_ERR_UNSUPPORTED);
  g_assert_nonnull (strstr (err.message, strstr (why, "cudaGetDeviceCount") ? "cudaGetDeviceCount" : "no CUDA device"));
  assert_runtime_clean ();
}

/* ----------------------------------------------------------- with a GPU */

/* Runs n batches through a sink, checking the slot protocol: a slot is
 * released once, only after it was submitted, at most LS_SINK_MAX_HELD are
 * held at a time, and all come back by the end of the drain. */
#ifdef LS_FAKE_CUDA
long fake_cuda_kernels_launched (void);
long fake_cuda_kernels_waited (void);
/* Per submit of the last pump: steps launched, and the latest step the
 * host had waited for, when it returned (counted, not timed). */
static long submit_launched[16], submit_waited[16];
#endif

static void
pump (ls_sink *sink, ls_arena *arena, uint32_t n)
{
  gboolean held[SLOTS] = { FALSE };
  uint32_t release[LS_SINK_MAX_HELD + 2];
  size_t n_release = 0, n_held = 0;
  ls_error err = { 0 };
  uint32_t next = 0;

  for (uint32_t k = 0; k < n; k++)
    {
      ls_batch b;
      memset (&b, 0, sizeof b);
      while (held[next % SLOTS])
        next++;
      b.slot = next++ % SLOTS;
      b.batch = k;
      b.count = k == n - 1 ? BATCH - 3 : BATCH; /* a short last batch */
      b.data = ls_arena_data (arena, b.slot);
      b.bytes = (size_t) b.count * SAMPLE_BYTES;
      held[b.slot] = TRUE;
      n_held++;
      if (ls_sink_submit (sink, &b, release, &n_release, &err) != LS_OK)
        g_error ("submit %u: %s", k, err.message);
#ifdef LS_FAKE_CUDA
      if (k < G_N_ELEMENTS (submit_launched))
        {
          submit_launched[k] = fake_cuda_kernels_launched ();
          submit_waited[k] = fake_cuda_kernels_waited ();
        }
#endif
      for (size_t i = 0; i < n_release; i++)
        {
          g_assert_cmpuint (release[i], <, SLOTS);
          g_assert_true (held[release[i]]);
          held[release[i]] = FALSE;
          n_held--;
        }
      g_assert_cmpuint (n_held, <=, LS_SINK_MAX_HELD);
    }
  if (ls_sink_drain (sink, release, &n_release, &err) != LS_OK)
    g_error ("drain: %s", err.message);
  for (size_t i = 0; i < n_release; i++)
    {
      g_assert_true (held[release[i]]);
      held[release[i]] = FALSE;
      n_held--;
    }
  g_assert_cmpuint (n_held, ==, 0);
}

static void
test_pin_modes_on_gpu (void)
{
  char why[128];
  ls_arena arena;
  const uint32_t n = 8;
  const double model_ms = 10;

  if (!have_gpu (why, sizeof why))
    {
      g_test_skip (why);
      return;
    }
  make_arena (&arena);
  for (int pin = LS_PIN_OFF; pin <= LS_PIN_ARENA; pin++)
    for (int nb = 0; nb <= 1; nb++)
      {
        ls_sink_config c = sink_config (LS_SINK_CUDA, (ls_pin_mode) pin, nb, model_ms);
        ls_sink *sink = NULL;
        ls_error err = { 0 };
        ls_sink_timing t[16];
        size_t got;
        uint64_t expect_host = 0;

        if (ls_sink_open (&c, &arena, &sink, NULL, 0, &err) != LS_OK)
          g_error ("open (pin %s, non_blocking %d): %s", ls_pin_mode_name ((ls_pin_mode) pin), nb, err.message);
        g_assert_cmpstr (ls_sink_name (sink), ==, "cuda");
        g_assert_false (ls_sink_simulated (sink));
        g_assert_cmpuint (strlen (ls_sink_device_name (sink)), >, 0);
        pump (sink, &arena, n);
        got = ls_sink_take_timings (sink, t, G_N_ELEMENTS (t));
        g_assert_cmpuint (got, ==, n);
        for (uint32_t k = 0; k < n; k++)
          {
            g_test_message ("%s %s #%u: copy %.3f ms, step %.3f ms, stage %.3f ms", ls_pin_mode_name ((ls_pin_mode) pin),
                            nb ? "non-blocking" : "blocking", k, t[k].copy_ms, t[k].compute_ms, t[k].stage_ms);
            g_assert_cmpuint (t[k].seq, ==, k);
            g_assert_cmpfloat (t[k].copy_ms, >, 0);
            g_assert_cmpfloat (t[k].compute_ms, >, 0);
            /* Generous here (other work may share the GPU); the device
             * check holds the step to 5 %. */
            g_assert_cmpfloat (fabs (t[k].compute_ms - model_ms), <, model_ms * 0.25);
            if (pin == LS_PIN_STAGING)
              {
                g_assert_cmpfloat (t[k].stage_ms, >, 0);
                expect_host += (size_t) (k == n - 1 ? BATCH - 3 : BATCH) * SAMPLE_BYTES;
              }
            else
              g_assert_cmpfloat (t[k].stage_ms, ==, 0);
          }
        g_assert_cmpuint (ls_sink_host_bytes_copied (sink), ==, expect_host);
#ifdef LS_FAKE_CUDA
        /* The consumer waits for the step before the one it queued, not
         * for its own: each submit queues one step and returns having
         * waited for the one before it (for the first: the calibration's).
         * Counted by the modelled device, so no machine load changes it. */
        for (uint32_t k = 0; k < n && k < G_N_ELEMENTS (submit_launched); k++)
          {
            if (k > 0)
              g_assert_cmpint (submit_launched[k], ==, submit_launched[k - 1] + 1);
            g_assert_cmpint (submit_waited[k], ==, submit_launched[k] - 1);
          }
#endif
        /* The sink can go on after a drain. */
        pump (sink, &arena, 3);
        g_assert_cmpuint (ls_sink_take_timings (sink, t, G_N_ELEMENTS (t)), ==, 3);
        g_assert_cmpuint (t[0].seq, ==, n);
        ls_sink_close (sink);
        assert_runtime_clean ();
      }

  /* model_ms 0: no spin, the step still reads the batch. */
  {
    ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_ARENA, TRUE, 0);
    ls_sink *sink = NULL;
    ls_error err = { 0 };
    ls_sink_timing t[8];
    g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
    pump (sink, &arena, 4);
    g_assert_cmpuint (ls_sink_take_timings (sink, t, 8), ==, 4);
    for (int k = 0; k < 4; k++)
      g_assert_cmpfloat (t[k].compute_ms, <, 1);
    ls_sink_close (sink);
    assert_runtime_clean ();
  }
  ls_arena_close (&arena);
}

/* A real run on the pinned arena with forked workers: they keep writing
 * into the registered memory after the sink pinned it. */
static void
test_run_on_gpu (void)
{
  char why[128];
  ls_run_config c;
  ls_run_result r;
  ls_error err = { 0 };

  if (!have_gpu (why, sizeof why))
    {
      g_test_skip (why);
      return;
    }
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 16 * 12;
  c.pool.dataset.width = c.pool.dataset.height = 64;
  c.pool.dataset.output = LS_OUTPUT_F32_CHW;
  c.pool.num_workers = 2;
  c.pool.batch_size = 16;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c.pool.epochs = 2;
  c.pool.timeout_s = 30;
  c.warmup = 2;
  c.sample_interval_ms = 50;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_CUDA;
  c.sink.pin = LS_PIN_ARENA;
  c.sink.non_blocking = true;
  c.sink.model_ms = 2;
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  if (r.status != LS_RUN_DONE)
    g_error ("run failed: %s", r.error);
  g_assert_cmpstr (r.sink_name, ==, "cuda");
  g_assert_false (r.simulated);
  g_assert_cmpuint (r.batches, ==, 24);
  g_assert_true (r.copy_ms.valid && r.compute_ms.valid);
  g_assert_cmpfloat (r.copy_ms.p50, >, 0);
  g_assert_cmpfloat (r.gpu_util_exact, >, 0);
  g_assert_cmpfloat (r.gpu_util_exact, <=, 1.0);
  g_assert_cmpuint (r.host_bytes_copied, ==, 0);
  ls_run_result_clear (&r);
  assert_runtime_clean ();
}

/* The GPU monitor finds the sink's device in NVML by its PCI bus id (on a
 * GPU machine: the real NVML, which must be there). */
static void
test_nvml_by_bus_id_on_gpu (void)
{
  char why[128];
  ls_arena arena;
  ls_sink *sink = NULL;
  ls_gpumon *mon = NULL;
  ls_gpumon_summary sum;
  ls_error err = { 0 };
  ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_OFF, TRUE, 1);

  if (!have_gpu (why, sizeof why))
    {
      g_test_skip (why);
      return;
    }
#ifdef LS_FAKE_CUDA
  g_setenv ("LOADSCOPE_NVML_LIBRARY", g_getenv ("LS_FAKE_NVML"), TRUE); /* bus 10 in both fakes */
#endif
  make_arena (&arena);
  if (ls_sink_open (&c, &arena, &sink, NULL, 0, &err) != LS_OK)
    g_error ("open: %s", err.message);
  const char *bus_id = ls_sink_pci_bus_id (sink);
  g_test_message ("CUDA device %d: %s, PCI bus id %s", c.device, ls_sink_device_name (sink), bus_id);
  g_assert_cmpuint (strlen (bus_id), >=, 12);
  if (ls_gpumon_start_device (bus_id, (unsigned) c.device, 20, &mon, &err) != LS_OK)
    g_error ("NVML: %s", err.message);
  ls_gpumon_stop (mon, &sum);
  g_test_message ("NVML device %u: %s, matched by %s%s%s", sum.device_index, sum.device_name,
                  sum.pci_bus_id[0] ? "PCI bus id " : "index", sum.pci_bus_id, sum.note);
  g_assert_cmpstr (sum.note, ==, "");
  g_assert_cmpstr (sum.pci_bus_id, ==, bus_id);
  g_assert_cmpuint (sum.valid & LS_GPUMON_MEM, !=, 0);
  ls_gpumon_summary_clear (&sum);
  ls_sink_close (sink);
  ls_arena_close (&arena);
  assert_runtime_clean ();
#ifdef LS_FAKE_CUDA
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
#endif
}

#ifdef LS_FAKE_CUDA
/* ------------------------------------------------ PCI bus ids, modelled */

/* The sink gives its device's bus id, from cudaDeviceGetPCIBusId or, when
 * that fails, from the device's properties. */
static void
test_fake_pci_bus_id (void)
{
  ls_arena arena;
  ls_sink *sink = NULL;
  ls_error err = { 0 };
  ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_OFF, FALSE, 1);

  make_arena (&arena);
  g_setenv ("FAKE_CUDA_PCI_BUS", "1b", TRUE);
  g_setenv ("FAKE_CUDA_DEVICES", "2", TRUE);
  c.device = 1;
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_pci_bus_id (sink), ==, "0000:1C:00.0");
  ls_sink_close (sink);

  g_setenv ("FAKE_CUDA_FAIL", "cudaDeviceGetPCIBusId", TRUE);
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_pci_bus_id (sink), ==, "0000:1c:00.0");
  ls_sink_close (sink);
  g_unsetenv ("FAKE_CUDA_FAIL");

  /* The other sinks have none. */
  c.kind = LS_SINK_SIM;
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_pci_bus_id (sink), ==, "");
  ls_sink_close (sink);

  g_unsetenv ("FAKE_CUDA_PCI_BUS");
  g_unsetenv ("FAKE_CUDA_DEVICES");
  ls_arena_close (&arena);
  assert_runtime_clean ();
}

/* A run on CUDA device 0, which NVML calls device 1 (CUDA_VISIBLE_DEVICES=1
 * on a two-GPU machine): the NVML series is device 1's. */
static void
test_fake_run_nvml_by_bus_id (void)
{
  const char *nvml = g_getenv ("LS_FAKE_NVML");
  ls_run_config c;
  ls_run_result r;
  ls_error err = { 0 };

  if (!nvml)
    g_error ("LS_FAKE_NVML is not set: run the tests with `meson test`");
  g_setenv ("LOADSCOPE_NVML_LIBRARY", nvml, TRUE);
  g_setenv ("FAKE_NVML_DEVICES", "2", TRUE);
  g_setenv ("FAKE_CUDA_PCI_BUS", "11", TRUE);
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 8 * 6;
  c.pool.dataset.width = c.pool.dataset.height = 16;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.num_workers = 1;
  c.pool.batch_size = 8;
  c.pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c.pool.epochs = 1;
  c.pool.timeout_s = 30;
  c.sample_interval_ms = 50;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_CUDA;
  c.sink.model_ms = 20;
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  if (r.status != LS_RUN_DONE)
    g_error ("run failed: %s", r.error);
  g_test_message ("gpu note: '%s', NVML device %u (%s), bus id %s", r.gpu_note, r.gpu.device_index,
                  r.gpu.device_name, r.gpu.pci_bus_id);
  g_assert_cmpstr (r.gpu_note, ==, "");
  g_assert_cmpuint (r.gpu.device_index, ==, 1);
  g_assert_cmpstr (r.gpu.device_name, ==, "Fake GPU 1");
  g_assert_cmpstr (r.gpu.pci_bus_id, ==, "0000:11:00.0");
  g_assert_cmpstr (r.gpu.note, ==, "");
  g_assert_cmpuint (r.gpu.samples, >=, 1);
  ls_run_result_clear (&r);

  /* A bus id NVML does not know: device 0 by index, and the note says so. */
  g_setenv ("FAKE_CUDA_PCI_BUS", "3b", TRUE);
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_assert_cmpint (r.status, ==, LS_RUN_DONE);
  g_test_message ("gpu note: %s", r.gpu.note);
  g_assert_cmpuint (r.gpu.device_index, ==, 0);
  g_assert_nonnull (strstr (r.gpu.note, "chosen by index 0"));
  g_assert_nonnull (strstr (r.gpu.note, "0000:3B:00.0"));
  ls_run_result_clear (&r);

  g_unsetenv ("FAKE_CUDA_PCI_BUS");
  g_unsetenv ("FAKE_NVML_DEVICES");
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
  assert_runtime_clean ();
}

/* ------------------------------------------- the fake runtime's failures */

static void
test_fake_no_driver (void)
{
  char why[128];
  g_setenv ("FAKE_CUDA_DEVICES", "-35", TRUE); /* cudaErrorInsufficientDriver */
  g_assert_false (have_gpu (why, sizeof why));
  check_refused (why);
  test_run_refused_without_gpu ();
  g_setenv ("FAKE_CUDA_DEVICES", "-100", TRUE); /* cudaErrorNoDevice */
  g_assert_false (have_gpu (why, sizeof why));
  check_refused (why);
  g_unsetenv ("FAKE_CUDA_DEVICES");
}

static void
test_fake_no_device (void)
{
  char why[128];
  g_setenv ("FAKE_CUDA_DEVICES", "0", TRUE);
  g_assert_false (have_gpu (why, sizeof why));
  g_assert_cmpstr (why, ==, "no CUDA device");
  check_refused (why);
  g_unsetenv ("FAKE_CUDA_DEVICES");
}

static void
test_fake_bad_device_index (void)
{
  ls_arena arena;
  ls_sink *sink = NULL;
  ls_error err = { 0 };
  ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_OFF, FALSE, 1);

  make_arena (&arena);
  c.device = 3;
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_ERR_INVALID);
  g_assert_null (sink);
  g_assert_nonnull (strstr (err.message, "CUDA device 3 does not exist"));
  ls_arena_close (&arena);
  assert_runtime_clean ();
}

/* An allocation that fails: an error naming the call and CUDA's error,
 * everything taken so far given back; auto falls back to sim. */
static void
test_fake_allocation_failures (void)
{
  static const struct {
    const char *call;
    ls_pin_mode pin;
  } cases[] = {
    { "cudaMalloc", LS_PIN_OFF },
    { "cudaHostAlloc", LS_PIN_STAGING },
    { "cudaHostRegister", LS_PIN_ARENA },
  };
  ls_arena arena;

  make_arena (&arena);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ls_sink *sink = NULL;
      ls_error err = { 0 };
      char note[LS_ERROR_MESSAGE_MAX];
      ls_sink_config c = sink_config (LS_SINK_CUDA, cases[i].pin, TRUE, 1);

      g_setenv ("FAKE_CUDA_FAIL", cases[i].call, TRUE);
      g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_ERR_NOMEM);
      g_test_message ("%s", err.message);
      g_assert_null (sink);
      g_assert_true (g_str_has_prefix (err.message, "CUDA sink: "));
      g_assert_nonnull (strstr (err.message, cases[i].call));
      g_assert_nonnull (strstr (err.message, "failed with cudaErrorMemoryAllocation (out of memory)"));
      assert_runtime_clean ();

      c.kind = LS_SINK_AUTO;
      g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_OK);
      g_assert_cmpstr (ls_sink_name (sink), ==, "sim");
      g_assert_nonnull (strstr (note, cases[i].call));
      ls_sink_close (sink);
      assert_runtime_clean ();
      g_unsetenv ("FAKE_CUDA_FAIL");
    }
  ls_arena_close (&arena);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/sink-cuda/refused-without-gpu", test_refused_without_gpu);
  g_test_add_func ("/loader/sink-cuda/run-refused-without-gpu", test_run_refused_without_gpu);
  g_test_add_func ("/loader/sink-cuda/pin-modes-on-gpu", test_pin_modes_on_gpu);
  g_test_add_func ("/loader/sink-cuda/run-on-gpu", test_run_on_gpu);
  g_test_add_func ("/loader/sink-cuda/nvml-by-bus-id-on-gpu", test_nvml_by_bus_id_on_gpu);
#ifdef LS_FAKE_CUDA
  g_test_add_func ("/loader/sink-cuda/fake/pci-bus-id", test_fake_pci_bus_id);
  g_test_add_func ("/loader/sink-cuda/fake/run-nvml-by-bus-id", test_fake_run_nvml_by_bus_id);
  g_test_add_func ("/loader/sink-cuda/fake/no-driver", test_fake_no_driver);
  g_test_add_func ("/loader/sink-cuda/fake/no-device", test_fake_no_device);
  g_test_add_func ("/loader/sink-cuda/fake/bad-device-index", test_fake_bad_device_index);
  g_test_add_func ("/loader/sink-cuda/fake/allocation-failures", test_fake_allocation_failures);
#endif
  return ls_test_run_checked_shm_only ();
}
