/* The worker pool: every knob, both start methods, determinism, failures. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "loader/pool.h"
#include "loader/run.h"
#include "loader/sampler.h"
#include "platform/clock.h"
#include "test-util.h"

static const char *
worker_path (void)
{
  const char *p = g_getenv ("LOADSCOPE_WORKER");
  if (!p)
    g_error ("LOADSCOPE_WORKER is not set: run the tests with `meson test`");
  return p;
}

static ls_run_config
small_config (uint32_t workers, ls_start_method start)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 300;
  c.pool.dataset.width = 16;
  c.pool.dataset.height = 12;
  c.pool.dataset.seed = 7;
  c.pool.dataset.output = LS_OUTPUT_U8_HWC;
  c.pool.seed = 7;
  c.pool.num_workers = workers;
  c.pool.batch_size = 16;
  c.pool.start = start;
  c.pool.worker_path = worker_path ();
  c.pool.epochs = 2;
  c.pool.timeout_s = 20;
  c.checksum = true;
  c.sample_interval_ms = 20;
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

/* ---------------------------------------------------------------- sampler */

static void
test_sampler_permutations (void)
{
  ls_sampler s;
  uint64_t idx[7];
  ls_error err = { 0 };
  g_autofree guint8 *seen = g_malloc0 (50);
  g_autoptr (GString) e0 = g_string_new (NULL), e0_again = g_string_new (NULL), e1 = g_string_new (NULL);

  g_assert_cmpint (ls_sampler_init (&s, 50, 7, true, false, 3, &err), ==, LS_OK);
  g_assert_cmpuint (ls_sampler_batches_per_epoch (&s), ==, 8);
  for (uint64_t b = 0; b < 8; b++)
    {
      uint32_t n = ls_sampler_batch (&s, 0, b, idx);
      g_assert_cmpuint (n, ==, b < 7 ? 7 : 1);
      for (uint32_t i = 0; i < n; i++)
        {
          g_assert_cmpuint (idx[i], <, 50);
          g_assert_cmpint (seen[idx[i]], ==, 0);
          seen[idx[i]] = 1;
          g_string_append_printf (e0, "%u,", (unsigned) idx[i]);
        }
    }
  for (uint64_t b = 0; b < 8; b++)
    {
      uint32_t n = ls_sampler_batch (&s, 1, b, idx);
      for (uint32_t i = 0; i < n; i++)
        g_string_append_printf (e1, "%u,", (unsigned) idx[i]);
    }
  /* Back to epoch 0: the same permutation again (a pure function of seed, epoch). */
  for (uint64_t b = 0; b < 8; b++)
    {
      uint32_t n = ls_sampler_batch (&s, 0, b, idx);
      for (uint32_t i = 0; i < n; i++)
        g_string_append_printf (e0_again, "%u,", (unsigned) idx[i]);
    }
  g_assert_cmpstr (e0->str, ==, e0_again->str);
  g_assert_cmpstr (e0->str, !=, e1->str);
  g_assert_cmpuint (ls_sampler_batch (&s, 0, 8, idx), ==, 0);
  ls_sampler_clear (&s);

  /* drop_last and sequential order. */
  g_assert_cmpint (ls_sampler_init (&s, 50, 7, false, true, 3, &err), ==, LS_OK);
  g_assert_cmpuint (ls_sampler_batches_per_epoch (&s), ==, 7);
  g_assert_cmpuint (ls_sampler_batch (&s, 4, 2, idx), ==, 7);
  for (uint32_t i = 0; i < 7; i++)
    g_assert_cmpuint (idx[i], ==, 14 + i);
  ls_sampler_clear (&s);

  g_assert_cmpint (ls_sampler_init (&s, 5, 7, false, true, 3, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "leaves no batch"));
  g_assert_cmpint (ls_sampler_init (&s, 5, 0, false, false, 3, &err), ==, LS_ERR_INVALID);
}

/* ---------------------------------------------------------- determinism */

