/* The arena at the memory limit: its pages populated where it is made and
 * in each worker before it is ready, so the measured batches take
 * (almost) no page faults, whatever the machine's load; the first batch's
 * wait split into parts that are all there. */
#include <stdio.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include "loader/arena.h"
#include "loader/run.h"
#include "platform/procmem.h"
#include "platform/shm.h"
#include "test-util.h"

static const char *
worker_path (void)
{
  const char *p = g_getenv ("LOADSCOPE_WORKER");
  if (!p)
    g_error ("LOADSCOPE_WORKER is not set: run the tests with `meson test`");
  return p;
}

/* Populating writes nothing: what was there stays, in every kind of memory. */
static void
test_populate_keeps_contents (void)
{
  int (*create[]) (size_t, ls_shm **, ls_error *) = { ls_shm_create, ls_shm_create_inherited, ls_shm_create_private };
  const size_t size = (size_t) 3 << 20;

  for (size_t k = 0; k < G_N_ELEMENTS (create); k++)
    {
      ls_shm *shm = NULL;
      ls_error err = { 0 };
      g_assert_cmpint (create[k](size, &shm, &err), ==, LS_OK);
      unsigned char *p = ls_shm_data (shm);
      for (size_t i = 0; i < size; i += 4096)
        p[i] = (unsigned char) (i / 4096 * 7 + 1);
      g_assert_cmpint (ls_shm_populate (shm, &err), ==, LS_OK);
      for (size_t i = 0; i < size; i += 4096)
        g_assert_cmpuint (p[i], ==, (unsigned char) (i / 4096 * 7 + 1));
      g_assert_cmpuint (p[1], ==, 0);
      /* A power of two of at least 4 KiB, whatever the system gave. */
      size_t page = ls_shm_page_bytes (shm);
      g_assert_cmpuint (page, >=, 4096);
      g_assert_cmpuint (page & (page - 1), ==, 0);
      ls_shm_close (shm);
    }
}

/* After populating, writing every page again takes no fault. */
static void
test_populated_pages_take_no_faults (void)
{
  const size_t size = (size_t) 16 << 20;
  ls_shm *shm = NULL;
  ls_error err = { 0 };
  uint64_t before = 0, after = 0;

  g_assert_cmpint (ls_shm_create (size, &shm, &err), ==, LS_OK);
  g_assert_cmpint (ls_shm_populate (shm, &err), ==, LS_OK);
#if defined(__SANITIZE_ADDRESS__)
  /* AddressSanitizer's checks read the shadow of what is written: its
   * pages fault in on first use, and they are not the arena's. */
  g_assert_null (__asan_region_is_poisoned (ls_shm_data (shm), size));
#endif
  g_assert_cmpint (ls_procfaults_self (&before, &err), ==, LS_OK);
  memset (ls_shm_data (shm), 0x5a, size);
  g_assert_cmpint (ls_procfaults_self (&after, &err), ==, LS_OK);
  /* 4,096 pages; a few faults elsewhere in the process are not ours to count. */
  g_assert_cmpuint (after - before, <, 64);
  ls_shm_close (shm);
}

/* Batches of 224 x 224 float images (38.5 MB at 64), smaller here: 16 of
 * them per batch, 602 KB each, 20 batches, 2 workers. */
static ls_run_config
image_sized_config (ls_start_method start)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  g_strlcpy (c.pool.dataset.kind, "synthetic", sizeof c.pool.dataset.kind);
  c.pool.dataset.count = 320;
  c.pool.dataset.width = 224;
  c.pool.dataset.height = 224;
  c.pool.dataset.seed = 3;
  c.pool.dataset.output = LS_OUTPUT_F32_CHW;
  c.pool.seed = 3;
  c.pool.num_workers = 2;
  c.pool.batch_size = 16;
  c.pool.start = start;
  c.pool.worker_path = worker_path ();
  c.pool.epochs = 1;
  c.pool.timeout_s = 60;
  c.warmup = 2;
  c.sample_interval_ms = 50;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_NONE;
  return c;
}

