/* A plain-C self-test of the worker pool (loader/), with no GLib, so that the
 * same program runs natively on Linux (under `meson test`) and as a Windows
 * build under Wine (scripts/windows/selftest-wine.sh), where workers can only be
 * spawned. It runs a small synthetic dataset for two epochs in-process and
 * with two spawned workers and compares the batch checksums, then checks
 * each way a run fails: a bad sample (skip or fail), a worker killed from
 * outside, a worker that crashes, one that hangs past the timeout, and a
 * worker executable that does not exist. Then the cuda sink: without a
 * driver, auto falls back to the simulated GPU and says the library was
 * not found; with the stand-in driver (tests/fake-cuda-driver.c, whose
 * path $LS_SELFTEST_CUDA_STANDIN gives; under Wine as well) a run on
 * it in every pin mode, blocking and not, records copy and compute times.
 *
 *   loader-selftest [WORKER]      WORKER defaults to $LOADSCOPE_WORKER
 *
 * Prints "ok - NAME" or "FAIL - NAME: reason" per check and ends with
 * "N passed, N failed"; the exit status is 1 if anything failed. */
#include "selftest-harness.h"

#include "loader/dataset.h"
#include "loader/gpumon.h"
#include "loader/pool.h"
#include "loader/run.h"
#include "platform/clock.h"
#include "platform/error.h"
#include "platform/process.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#endif

#define N_SAMPLES 300
#define BATCH 16
#define EPOCHS 2
#define BATCHES_PER_EPOCH ((N_SAMPLES + BATCH - 1) / BATCH) /* 19 */

static const char *worker;

static int
starts_with (const char *s, const char *prefix)
{
  return strncmp (s, prefix, strlen (prefix)) == 0;
}

/* ------------------------------------------------------------ helpers */

static ls_run_config
small_config (uint32_t workers)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  snprintf (c.pool.dataset.kind, sizeof c.pool.dataset.kind, "%s", "synthetic");
  c.pool.dataset.count = N_SAMPLES;
  c.pool.dataset.width = 16;
  c.pool.dataset.height = 12;
  c.pool.dataset.seed = 7;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.seed = 7;
  c.pool.num_workers = workers;
  c.pool.batch_size = BATCH;
  c.pool.shuffle = true;
  c.pool.start = LS_START_SPAWN; /* the only method on Windows */
  c.pool.worker_path = worker;
  c.pool.epochs = EPOCHS;
  c.pool.timeout_s = 30;
  c.checksum = true;
  c.sample_interval_ms = 50;
  return c;
}

/* Runs one configuration. Returns 1 when ls_run accepted it (r then holds
 * the outcome, to be cleared by the caller); otherwise reports a failure
 * under `name` and returns 0. */
static int
run (const char *name, const ls_run_config *c, ls_run_result *r)
{
  ls_error err = { 0 };
  memset (r, 0, sizeof *r);
  int rc = ls_run (c, r, &err);
  if (rc != LS_OK)
    {
      check (0, name, "ls_run refused the configuration: %s", err.message);
      ls_run_result_clear (r);
      return 0;
    }
  return 1;
}

/* Runs and expects LS_RUN_DONE. */
static int
run_done (const char *name, const ls_run_config *c, ls_run_result *r)
{
  if (!run (name, c, r))
    return 0;
  if (r->status != LS_RUN_DONE)
    {
      check (0, name, "run status %d: %s", (int) r->status, r->error);
      ls_run_result_clear (r);
      return 0;
    }
  return 1;
}