static void
test_same_batches_for_every_worker_count_and_start (void)
{
  ls_run_config c = small_config (0, LS_START_FORK);
  ls_run_result ref = run_ok (&c);
  g_assert_cmpuint (ref.checksum, !=, 0);
  g_assert_cmpuint (ref.batches, ==, 2 * 19);
  g_assert_cmpuint (ref.samples, ==, 600);

  struct {
    uint32_t workers;
    ls_start_method start;
    bool persistent, in_order;
    uint32_t prefetch;
  } cases[] = {
    { 1, LS_START_FORK, false, true, 2 },  { 2, LS_START_FORK, false, true, 2 },
    { 3, LS_START_FORK, true, true, 1 },   { 2, LS_START_FORK, true, false, 4 },
    { 1, LS_START_SPAWN, false, true, 2 }, { 2, LS_START_SPAWN, true, true, 3 },
    { 3, LS_START_SPAWN, false, false, 2 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      c = small_config (cases[i].workers, cases[i].start);
      c.pool.persistent_workers = cases[i].persistent;
      c.pool.in_order = cases[i].in_order;
      c.pool.prefetch_factor = cases[i].prefetch;
      ls_run_result r = run_ok (&c);
      g_test_message ("case %zu: %u workers, checksum %016llx", i, cases[i].workers, (unsigned long long) r.checksum);
      g_assert_cmpuint (r.checksum, ==, ref.checksum);
      g_assert_cmpuint (r.samples, ==, ref.samples);
      ls_run_result_clear (&r);
    }

  /* And the checksum does see a difference: another seed, other batches. */
  c = small_config (2, LS_START_FORK);
  c.pool.seed = 8;
  ls_run_result other = run_ok (&c);
  g_assert_cmpuint (other.checksum, !=, ref.checksum);
  ls_run_result_clear (&other);
  ls_run_result_clear (&ref);
}

/* ---------------------------------------------------------- pool knobs */

static void
test_in_order_and_as_completed (void)
{
  for (int in_order = 0; in_order < 2; in_order++)
    {
      ls_run_config c = small_config (3, LS_START_FORK);
      c.pool.in_order = in_order;
      c.pool.prefetch_factor = 3;
      ls_run_result r = run_ok (&c);
      g_autofree guint8 *seen = g_malloc0 (19 * 2);
      for (size_t i = 0; i < r.n_timeline; i++)
        {
          const ls_batch_record *b = &r.timeline[i];
          if (in_order)
            {
              g_assert_cmpuint (b->epoch, ==, i / 19);
              g_assert_cmpuint (b->batch, ==, i % 19);
            }
          /* Either way each batch comes exactly once, and epochs never mix. */
          g_assert_cmpuint (b->epoch, ==, i / 19);
          g_assert_cmpint (seen[b->epoch * 19 + b->batch], ==, 0);
          seen[b->epoch * 19 + b->batch] = 1;
          g_assert_cmpuint (b->samples, ==, b->batch == 18 ? 300 - 18 * 16 : 16);
        }
      g_assert_cmpuint (r.n_timeline, ==, 38);
      ls_run_result_clear (&r);
    }
}

static void
test_prefetch_bounds_batches_in_flight (void)
{
  ls_pool_config c = small_config (2, LS_START_FORK).pool;
  ls_pool *pool = NULL;
  ls_error err = { 0 };
  ls_batch b;

  c.prefetch_factor = 3;
  c.epochs = 1;
  g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_OK);
  g_assert_cmpuint (ls_arena_meta (ls_pool_arena (pool), 0) != NULL, ==, TRUE);
  /* 2 workers x 3 + the consumer's 2 slots. */
  g_assert_cmpuint (ls_pool_arena (pool)->slot_count, ==, 8);
  while (ls_pool_next (pool, &b, &err) == LS_OK)
    {
      ls_sleep_ms (5); /* a slow consumer: workers run ahead as far as allowed */
      ls_pool_release (pool, &b);
    }
  ls_pool_counters k = ls_pool_get_counters (pool);
  g_assert_cmpuint (k.max_in_flight, ==, 6);
  g_assert_cmpuint (k.delivered, ==, 19);
  ls_pool_free (pool);
}

