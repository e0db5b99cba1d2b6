/* The cuda sink (the CUDA driver API, loaded at run time). Without a
 * usable GPU (no driver, or no device) an explicit cuda sink is refused
 * with the reason named, and auto falls back to the simulated sink and
 * says why. With a GPU, every pin mode, blocking and not, moves real
 * batches and reports positive timings, releasing each slot exactly once.
 *
 * Built twice: test-sink-cuda against whichever driver the machine has
 * (the GPU half runs only where a GPU answers), and test-sink-cuda-fake
 * (LS_FAKE_CUDA) against tests/fake-cuda-driver.c through
 * $LOADSCOPE_CUDA_LIBRARY, where the GPU half always runs on a modelled
 * device, the calls the sink makes are traced, and errors are injected. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loader/cuda-driver.h"
#include "loader/gpumon.h"
#include "loader/run.h"
#include "loader/sink.h"
#include "platform/dynlib.h"
#include "test-util.h"

#ifdef LS_FAKE_CUDA
/* The stand-in driver's own functions, from the library the sink loads
 * (this handle also keeps its state alive between sinks). */
static struct {
  ls_dynlib *lib;
  int (*live_objects) (void);
  long (*kernels_launched) (void);
  long (*kernels_waited) (void);
  const char *(*trace) (void);
  void (*trace_clear) (void);
} fake;

static void
fake_open (void)
{
  const char *path = g_getenv ("LOADSCOPE_CUDA_LIBRARY");
  ls_error err = { 0 };
  void *p;

  if (!path)
    g_error ("LOADSCOPE_CUDA_LIBRARY is not set: run the tests with `meson test`");
  if (!(fake.lib = ls_dynlib_open (path, &err)))
    g_error ("%s", err.message);
#define FAKE_SYM(field, name)                                  \
  if (!(p = ls_dynlib_symbol (fake.lib, name, &err)))          \
    g_error ("%s", err.message);                               \
  memcpy (&fake.field, &p, sizeof p)
  FAKE_SYM (live_objects, "fake_cuda_live_objects");
  FAKE_SYM (kernels_launched, "fake_cuda_kernels_launched");
  FAKE_SYM (kernels_waited, "fake_cuda_kernels_waited");
  FAKE_SYM (trace, "fake_cuda_trace");
  FAKE_SYM (trace_clear, "fake_cuda_trace_clear");
#undef FAKE_SYM
}

/* Everything the sink took from the driver is given back. */
#define assert_runtime_clean() g_assert_cmpint (fake.live_objects (), ==, 0)
#else
#define assert_runtime_clean() ((void) 0)
#endif

#define SLOTS 6
#define BATCH 8
#define SAMPLE_BYTES (3 * 64 * 64 + 5) /* not a multiple of 16: the kernel's tail */

/* Asks the driver itself whether a device answers; why says what failed
 * ("<library> not found (...)", "cuInit failed with CUDA_ERROR_...",
 * "no CUDA device"). */
static gboolean
have_gpu (char *why, size_t why_len)
{
  ls_cuda_driver d;
  ls_error err = { 0 };
  int count = 0;
  CUresult e;

  if (ls_cuda_driver_load (&d, &err) != LS_OK)
    {
      g_snprintf (why, why_len, "%s", err.message);
      return FALSE;
    }
  if ((e = d.init (0)) != CUDA_SUCCESS)
    {
      g_snprintf (why, why_len, "cuInit failed with %s", ls_cuda_error_name (&d, e));
      ls_cuda_driver_unload (&d, 0);
      return FALSE;
    }
  e = d.device_get_count (&count);
  ls_cuda_driver_unload (&d, 1);
  if (e != CUDA_SUCCESS || count == 0)
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
      if (strcmp (why, "no CUDA device") == 0)
        g_assert_cmpstr (err.message, ==, "no CUDA device");
      else
        {
          /* "no usable GPU: " and the reason: the library missing, or the
           * call that failed with the error's name and its text. */
          g_assert_true (g_str_has_prefix (err.message, "no usable GPU: "));
          g_assert_nonnull (strstr (err.message, why));
          if (strstr (why, "cuInit"))
            g_assert_nonnull (strstr (err.message, " ("));
        }
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
    g_assert_nonnull (strstr (note, strcmp (why, "no CUDA device") == 0 ? "no CUDA device" : why));
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
  g_assert_nonnull (strstr (err.message, why));
  assert_runtime_clean ();
}