/* Every worker reported ready and exited with code 0 after the run. */
static void
check_workers (const char *what, const ls_run_result *r, size_t want)
{
  char name[160];
  char why[256] = "";

  snprintf (name, sizeof name, "%s: %zu workers started, each ready (startup_ms >= 0)", what, want);
  for (size_t i = 0; i < r->n_workers && !why[0]; i++)
    if (!(r->workers[i].startup_ms >= 0))
      snprintf (why, sizeof why, "worker %zu (index %" PRIu32 ", epoch %" PRIu32 ") startup_ms %.2f", i,
                r->workers[i].index, r->workers[i].epoch, r->workers[i].startup_ms);
  if (r->n_workers != want)
    snprintf (why, sizeof why, "%zu workers started", r->n_workers);
  check (!why[0], name, "%s", why);

  snprintf (name, sizeof name, "%s: every worker exited with code 0", what);
  why[0] = '\0';
  for (size_t i = 0; i < r->n_workers && !why[0]; i++)
    if (r->workers[i].exit.kind != LS_EXIT_CODE || r->workers[i].exit.code != 0)
      snprintf (why, sizeof why, "worker %zu (index %" PRIu32 ", pid %lu) %s", i, r->workers[i].index,
                (unsigned long) r->workers[i].pid, describe (&r->workers[i].exit));
  check (!why[0], name, "%s", why);
}

/* ------------------------------------------------------------ checks */

static uint64_t ref_checksum, ref_samples;
static int have_ref;

static void
test_in_process_reference (void)
{
  ls_run_config c = small_config (0);
  ls_run_result r;
  const char *name = "in-process run, 2 epochs";

  if (!run_done (name, &c, &r))
    return;
  check (r.checksum != 0 && r.samples == EPOCHS * N_SAMPLES && r.batches == EPOCHS * BATCHES_PER_EPOCH, name,
         "checksum %016" PRIx64 ", %" PRIu64 " samples in %" PRIu64 " batches", r.checksum, r.samples, r.batches);
  ref_checksum = r.checksum;
  ref_samples = r.samples;
  have_ref = 1;
  printf ("# in-process checksum %016" PRIx64 "\n", ref_checksum);
  ls_run_result_clear (&r);
}

static void
test_spawn_matches (bool persistent, bool in_order)
{
  ls_run_config c = small_config (2);
  ls_run_result r;
  char what[96], name[160];

  c.pool.persistent_workers = persistent;
  c.pool.in_order = in_order;
  snprintf (what, sizeof what, "2 spawned workers, %s, %s", persistent ? "persistent" : "new each epoch",
            in_order ? "in order" : "as completed");
  if (!run_done (what, &c, &r))
    return;
  snprintf (name, sizeof name, "%s: same checksum and samples as in-process", what);
  check (have_ref && r.checksum == ref_checksum && r.samples == ref_samples, name,
         "checksum %016" PRIx64 " (in-process %016" PRIx64 "), %" PRIu64 " samples (in-process %" PRIu64 ")",
         r.checksum, ref_checksum, r.samples, ref_samples);
  if (in_order)
    {
      check_workers (what, &r, persistent ? 2 : 2 * EPOCHS);
      snprintf (name, sizeof name, "%s: time_to_first_batch_ms > 0, epoch_boundary_ms >= 0", what);
      check (r.time_to_first_batch_ms > 0 && r.epoch_boundary_ms >= 0, name,
             "time_to_first_batch_ms %.3f, epoch_boundary_ms %.3f", r.time_to_first_batch_ms, r.epoch_boundary_ms);
      printf ("# %s: first batch %.1f ms, epoch boundary %.1f ms, wall %.2f s\n", what, r.time_to_first_batch_ms,
              r.epoch_boundary_ms, r.wall_s);
    }
  ls_run_result_clear (&r);
}