static void
test_persistent_workers_prefetch_across_epochs (void)
{
  ls_pool_config c = small_config (2, LS_START_FORK).pool;
  ls_pool *pool = NULL;
  ls_error err = { 0 };
  ls_batch b;
  size_t n;

  c.persistent_workers = true;
  c.epochs = 3;
  g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_OK);
  while (ls_pool_next (pool, &b, &err) == LS_OK)
    {
      if (b.epoch == 0 && b.batch == 18)
        {
          ls_sleep_ms (50);
          /* Holding the last batch of epoch 0, epoch 1 is already requested. */
          g_assert_cmpuint (ls_pool_get_counters (pool).dispatched, >, 19);
        }
      ls_pool_release (pool, &b);
    }
  const ls_worker_info *w = ls_pool_workers (pool, &n);
  g_assert_cmpuint (n, ==, 2); /* the same two workers served all 3 epochs */
  g_assert_cmpint (w[0].pid, !=, w[1].pid);
  ls_pool_stop (pool);
  w = ls_pool_workers (pool, &n);
  for (size_t i = 0; i < n; i++)
    {
      g_assert_cmpint (w[i].exit.kind, ==, LS_EXIT_CODE);
      g_assert_cmpint (w[i].exit.code, ==, 0);
      g_assert_cmpfloat (w[i].startup_ms, >=, 0);
    }
  ls_pool_free (pool);
}

static void
test_new_workers_each_epoch (void)
{
  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      ls_run_config c = small_config (2, (ls_start_method) start);
      c.pool.epochs = 3;
      c.pool.dataset.sample_cost_us = 100; /* enough CPU to be measured */
      c.pool.dataset.work_per_us = ls_synthetic_calibrate ();
      ls_run_result r = run_ok (&c);
      g_assert_cmpuint (r.n_workers, ==, 6);
      for (size_t i = 0; i < r.n_workers; i++)
        {
          g_assert_cmpuint (r.workers[i].epoch, ==, i / 2);
          g_assert_cmpuint (r.workers[i].index, ==, i % 2);
          g_assert_cmpfloat (r.workers[i].startup_ms, >=, 0);
          g_assert_cmpint (r.workers[i].exit.kind, ==, LS_EXIT_CODE);
          for (size_t k = 0; k < i; k++)
            g_assert_cmpint (r.workers[k].pid, !=, r.workers[i].pid);
        }
      g_assert_cmpfloat (r.epoch_boundary_ms, >, 0);
      g_assert_cmpfloat (r.time_to_first_batch_ms, >, 0);
      g_assert_cmpfloat (r.cpu_percent, >, 0);
      ls_run_result_clear (&r);
    }
}

static void
test_in_process_loading (void)
{
  ls_run_config c = small_config (0, LS_START_FORK);
  c.pool.epochs = 1;
  c.warmup = 1;
  ls_run_result r = run_ok (&c);
  g_assert_cmpuint (r.n_workers, ==, 0);
  g_assert_cmpuint (r.batches, ==, 19);
  g_assert_true (r.wait_ms.valid);
  g_assert_cmpfloat (r.throughput_sps, >, 0);
  g_assert_true (r.memory.valid & LS_PROCMEM_PSS);
  g_assert_cmpuint (r.memory.peak.pss_bytes, >, 0);
  g_assert_cmpuint (r.arena_bytes, >=, 2u * 16 * 16 * 12 * 3);
  ls_run_result_clear (&r);
}

/* ---------------------------------------------------------- failures */

static void
test_bad_sample_fails_or_is_skipped (void)
{
  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      ls_run_config c = small_config (2, (ls_start_method) start);
      ls_run_result r;
      ls_error err = { 0 };

      c.pool.dataset.fail_every = 25;
      g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
      g_assert_cmpint (r.status, ==, LS_RUN_FAILED);
      g_assert_true (g_str_has_prefix (r.error, "sample "));
      g_assert_nonnull (strstr (r.error, "injected failure"));
      guint64 index = g_ascii_strtoull (r.error + 7, NULL, 10);
      g_assert_cmpuint (index % 25, ==, 24);
      ls_run_result_clear (&r);

      c.pool.skip_bad_samples = true;
      r = run_ok (&c);
      g_assert_cmpuint (r.skipped_samples, ==, 2 * (300 / 25));
      g_assert_cmpuint (r.samples, ==, 600);
      uint64_t sum = r.checksum;
      ls_run_result_clear (&r);
      c = small_config (0, LS_START_FORK);
      c.pool.dataset.fail_every = 25;
      c.pool.skip_bad_samples = true;
      r = run_ok (&c);
      g_assert_cmpuint (r.checksum, ==, sum); /* replacements are deterministic too */
      ls_run_result_clear (&r);
    }
}