/* ----------------------------------------------------------- with a GPU */

/* Runs n batches through a sink, checking the slot protocol: a slot is
 * released once, only after it was submitted, at most LS_SINK_MAX_HELD are
 * held at a time, and all come back by the end of the drain. */
#ifdef LS_FAKE_CUDA
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
          submit_launched[k] = fake.kernels_launched ();
          submit_waited[k] = fake.kernels_waited ();
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

/* The sink gives its device's bus id, from cuDeviceGetPCIBusId or, when
 * that fails, from the device's attributes. */
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
  g_assert_cmpstr (ls_sink_device_name (sink), ==, "Fake GPU 1");
  ls_sink_close (sink);

  g_setenv ("FAKE_CUDA_FAIL", "cuDeviceGetPCIBusId", TRUE);
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_pci_bus_id (sink), ==, "0000:1c:00.0");
  ls_sink_close (sink);
  g_unsetenv ("FAKE_CUDA_FAIL");

  /* The other sinks have none, nor a driver. */
  c.kind = LS_SINK_SIM;
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_pci_bus_id (sink), ==, "");
  g_assert_cmpint (ls_sink_cuda_driver_version (sink), ==, 0);
  g_assert_cmpstr (ls_sink_cuda_driver_library (sink), ==, "");
  ls_sink_close (sink);

  g_unsetenv ("FAKE_CUDA_PCI_BUS");
  g_unsetenv ("FAKE_CUDA_DEVICES");
  ls_arena_close (&arena);
  assert_runtime_clean ();
}

/* A run on CUDA device 0, which NVML calls device 1 (CUDA_VISIBLE_DEVICES=1
 * on a two-GPU machine): the NVML series is device 1's. */
static void
run_config (ls_run_config *c, ls_sink_kind kind)
{
  memset (c, 0, sizeof *c);
  ls_pool_config_init (&c->pool);
  g_strlcpy (c->pool.dataset.kind, "synthetic", sizeof c->pool.dataset.kind);
  c->pool.dataset.count = 8 * 6;
  c->pool.dataset.width = c->pool.dataset.height = 16;
  c->pool.dataset.output = LS_OUTPUT_U8_HWC;
  c->pool.num_workers = 1;
  c->pool.batch_size = 8;
  c->pool.worker_path = g_getenv ("LOADSCOPE_WORKER");
  c->pool.epochs = 1;
  c->pool.timeout_s = 30;
  c->sample_interval_ms = 50;
  ls_sink_config_init (&c->sink);
  c->sink.kind = kind;
  c->sink.model_ms = 20;
}

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
  run_config (&c, LS_SINK_CUDA);
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

/* ------------------------------------------------- the calls, in order */

/* Whether the words of `want` appear in `trace` in that order. */
static gboolean
in_order (const char *trace, const char *const *want)
{
  const char *at = trace;
  for (; *want; want++)
    {
      g_autofree char *word = g_strdup_printf ("%s ", *want);
      const char *hit = strstr (at, word);
      while (hit && hit != trace && hit[-1] != ' ')
        hit = strstr (hit + 1, word);
      if (!hit)
        {
          g_test_message ("'%s' missing after %zu bytes of: %s", *want, (size_t) (at - trace), trace);
          return FALSE;
        }
      at = hit + strlen (word);
    }
  return TRUE;
}

/* Open: driver, device, primary context made current, module, memory,
 * streams, events, calibration. Each submit, exactly, per mode (the
 * two-stream scheme of sink-cuda-pipeline.c). Close: everything given back,
 * the context released last. */