static void
test_skip_and_fail (void)
{
  ls_run_config c;
  ls_run_result r;
  uint64_t in_process = 0;
  int have_in_process = 0;

  c = small_config (0);
  c.pool.dataset.fail_every = 25;
  c.pool.skip_bad_samples = true;
  if (run_done ("in-process run, skip bad samples", &c, &r))
    {
      check (r.skipped_samples == EPOCHS * (N_SAMPLES / 25), "in-process skip: skipped_samples == 24",
             "skipped %" PRIu64, r.skipped_samples);
      in_process = r.checksum;
      have_in_process = 1;
      ls_run_result_clear (&r);
    }

  c = small_config (2);
  c.pool.dataset.fail_every = 25;
  c.pool.skip_bad_samples = true;
  if (run_done ("2 spawned workers, skip bad samples", &c, &r))
    {
      check (r.skipped_samples == EPOCHS * (N_SAMPLES / 25) && r.samples == EPOCHS * N_SAMPLES,
             "spawned skip: skipped_samples == 24, all samples delivered",
             "skipped %" PRIu64 ", samples %" PRIu64, r.skipped_samples, r.samples);
      check (have_in_process && r.checksum == in_process, "spawned skip: same checksum as in-process skip",
             "checksum %016" PRIx64 " (in-process %016" PRIx64 ")", r.checksum, in_process);
      ls_run_result_clear (&r);
    }

  c = small_config (2);
  c.pool.dataset.fail_every = 25;
  c.pool.skip_bad_samples = false;
  if (run ("2 spawned workers, fail on a bad sample", &c, &r))
    {
      check (r.status == LS_RUN_FAILED && starts_with (r.error, "sample ") && strstr (r.error, "injected failure"),
             "fail policy: LS_RUN_FAILED, error names the sample", "status %d, error [%s]", (int) r.status, r.error);
      ls_run_result_clear (&r);
    }
}

static int
kill_from_outside (ls_pid pid, char *why, size_t len)
{
#ifdef _WIN32
  HANDLE h = OpenProcess (PROCESS_TERMINATE, FALSE, (DWORD) pid);
  if (!h)
    {
      snprintf (why, len, "OpenProcess(%lu) failed: error %lu", (unsigned long) pid, (unsigned long) GetLastError ());
      return 0;
    }
  BOOL ok = TerminateProcess (h, 9);
  DWORD e = GetLastError ();
  CloseHandle (h);
  if (!ok)
    {
      snprintf (why, len, "TerminateProcess(%lu) failed: error %lu", (unsigned long) pid, (unsigned long) e);
      return 0;
    }
  return 1;
#else
  if (kill ((pid_t) pid, SIGKILL) != 0)
    {
      snprintf (why, len, "kill(%d, SIGKILL): %s", (int) pid, strerror (errno));
      return 0;
    }
  return 1;
#endif
}

static void
test_killed_worker (void)
{
  /* Promptly: by the pool's watch on its workers, long before the batch
   * timeout (120 s); the bound leaves room for a loaded machine. */
  const char *name = "worker killed from outside is named promptly";
  ls_pool_config c = small_config (2).pool;
  ls_pool *pool = NULL;
  ls_error err = { 0 };
  ls_batch b;
  size_t n = 0;
  char expect[160], why[256];
  int rc;

  c.dataset.sample_cost_us = 2000; /* slow enough that the kill lands mid-run */
  c.dataset.work_per_us = ls_synthetic_calibrate ();
  c.timeout_s = 120;
  if (ls_pool_create (&c, &pool, &err) != LS_OK)
    {
      check (0, name, "ls_pool_create: %s", err.message);
      return;
    }
  if ((rc = ls_pool_next (pool, &b, &err)) != LS_OK)
    {
      check (0, name, "first batch: rc %d: %s", rc, err.message);
      ls_pool_free (pool);
      return;
    }
  ls_pool_release (pool, &b);
  const ls_worker_info *w = ls_pool_workers (pool, &n);
  if (n != 2)
    {
      check (0, name, "%zu workers after the first batch", n);
      ls_pool_free (pool);
      return;
    }
  ls_pid victim = w[1].pid;
  if (!kill_from_outside (victim, why, sizeof why))
    {
      check (0, name, "%s", why);
      ls_pool_free (pool);
      return;
    }
  uint64_t t0 = ls_clock_ns ();
  uint64_t got = 0;
  while ((rc = ls_pool_next (pool, &b, &err)) == LS_OK)
    {
      ls_pool_release (pool, &b);
      got++;
    }
  double ms = ms_since (t0);
#ifdef _WIN32
  snprintf (expect, sizeof expect, "worker 1 (pid %lu) exited with code 9", (unsigned long) victim);
#else
  snprintf (expect, sizeof expect, "worker 1 (pid %lu) killed by signal 9 (SIGKILL)", (unsigned long) victim);
#endif
  check (rc != LS_OK && rc != LS_POOL_END, "killed worker: the pool reports an error", "rc %d after %" PRIu64 " batches",
         rc, got);
  /* detected from the worker's exit, not the timeout: said by the error's words below, not timed */
  check (rc < 0, "killed worker: detected", "took %.0f ms (rc %d)", ms, rc);
  check (rc < 0 && starts_with (err.message, expect), "killed worker: error names worker 1, its pid and how it ended",
         "got [%s], want it to start with [%s]", err.message, expect);
  printf ("# kill detected in %.1f ms: %s\n", ms, err.message);
  ls_pool_free (pool);
}