static void
assert_no_process (ls_pid pid)
{
  g_assert_cmpint (kill (pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
}

/* Promptly means by the pool's own watch on its workers, not by the batch
 * timeout: the timeout is set far beyond what the check allows, and the
 * check far beyond what a loaded machine adds (a timed bound of 1 s failed
 * on busy machines). */
static void
test_killed_worker_is_named_promptly (void)
{
  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      ls_pool_config c = small_config (2, (ls_start_method) start).pool;
      ls_pool *pool = NULL;
      ls_error err = { 0 };
      ls_batch b;
      size_t n;
      char expect[96];

      c.dataset.sample_cost_us = 2000; /* slow enough that the kill lands mid-run */
      c.dataset.work_per_us = ls_synthetic_calibrate ();
      c.timeout_s = 120;
      g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_OK);
      g_assert_cmpint (ls_pool_next (pool, &b, &err), ==, LS_OK);
      ls_pool_release (pool, &b);
      const ls_worker_info *w = ls_pool_workers (pool, &n);
      g_assert_cmpuint (n, ==, 2);
      ls_pid victim = w[1].pid, other = w[0].pid;

      g_assert_cmpint (kill (victim, SIGKILL), ==, 0);
      uint64_t t0 = ls_clock_ns ();
      int rc;
      while ((rc = ls_pool_next (pool, &b, &err)) == LS_OK)
        ls_pool_release (pool, &b);
      g_assert_cmpuint ((ls_clock_ns () - t0) / 1000000u, <, 30000);
      g_assert_cmpint (rc, ==, LS_ERR_CLOSED);
      g_snprintf (expect, sizeof expect, "worker 1 (pid %d) killed by signal 9 (SIGKILL)", (int) victim);
      g_assert_true (g_str_has_prefix (err.message, expect));
      /* The other worker was stopped and reaped. */
      assert_no_process (other);
      assert_no_process (victim);
      ls_pool_free (pool);
    }
}

static void
test_crashing_worker_is_reported (void)
{
  ls_run_config c = small_config (2, LS_START_SPAWN);
  ls_run_result r;
  ls_error err = { 0 };

  c.pool.shuffle = false;
  c.pool.dataset.crash_at = 100 + 1; /* batch 6 of epoch 0, built by worker 0 */
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_assert_cmpint (r.status, ==, LS_RUN_FAILED);
  g_test_message ("error: %s", r.error);
  g_assert_nonnull (strstr (r.error, "killed by signal 11 (SIGSEGV) while building batch 6 of epoch 0"));
  ls_run_result_clear (&r);
}

static void
test_hanging_worker_trips_timeout (void)
{
  ls_run_config c = small_config (2, LS_START_FORK);
  ls_run_result r;
  ls_error err = { 0 };

  c.pool.shuffle = false;
  c.pool.timeout_s = 0.5;
  c.pool.dataset.hang_at = 40 + 1; /* batch 2 */
  uint64_t t0 = ls_clock_ns ();
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  double took = (double) (ls_clock_ns () - t0) / 1e9;
  g_assert_cmpint (r.status, ==, LS_RUN_FAILED);
  g_assert_nonnull (strstr (r.error, "timed out after 0.5 s waiting for batch 2 of epoch 0, which worker 0"));
  g_assert_cmpfloat (took, <, 5);
  for (size_t i = 0; i < r.n_workers; i++)
    assert_no_process (r.workers[i].pid);
  ls_run_result_clear (&r);
}

static void
test_missing_worker_executable (void)
{
  ls_run_config c = small_config (2, LS_START_SPAWN);
  ls_run_result r;
  ls_error err = { 0 };

  c.pool.worker_path = "/nonexistent/loadscope-worker";
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_assert_cmpint (r.status, ==, LS_RUN_FAILED);
  g_assert_nonnull (strstr (r.error, "starting worker 0"));
  g_assert_nonnull (strstr (r.error, "/nonexistent/loadscope-worker"));
  ls_run_result_clear (&r);
}

static void
test_bad_configs_are_refused (void)
{
  ls_pool_config c = small_config (2, LS_START_FORK).pool;
  ls_pool *pool = NULL;
  ls_error err = { 0 };

  c.prefetch_factor = 0;
  g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "--prefetch"));
  c = small_config (2, LS_START_FORK).pool;
  c.dataset.count = 0;
  g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "--count"));
  c = small_config (2, LS_START_FORK).pool;
  g_strlcpy (c.dataset.kind, "parquet", sizeof c.dataset.kind);
  g_assert_cmpint (ls_pool_create (&c, &pool, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "parquet"));
  g_assert_null (pool);
}