static void
test_fake_call_order (void)
{
  static const char *const open_order[] = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDevicePrimaryCtxRetain",
    "cuCtxSetCurrent", "cuDeviceGetName", "cuDeviceGetAttribute", "cuDeviceGetPCIBusId", "cuModuleLoadData",
    "cuModuleGetFunction", "cuMemAlloc_v2", "cuMemsetD8_v2", "cuMemAlloc_v2", "cuMemsetD8_v2", "cuMemAlloc_v2",
    "cuMemHostRegister_v2", "cuStreamCreate", "cuStreamCreate", "cuEventCreate", "cuEventRecord", "cuLaunchKernel",
    "cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime_v2", NULL,
  };
  static const char *const close_order[] = {
    "cuCtxSetCurrent", "cuStreamSynchronize", "cuStreamSynchronize", "cuEventDestroy_v2", "cuMemFree_v2",
    "cuMemFree_v2", "cuMemFree_v2", "cuStreamDestroy_v2", "cuStreamDestroy_v2", "cuMemHostUnregister",
    "cuModuleUnload", "cuCtxSetCurrent", "cuDevicePrimaryCtxRelease_v2", NULL,
  };
  /* Non-blocking: copy on the copy stream, the step after its event, then
   * the wait for the step before (submit 1 on); the slot asked about. */
  const char *nb_first = "cuCtxSetCurrent cuEventRecord cuMemcpyHtoDAsync_v2 cuEventRecord cuStreamWaitEvent "
                         "cuEventRecord cuLaunchKernel cuEventRecord cuEventQuery ";
  const char *nb_next = "cuCtxSetCurrent cuEventRecord cuMemcpyHtoDAsync_v2 cuEventRecord cuStreamWaitEvent "
                        "cuEventRecord cuLaunchKernel cuEventRecord cuEventSynchronize cuEventElapsedTime_v2 "
                        "cuEventElapsedTime_v2 cuEventQuery ";
  /* Blocking: the step before first, the host waits for the copy. */
  const char *bl_next = "cuCtxSetCurrent cuStreamSynchronize cuEventRecord cuMemcpyHtoDAsync_v2 cuEventRecord "
                        "cuEventSynchronize cuStreamWaitEvent cuEventRecord cuLaunchKernel cuEventRecord "
                        "cuEventSynchronize cuEventElapsedTime_v2 cuEventElapsedTime_v2 ";
  ls_arena arena;

  make_arena (&arena);
  for (int nb = 1; nb >= 0; nb--)
    {
      ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_ARENA, nb, 1);
      ls_sink *sink = NULL;
      ls_error err = { 0 };
      uint32_t release[LS_SINK_MAX_HELD + 2];
      size_t n_release;

      fake.trace_clear ();
      g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
      g_assert_true (in_order (fake.trace (), open_order));
      g_assert_cmpint (ls_sink_cuda_driver_version (sink), ==, 13000);
      g_assert_cmpstr (ls_sink_cuda_driver_library (sink), ==, g_getenv ("LOADSCOPE_CUDA_LIBRARY"));
      for (uint32_t k = 0; k < 3; k++)
        {
          ls_batch b;
          memset (&b, 0, sizeof b);
          b.slot = k;
          b.batch = k;
          b.count = BATCH;
          b.data = ls_arena_data (&arena, k);
          b.bytes = (size_t) BATCH * SAMPLE_BYTES;
          fake.trace_clear ();
          g_assert_cmpint (ls_sink_submit (sink, &b, release, &n_release, &err), ==, LS_OK);
          g_test_message ("%s submit %u: %s", nb ? "non-blocking" : "blocking", k, fake.trace ());
          if (nb)
            g_assert_cmpstr (fake.trace (), ==, k == 0 ? nb_first : nb_next);
          else if (k > 0)
            g_assert_cmpstr (fake.trace (), ==, bl_next);
        }
      g_assert_cmpint (ls_sink_drain (sink, release, &n_release, &err), ==, LS_OK);
      fake.trace_clear ();
      ls_sink_close (sink);
      g_test_message ("close: %s", fake.trace ());
      g_assert_true (in_order (fake.trace (), close_order));
      g_assert_true (g_str_has_suffix (fake.trace (), "cuDevicePrimaryCtxRelease_v2 "));
      assert_runtime_clean ();
    }
  ls_arena_close (&arena);
}

/* Pinned copies (staging, the registered arena) are the modelled 24 GB/s,
 * pageable ones 8 GB/s: the sink's copy really comes from pinned memory. */
static void
test_fake_pinned_faster (void)
{
  ls_arena arena;
  double copy[3] = { 0 };

  make_arena (&arena);
  for (int pin = LS_PIN_OFF; pin <= LS_PIN_ARENA; pin++)
    {
      ls_sink_config c = sink_config (LS_SINK_CUDA, (ls_pin_mode) pin, TRUE, 1);
      ls_sink *sink = NULL;
      ls_error err = { 0 };
      ls_sink_timing t[8];
      g_assert_cmpint (ls_sink_open (&c, &arena, &sink, NULL, 0, &err), ==, LS_OK);
      pump (sink, &arena, 4);
      g_assert_cmpuint (ls_sink_take_timings (sink, t, 8), ==, 4);
      copy[pin] = t[0].copy_ms;
      ls_sink_close (sink);
    }
  g_test_message ("copy ms: pageable %.4f, staging %.4f, arena %.4f", copy[0], copy[1], copy[2]);
  g_assert_cmpfloat (copy[LS_PIN_STAGING], <, copy[LS_PIN_OFF]);
  g_assert_cmpfloat (copy[LS_PIN_ARENA], <, copy[LS_PIN_OFF]);
  ls_arena_close (&arena);
  assert_runtime_clean ();
}