static void
test_crash (void)
{
  ls_run_config c = small_config (2);
  ls_run_result r;
  const char *name = "crashing worker is reported";
#ifdef _WIN32
  const char *how = "crashed with exception 0xC0000005 (access violation)";
#else
  const char *how = "killed by signal 11 (SIGSEGV)";
#endif

  c.pool.shuffle = false;
  c.pool.dataset.crash_at = 100 + 1; /* batch 6 of epoch 0 */
  if (!run (name, &c, &r))
    return;
  check (r.status == LS_RUN_FAILED && strstr (r.error, how) && strstr (r.error, "while building batch 6 of epoch 0"),
         name, "status %d, error [%s]", (int) r.status, r.error);
  ls_run_result_clear (&r);
}

static void
test_hang_timeout (void)
{
  ls_run_config c = small_config (2);
  ls_run_result r;
  const char *name = "hanging worker trips the 1 s timeout";

  c.pool.shuffle = false;
  c.pool.timeout_s = 1;
  c.pool.dataset.hang_at = 40 + 1; /* batch 2 */
  uint64_t t0 = ls_clock_ns ();
  if (!run (name, &c, &r))
    return;
  double s = ms_since (t0) / 1000.0;
  check (r.status == LS_RUN_FAILED && strstr (r.error, "timed out after 1.0 s waiting for batch 2 of epoch 0"), name,
         "status %d, error [%s]", (int) r.status, r.error);
  /* The 1 s timeout, not the end of the test: far below its time limit. */
  check (s < 30, "hang: the run ends at the timeout, not never", "took %.1f s", s);
  ls_run_result_clear (&r);
}

static void
test_missing_worker (void)
{
  ls_run_config c = small_config (2);
  ls_run_result r;
  const char *name = "missing worker executable is named";
#ifdef _WIN32
  const char *path = "Z:\\nonexistent\\loadscope-worker.exe";
#else
  const char *path = "/nonexistent/loadscope-worker";
#endif

  c.pool.worker_path = path;
  if (!run (name, &c, &r))
    return;
  check (r.status == LS_RUN_FAILED && strstr (r.error, path), name, "status %d, error [%s]", (int) r.status, r.error);
  ls_run_result_clear (&r);
}

/* Where NVML is absent (Wine has no nvml.dll) the GPU monitor says so and
 * nothing else happens; where it is present, it samples. */
static void
test_gpumon (void)
{
  const char *name = "GPU monitor: NVML absent is unsupported, present samples";
  ls_error err = { 0 };
  ls_gpumon *m = NULL;

  int rc = ls_gpumon_start (0, 20, &m, &err);
  if (rc == LS_OK)
    {
      ls_gpumon_summary s;
      ls_sleep_ms (50);
      ls_gpumon_stop (m, &s);
      check (s.samples >= 2 && s.valid != 0, name, "%" PRIu64 " samples, valid %u", s.samples, s.valid);
      ls_gpumon_summary_clear (&s);
      return;
    }
  check (rc == LS_ERR_UNSUPPORTED && !m && starts_with (err.message, "NVML unavailable: "), name,
         "rc %d, message [%s]", rc, err.message);
  printf ("# %s\n", err.message);
}