/* The runner dies: its workers go with it. An intermediate process plays
 * the runner; this test process is a subreaper and sees the orphans end. */

typedef struct {
  ls_start_method start;
  const char *pid_file;
} runner_args;

static int
runner_main (void *data)
{
  runner_args *a = data;
  ls_pool_config c = small_config (2, a->start).pool;
  ls_pool *pool = NULL;
  ls_batch b;
  size_t n;

  c.epochs = 0;
  if (ls_pool_create (&c, &pool, NULL) != LS_OK || ls_pool_next (pool, &b, NULL) != LS_OK)
    return 10;
  const ls_worker_info *w = ls_pool_workers (pool, &n);
  g_autofree char *text = g_strdup_printf ("%d %d", (int) w[0].pid, (int) w[1].pid);
  if (!g_file_set_contents (a->pid_file, text, -1, NULL))
    return 11;
  for (;;)
    pause ();
  return 0;
}

static void
test_runner_death_takes_workers (void)
{
  for (int start = LS_START_FORK; start <= LS_START_SPAWN; start++)
    {
      g_autofree char *dir = g_dir_make_tmp ("ls-runner-XXXXXX", NULL);
      g_autofree char *pid_file = g_build_filename (dir, "workers", NULL);
      g_autofree char *text = NULL;
      runner_args args = { (ls_start_method) start, pid_file };
      ls_process *runner = NULL;
      ls_error err = { 0 };
      int pids[2];

      g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
      g_assert_cmpint (ls_process_fork (runner_main, &args, &runner, &err), ==, LS_OK);
      for (int i = 0; i < 5000 && !g_file_get_contents (pid_file, &text, NULL, NULL); i++)
        ls_sleep_ms (2);
      g_assert_nonnull (text);
      g_assert_cmpint (sscanf (text, "%d %d", &pids[0], &pids[1]), ==, 2);

      ls_process_kill (runner, &err);
      ls_process_free (runner);
      for (int k = 0; k < 2; k++)
        {
          int wstatus = 0;
          pid_t r = 0;
          uint64_t t0 = ls_clock_ns ();
          while (ls_clock_ns () - t0 < 3000000000u && (r = waitpid (pids[k], &wstatus, WNOHANG)) == 0)
            ls_sleep_ms (5);
          g_assert_cmpint (r, ==, pids[k]);
          g_assert_true (WIFSIGNALED (wstatus) || WIFEXITED (wstatus));
        }
      prctl (PR_SET_CHILD_SUBREAPER, 0);
      g_unlink (pid_file);
      g_rmdir (dir);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/sampler/permutations", test_sampler_permutations);
  g_test_add_func ("/loader/pool/same-batches-for-every-worker-count-and-start",
                   test_same_batches_for_every_worker_count_and_start);
  g_test_add_func ("/loader/pool/in-order-and-as-completed", test_in_order_and_as_completed);
  g_test_add_func ("/loader/pool/prefetch-bounds-batches-in-flight", test_prefetch_bounds_batches_in_flight);
  g_test_add_func ("/loader/pool/persistent-workers-prefetch-across-epochs",
                   test_persistent_workers_prefetch_across_epochs);
  g_test_add_func ("/loader/pool/new-workers-each-epoch", test_new_workers_each_epoch);
  g_test_add_func ("/loader/pool/in-process-loading", test_in_process_loading);
  g_test_add_func ("/loader/pool/bad-sample-fails-or-is-skipped", test_bad_sample_fails_or_is_skipped);
  g_test_add_func ("/loader/pool/killed-worker-is-named-promptly", test_killed_worker_is_named_promptly);
  g_test_add_func ("/loader/pool/crashing-worker-is-reported", test_crashing_worker_is_reported);
  g_test_add_func ("/loader/pool/hanging-worker-trips-timeout", test_hanging_worker_trips_timeout);
  g_test_add_func ("/loader/pool/missing-worker-executable", test_missing_worker_executable);
  g_test_add_func ("/loader/pool/bad-configs-are-refused", test_bad_configs_are_refused);
  g_test_add_func ("/loader/pool/runner-death-takes-workers", test_runner_death_takes_workers);
  return ls_test_run_checked ();
}