/* What load cannot change: a fault is counted, not timed. Near zero is
 * fewer than one fault per 64 KiB written (a page fault per 4 KiB page
 * written would be 16 per 64 KiB; before the arena was populated, a run
 * like this took about one per 18 KiB). */
static void
check_measured_faults (ls_start_method start)
{
  ls_run_config c = image_sized_config (start);
  ls_run_result r;
  ls_error err = { 0 };

  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  if (r.status != LS_RUN_DONE)
    g_error ("run failed: %s", r.error);
  g_assert_cmpuint (r.n_workers, ==, 2);
  uint64_t bytes = 0;
  for (size_t i = 0; i < r.n_workers; i++)
    {
      const ls_worker_info *w = &r.workers[i];
      g_test_message ("worker %u: %" G_GUINT64_FORMAT " faults over %" G_GUINT64_FORMAT " bytes measured, %"
                      G_GUINT64_FORMAT " in all its tasks, populate %.1f ms",
                      w->index, w->measured_faults, w->measured_bytes, w->task_faults, w->populate_ms);
      g_assert_cmpfloat (w->populate_ms, >=, 0);
      /* Each worker builds batches: both have bytes to be judged on. */
      g_assert_cmpuint (w->measured_bytes, >, 0);
      g_assert_cmpuint (w->measured_faults, <, w->measured_bytes / 65536);
      bytes += w->measured_bytes;
    }
  /* Every measured batch written once, by one worker or the other. */
  g_assert_cmpuint (bytes, ==, (r.batches - r.warmup_used) * r.batch_bytes);
  g_assert_cmpuint (r.arena_page_bytes, >=, 4096);

  /* The first batch's wait, in parts that are all measured. */
  const ls_first_batch *f = &r.first_batch;
  g_assert_true (f->valid);
  g_assert_cmpfloat (f->worker_start_ms, >, 0);
  g_assert_cmpfloat (f->populate_ms, >=, 0);
  g_assert_cmpfloat (f->in_flight_ms, >=, 0);
  g_assert_cmpfloat (f->build_ms, >, 0);
  g_assert_cmpfloat (f->handoff_ms, >=, 0);
  /* On one clock the parts follow one another: they add up to the wait. */
  g_assert_cmpfloat (f->worker_start_ms + f->populate_ms + f->in_flight_ms + f->build_ms + f->handoff_ms, <=,
                     r.time_to_first_batch_ms + 1e-6);
  ls_run_result_clear (&r);
}

static void
test_measured_faults_fork (void)
{
#ifdef _WIN32
  g_test_skip ("no fork on Windows");
#else
  check_measured_faults (LS_START_FORK);
#endif
}

static void
test_measured_faults_spawn (void)
{
  check_measured_faults (LS_START_SPAWN);
}

/* Without workers the runner builds the first batch itself: all of its
 * wait is that build and the hand-off. */
static void
test_first_batch_in_process (void)
{
  ls_run_config c = image_sized_config (LS_START_SPAWN);
  ls_run_result r;
  ls_error err = { 0 };

  c.pool.num_workers = 0;
  c.max_batches = 3;
  g_assert_cmpint (ls_run (&c, &r, &err), ==, LS_OK);
  g_assert_cmpint (r.status, ==, LS_RUN_DONE);
  g_assert_true (r.first_batch.valid);
  g_assert_cmpfloat (r.first_batch.worker_start_ms, ==, 0);
  g_assert_cmpfloat (r.first_batch.build_ms, >, 0);
  g_assert_cmpfloat (r.first_batch.build_ms + r.first_batch.handoff_ms, <=, r.time_to_first_batch_ms + 1e-6);
  ls_run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/arena/populate-keeps-contents", test_populate_keeps_contents);
  g_test_add_func ("/loader/arena/populated-pages-take-no-faults", test_populated_pages_take_no_faults);
  g_test_add_func ("/loader/arena/measured-faults-near-zero-fork", test_measured_faults_fork);
  g_test_add_func ("/loader/arena/measured-faults-near-zero-spawn", test_measured_faults_spawn);
  g_test_add_func ("/loader/arena/first-batch-in-process", test_first_batch_in_process);
  return ls_test_run_checked ();
}