/* The cuda sink on this system: the driver missing, then the stand-in. */
static void
test_cuda_sink (void)
{
  const char *standin = getenv ("LS_SELFTEST_CUDA_STANDIN");
  const char *override = getenv ("LOADSCOPE_CUDA_LIBRARY");
  ls_run_config c = small_config (2);
  ls_run_result r;

  c.pool.epochs = 1;
  c.sink.model_ms = 1;
  if (!override || !*override)
    {
      /* Wine has no nvcuda.dll, nor this machine libcuda.so.1 (else skip). */
#ifdef _WIN32
      const char *why = "no usable GPU: nvcuda.dll not found (";
#else
      const char *why = "no usable GPU: libcuda.so.1 not found (";
#endif
      c.sink.kind = LS_SINK_AUTO;
      if (run ("cuda sink: auto without a driver", &c, &r))
        {
          if (strcmp (r.sink_name, "cuda") == 0)
            printf ("# a CUDA driver answers here: %s\n", r.device_name);
          else
            check (r.status == LS_RUN_DONE && r.simulated && starts_with (r.sink_note, why),
                   "cuda sink: auto without a driver falls back to sim and says why", "status %d, sim %d, note [%s]",
                   (int) r.status, (int) r.simulated, r.sink_note);
          ls_run_result_clear (&r);
        }
    }
  if (!standin || !*standin)
    return;
  /* From here on the sink loads the stand-in driver. */
#ifdef _WIN32
  _putenv_s ("LOADSCOPE_CUDA_LIBRARY", standin);
#else
  setenv ("LOADSCOPE_CUDA_LIBRARY", standin, 1);
#endif
  c.sink.kind = LS_SINK_CUDA;
  for (int pin = LS_PIN_OFF; pin <= LS_PIN_ARENA; pin++)
    for (int nb = 0; nb <= 1; nb++)
      {
        char name[128];
        snprintf (name, sizeof name, "cuda sink on the stand-in driver: pin %s, non_blocking %s",
                  ls_pin_mode_name ((ls_pin_mode) pin), nb ? "on" : "off");
        c.sink.pin = (ls_pin_mode) pin;
        c.sink.non_blocking = nb;
        if (!run (name, &c, &r))
          continue;
        check (r.status == LS_RUN_DONE && strcmp (r.sink_name, "cuda") == 0 && !r.simulated && r.copy_ms.valid
                   && r.compute_ms.valid && r.copy_ms.p50 > 0 && r.compute_ms.p50 > 0
                   && (pin == LS_PIN_STAGING) == (r.host_bytes_copied > 0),
               name, "status %d [%s], sink %s, copy p50 %g ms, step p50 %g ms, host bytes %" PRIu64, (int) r.status,
               r.error, r.sink_name, r.copy_ms.p50, r.compute_ms.p50, r.host_bytes_copied);
        ls_run_result_clear (&r);
      }
}

int
main (int argc, char **argv)
{
  argv = selftest_start (argc, argv);
  worker = selftest_partner (argc, argv, "loader", "worker", "loadscope-worker", "LOADSCOPE_WORKER");
  if (!worker)
    return 2;

  uint64_t t0 = ls_clock_ns ();
  test_in_process_reference ();
  test_spawn_matches (false, true);
  test_spawn_matches (true, true);
  test_spawn_matches (false, false);
  test_skip_and_fail ();
  test_killed_worker ();
  test_crash ();
  test_hang_timeout ();
  test_missing_worker ();
  test_gpumon ();
  test_cuda_sink ();
  return selftest_end (t0);
}