/* ------------------------------------------ the stand-in's failures */

static void
test_fake_no_driver (void)
{
  char why[512];
  g_autofree char *fake_path = g_strdup (g_getenv ("LOADSCOPE_CUDA_LIBRARY"));

  /* No library: "<name> not found (<the loader's reason>)". */
  g_setenv ("LOADSCOPE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_assert_false (have_gpu (why, sizeof why));
  g_assert_true (g_str_has_prefix (why, "/nonexistent/libcuda.so.1 not found ("));
  check_refused (why);
  test_run_refused_without_gpu ();

  /* A library that is not a CUDA driver: the entry point it lacks. */
  g_setenv ("LOADSCOPE_CUDA_LIBRARY", g_getenv ("LS_FAKE_NVML"), TRUE);
  g_assert_false (have_gpu (why, sizeof why));
  g_assert_nonnull (strstr (why, "has no cuInit"));
  check_refused (why);
  g_setenv ("LOADSCOPE_CUDA_LIBRARY", fake_path, TRUE);

  /* cuInit fails: the driver's error, named. */
  g_setenv ("FAKE_CUDA_DEVICES", "-100", TRUE); /* CUDA_ERROR_NO_DEVICE */
  g_assert_false (have_gpu (why, sizeof why));
  g_assert_cmpstr (why, ==, "cuInit failed with CUDA_ERROR_NO_DEVICE");
  check_refused (why);
  test_run_refused_without_gpu ();
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

/* A driver older than the PTX: no usable GPU, and the reason says so;
 * auto uses the simulated GPU. */
static void
test_fake_driver_too_old (void)
{
  ls_arena arena;
  ls_sink *sink = NULL;
  ls_error err = { 0 };
  char note[LS_ERROR_MESSAGE_MAX];
  ls_sink_config c = sink_config (LS_SINK_CUDA, LS_PIN_OFF, FALSE, 1);

  make_arena (&arena);
  g_setenv ("FAKE_CUDA_DRIVER_VERSION", "9020", TRUE);
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_ERR_UNSUPPORTED);
  g_test_message ("%s", err.message);
  g_assert_null (sink);
  g_assert_true (g_str_has_prefix (err.message, "no usable GPU: cuModuleLoadData (the model step's PTX) failed with "
                                                "CUDA_ERROR_UNSUPPORTED_PTX_VERSION ("));
  g_assert_true (g_str_has_suffix (err.message, "the driver (9.2) is too old for the PTX"));
  assert_runtime_clean ();
  c.kind = LS_SINK_AUTO;
  g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_OK);
  g_assert_cmpstr (ls_sink_name (sink), ==, "sim");
  g_assert_nonnull (strstr (note, "too old for the PTX; using the simulated GPU sink"));
  ls_sink_close (sink);
  g_unsetenv ("FAKE_CUDA_DRIVER_VERSION");
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
    int calls; /* made at open */
  } cases[] = {
    { "cuMemAlloc_v2", LS_PIN_OFF, 3 },
    { "cuMemHostAlloc", LS_PIN_STAGING, 2 },
    { "cuMemHostRegister_v2", LS_PIN_ARENA, 1 },
  };
  ls_arena arena;

  make_arena (&arena);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int after = 0; after < cases[i].calls; after++)
      {
        ls_sink *sink = NULL;
        ls_error err = { 0 };
        char note[LS_ERROR_MESSAGE_MAX];
        ls_sink_config c = sink_config (LS_SINK_CUDA, cases[i].pin, TRUE, 1);

        /* The first such call fails, or a later one (some memory is held). */
        char after_text[8];
        g_snprintf (after_text, sizeof after_text, "%d", after);
        g_setenv ("FAKE_CUDA_FAIL", cases[i].call, TRUE);
        g_setenv ("FAKE_CUDA_FAIL_AFTER", after_text, TRUE);
        g_assert_cmpint (ls_sink_open (&c, &arena, &sink, note, sizeof note, &err), ==, LS_ERR_NOMEM);
        g_test_message ("%s", err.message);
        g_assert_null (sink);
        g_assert_true (g_str_has_prefix (err.message, "CUDA sink: "));
        g_assert_nonnull (strstr (err.message, cases[i].call));
        g_assert_nonnull (strstr (err.message, "failed with CUDA_ERROR_OUT_OF_MEMORY (out of memory)"));
        assert_runtime_clean ();

        g_unsetenv ("FAKE_CUDA_FAIL_AFTER");
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

/* The device lost mid-run (the fourth copy fails with a sticky error):
 * the run ends failed with the driver's words, what was measured before
 * is kept, and everything is given back although every call now fails. */
static void
test_fake_copy_fails_mid_run (void)
{
  ls_run_config c;
  ls_run_result r;
  ls_error err = { 0 };

  run_config (&c, LS_SINK_CUDA);
  c.sink.model_ms = 2;
  c.warmup = 0;
  g_setenv ("FAKE_CUDA_FAIL", "cuMemcpyHtoDAsync_v2", TRUE);
  g_setenv ("FAKE_CUDA_FAIL_AFTER", "3", TRUE);
  g_setenv ("FAKE_CUDA_FAIL_CODE", "700", TRUE); /* CUDA_ERROR_ILLEGAL_ADDRESS */
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_test_message ("status %d, %llu batches: %s", (int) r.status, (unsigned long long) r.batches, r.error);
  g_assert_cmpint (r.status, ==, LS_RUN_FAILED);
  g_assert_nonnull (strstr (r.error, "CUDA sink: cuMemcpyHtoDAsync_v2 ("));
  g_assert_nonnull (strstr (r.error, "failed with CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"));
  g_assert_cmpuint (r.batches, >=, 2);
  g_assert_cmpuint (r.batches, <=, 4);
  ls_run_result_clear (&r);
  g_unsetenv ("FAKE_CUDA_FAIL");
  g_unsetenv ("FAKE_CUDA_FAIL_AFTER");
  g_unsetenv ("FAKE_CUDA_FAIL_CODE");
  assert_runtime_clean ();

  /* The context was released, so the next sink starts afresh. */
  run_config (&c, LS_SINK_CUDA);
  c.sink.model_ms = 1;
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_assert_cmpint (r.status, ==, LS_RUN_DONE);
  ls_run_result_clear (&r);
  assert_runtime_clean ();
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifdef LS_FAKE_CUDA
  fake_open ();
#endif
  g_test_add_func ("/loader/sink-cuda/refused-without-gpu", test_refused_without_gpu);
  g_test_add_func ("/loader/sink-cuda/run-refused-without-gpu", test_run_refused_without_gpu);
  g_test_add_func ("/loader/sink-cuda/pin-modes-on-gpu", test_pin_modes_on_gpu);
  g_test_add_func ("/loader/sink-cuda/run-on-gpu", test_run_on_gpu);
  g_test_add_func ("/loader/sink-cuda/nvml-by-bus-id-on-gpu", test_nvml_by_bus_id_on_gpu);
#ifdef LS_FAKE_CUDA
  g_test_add_func ("/loader/sink-cuda/fake/pci-bus-id", test_fake_pci_bus_id);
  g_test_add_func ("/loader/sink-cuda/fake/run-nvml-by-bus-id", test_fake_run_nvml_by_bus_id);
  g_test_add_func ("/loader/sink-cuda/fake/call-order", test_fake_call_order);
  g_test_add_func ("/loader/sink-cuda/fake/pinned-faster", test_fake_pinned_faster);
  g_test_add_func ("/loader/sink-cuda/fake/no-driver", test_fake_no_driver);
  g_test_add_func ("/loader/sink-cuda/fake/no-device", test_fake_no_device);
  g_test_add_func ("/loader/sink-cuda/fake/bad-device-index", test_fake_bad_device_index);
  g_test_add_func ("/loader/sink-cuda/fake/driver-too-old", test_fake_driver_too_old);
  g_test_add_func ("/loader/sink-cuda/fake/allocation-failures", test_fake_allocation_failures);
  g_test_add_func ("/loader/sink-cuda/fake/copy-fails-mid-run", test_fake_copy_fails_mid_run);
#endif
  return ls_test_run_checked_shm_only ();
}
