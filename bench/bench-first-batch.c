/* Time to first batch against one batch's build time on one worker,
 * measured side by side in one run (this machine is shared and noisy:
 * compare only within a run). Goal: first batch <= 1.0 x one batch's build
 * time on one worker (0.8 ideally), and in a 40-batch run at 2 workers the
 * write stage <= 10 % of the workers' busy time (issue 38).
 *
 *   bench-first-batch [IMAGES_DIR] [WORKER_EXE] [REPS=5]
 *
 * IMAGES_DIR is a jpeg-dir dataset (root/CLASS/IMAGE.jpg), e.g. the 2,000 anchor
 * JPEGs (python3 ../shared/anchors/make_jpegs.py DIR 2000) or
 * `loadscope make-dataset --format jpeg-dir --count 2000 DIR`; default
 * $LS_BENCH_IMAGES. WORKER_EXE defaults to $LOADSCOPE_WORKER (spawn only).
 *
 * Batch 64, random-resized-crop 224, float32 CHW, sink none. Each rep runs,
 * interleaved: in-process (0 workers) for 8 batches, whose steady waits are
 * one batch's build time on one core; then 2 fork workers with the first
 * batch shared between them (the pool's default), and with it built whole
 * by one worker (as before). Medians over the reps are printed, then the
 * parts the first batch is made of, each measured on its own. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/arena.h"
#include "loader/run.h"
#include "platform/clock.h"
#include "platform/procmem.h"
#include "platform/process.h"

#define MAX_REPS 15

static const char *images;
static const char *worker_exe;

static double
ms_since (uint64_t t0)
{
  return (double) (ls_clock_ns () - t0) / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static ls_dataset_spec
image_spec (void)
{
  ls_dataset_spec s;
  memset (&s, 0, sizeof s);
  strcpy (s.kind, "jpeg-dir");
  snprintf (s.path, sizeof s.path, "%s", images);
  s.width = s.height = 224;
  s.output = LS_OUTPUT_F32_CHW;
  return s;
}

static ls_run_result
run_epochs (uint32_t workers, bool whole_first_batch, uint64_t batches, uint64_t seed, uint32_t epochs)
{
  ls_run_config c;
  ls_run_result r;
  ls_error err = { 0 };

  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  c.pool.dataset = image_spec ();
  c.pool.num_workers = workers;
  c.pool.batch_size = 64;
  c.pool.seed = seed;
  c.pool.whole_first_batch = whole_first_batch;
  c.pool.worker_path = worker_exe;
  c.pool.timeout_s = 120;
  c.max_batches = batches;
  c.pool.epochs = epochs;
  c.pool.persistent_workers = epochs > 1; /* one worker set for a run over an epoch's end */
  c.warmup = 2;
  c.sample_interval_ms = 100;
  ls_sink_config_init (&c.sink);
  c.sink.kind = LS_SINK_NONE;
  if (ls_run (&c, &r, &err) != LS_OK || r.status != LS_RUN_DONE)
    {
      fprintf (stderr, "bench-first-batch: run failed: %s%s\n", err.message, r.error);
      exit (1);
    }
  return r;
}

static ls_run_result
run (uint32_t workers, bool whole_first_batch, uint64_t batches, uint64_t seed)
{
  return run_epochs (workers, whole_first_batch, batches, seed, 1);
}

/* A 40-batch run at 2 workers (2 warm-up batches before it): where the
 * workers' busy time goes, the throughput, and each worker's page faults
 * while building the measured batches. */
static void
steady_run (double *throughput, double *write_share)
{
  ls_run_result r = run_epochs (2, false, 42, 99, 2);
  double write = 0, busy = 0, decode = 0;
  for (size_t i = r.warmup_used; i < r.n_timeline; i++)
    {
      write += r.timeline[i].write_ms;
      decode += r.timeline[i].decode_ms;
      busy += r.timeline[i].busy_ms;
    }
  size_t n = r.n_timeline - r.warmup_used;
  *throughput = r.throughput_sps;
  *write_share = busy > 0 ? write / busy : 0;
  printf ("\n   40 batches at 2 workers (after %u warm-up), arena %.0f MB in %zu KiB pages (populated in %.1f ms):\n",
          r.warmup_used, r.arena_bytes / 1e6, (size_t) (r.arena_page_bytes / 1024), r.arena_populate_ms);
  printf ("   %-52s %8.0f img/s\n", "throughput", r.throughput_sps);
  printf ("   %-52s %8.2f ms  (decode %.2f, busy %.2f) = %.1f %% of busy\n", "write stage per batch", write / (double) n,
          decode / (double) n, busy / (double) n, *write_share * 100);
  for (size_t i = 0; i < r.n_workers; i++)
    printf ("   worker %u: %" PRIu64 " page faults building %.1f MB (%.3f per 64 KiB); %.1f ms populating its page table\n",
            r.workers[i].index, r.workers[i].measured_faults, r.workers[i].measured_bytes / 1e6,
            r.workers[i].measured_bytes ? (double) r.workers[i].measured_faults * 65536 / (double) r.workers[i].measured_bytes
                                        : 0.0,
            r.workers[i].populate_ms);
  ls_run_result_clear (&r);
}

/* The parts of a first batch, each on its own, on this thread. */
static void
breakdown (double build_ms)
{
  ls_dataset *ds = NULL;
  ls_arena arena;
  ls_error err = { 0 };
  uint64_t t0;
  int32_t label;

  printf ("\n   Where a first batch's time goes (each part measured alone, this thread):\n");
  ls_dataset_spec spec = image_spec ();
  t0 = ls_clock_ns ();
  if (ls_dataset_open (&spec, &ds, &err) != LS_OK)
    {
      fprintf (stderr, "bench-first-batch: %s\n", err.message);
      exit (1);
    }
  double open_ms = ms_since (t0);
  t0 = ls_clock_ns ();
  if (ls_arena_create (&arena, 6, 64, ls_dataset_sample_bytes (ds), &err) != LS_OK)
    {
      fprintf (stderr, "bench-first-batch: %s\n", err.message);
      exit (1);
    }
  double arena_ms = ms_since (t0);
  size_t slot_bytes = 64 * ls_dataset_sample_bytes (ds);

  /* First touch: writing a slot the first time, less writing it again. */
  uint8_t *slot0 = ls_arena_data (&arena, 0);
  t0 = ls_clock_ns ();
  memset (slot0, 1, slot_bytes);
  double touch_first = ms_since (t0);
  t0 = ls_clock_ns ();
  memset (slot0, 2, slot_bytes);
  double touch_again = ms_since (t0);
  /* The same in the private arena of in-process loading (huge pages where
   * the OS gives them). */
  ls_arena local;
  double local_first = 0, local_again = 0;
  if (ls_arena_create_local (&local, 6, 64, ls_dataset_sample_bytes (ds), &err) == LS_OK)
    {
      t0 = ls_clock_ns ();
      memset (ls_arena_data (&local, 0), 1, slot_bytes);
      local_first = ms_since (t0);
      t0 = ls_clock_ns ();
      memset (ls_arena_data (&local, 0), 2, slot_bytes);
      local_again = ms_since (t0);
      ls_arena_close (&local);
    }

  /* A cold pipeline (this dataset's first sample ever) against a warm one. */
  ls_dataset *fresh = NULL;
  ls_dataset_open (&spec, &fresh, &err);
  t0 = ls_clock_ns ();
  ls_dataset_read (fresh, 11, 0, slot0, &label, &err);
  double cold_sample = ms_since (t0);
  t0 = ls_clock_ns ();
  for (int i = 0; i < 16; i++)
    ls_dataset_read (fresh, 11, 0, slot0, &label, &err);
  double warm_sample = ms_since (t0) / 16;
  ls_dataset_close (fresh);

  /* One memory sample of this process (the sampler takes one at start). */
  ls_procmem m;
  uint64_t user, sys;
  t0 = ls_clock_ns ();
  ls_procmem_read (ls_process_self_pid (), &m, NULL);
  ls_proccpu_read (ls_process_self_pid (), &user, &sys, NULL);
  double sample_ms = ms_since (t0);

  printf ("   %-52s %8.2f ms\n", "dataset open (folder scan; before iteration starts)", open_ms);
  printf ("   %-52s %8.2f ms\n", "arena create (before iteration starts)", arena_ms);
  printf ("   %-52s %8.2f ms  (%.1f MB: %.2f first, %.2f again)\n", "first touch of one slot's pages, shared arena",
          touch_first - touch_again, slot_bytes / 1e6, touch_first, touch_again);
  printf ("   %-52s %8.2f ms  (%.2f first, %.2f again)\n", "  the same, private arena (0 workers)",
          local_first - local_again, local_first, local_again);
  printf ("   %-52s %8.2f ms  (%.2f cold, %.2f warm)\n", "cold decoder/resampler, first sample", cold_sample - warm_sample,
          cold_sample, warm_sample);
  printf ("   %-52s %8.2f ms\n", "one memory-sampler sample of this process", sample_ms);
  printf ("   %-52s %8.2f ms\n", "one batch's build time on one worker (above)", build_ms);
  ls_arena_close (&arena);
  ls_dataset_close (ds);
}

int
main (int argc, char **argv)
{
  images = argc > 1 ? argv[1] : getenv ("LS_BENCH_IMAGES");
  worker_exe = argc > 2 ? argv[2] : getenv ("LOADSCOPE_WORKER");
  int reps = argc > 3 ? atoi (argv[3]) : 5;
  if (!images || !*images)
    {
      fprintf (stderr, "usage: bench-first-batch IMAGES_DIR [WORKER_EXE] [REPS]  (or set LS_BENCH_IMAGES)\n"
                       "  make the images with: loadscope make-dataset --format jpeg-dir --count 2000 DIR\n"
                       "  or: python3 ../shared/anchors/make_jpegs.py DIR 2000\n");
      return 77;
    }
  if (reps < 1 || reps > MAX_REPS)
    reps = 5;

  double build[MAX_REPS], ttfb0[MAX_REPS], ttfb2[MAX_REPS], ttfb2_whole[MAX_REPS], start2[MAX_REPS];
  double r0[MAX_REPS], r2[MAX_REPS], r2w[MAX_REPS];
  double f_start[MAX_REPS], f_pop[MAX_REPS], f_flight[MAX_REPS], f_build[MAX_REPS], f_hand[MAX_REPS];
  printf ("bench-first-batch: %s, batch 64, crop 224, f32, sink none, %d reps (interleaved)\n", images, reps);
  printf ("   %-4s %14s %14s %14s %14s %10s %10s %10s\n", "rep", "build 1 wkr", "first, 0 wkr", "first, 2 wkr",
          "2 wkr, whole", "ratio 0", "ratio 2", "2 whole");
  for (int k = 0; k < reps; k++)
    {
      uint64_t seed = (uint64_t) k + 1;
      /* In-process: the steady waits are one batch's build on one core. */
      ls_run_result a = run (0, false, 8, seed);
      build[k] = a.wait_ms.p50;
      ttfb0[k] = a.time_to_first_batch_ms;
      ls_run_result_clear (&a);

      ls_run_result b = run (2, false, 4, seed);
      ttfb2[k] = b.time_to_first_batch_ms;
      f_start[k] = b.first_batch.worker_start_ms;
      f_pop[k] = b.first_batch.populate_ms;
      f_flight[k] = b.first_batch.in_flight_ms;
      f_build[k] = b.first_batch.build_ms;
      f_hand[k] = b.first_batch.handoff_ms;
      start2[k] = 0;
      for (size_t i = 0; i < b.n_workers; i++)
        if (b.workers[i].startup_ms > start2[k])
          start2[k] = b.workers[i].startup_ms;
      ls_run_result_clear (&b);

      ls_run_result c = run (2, true, 4, seed);
      ttfb2_whole[k] = c.time_to_first_batch_ms;
      ls_run_result_clear (&c);

      r0[k] = ttfb0[k] / build[k];
      r2[k] = ttfb2[k] / build[k];
      r2w[k] = ttfb2_whole[k] / build[k];
      printf ("   %-4d %11.1f ms %11.1f ms %11.1f ms %11.1f ms %10.2f %10.2f %10.2f\n", k + 1, build[k], ttfb0[k],
              ttfb2[k], ttfb2_whole[k], r0[k], r2[k], r2w[k]);
    }
  double mb = median (build, reps);
  printf ("   %-4s %11.1f ms %11.1f ms %11.1f ms %11.1f ms %10.2f %10.2f %10.2f\n", "med", mb, median (ttfb0, reps),
          median (ttfb2, reps), median (ttfb2_whole, reps), median (r0, reps), median (r2, reps), median (r2w, reps));
  printf ("   first batch at 2 workers, median parts: worker start %.1f, arena populate %.1f, first task in flight %.1f, "
          "build %.1f, hand-off %.1f ms\n",
          median (f_start, reps), median (f_pop, reps), median (f_flight, reps), median (f_build, reps),
          median (f_hand, reps));
  printf ("   (ratio = first batch / one batch's build time on one worker; goal <= 1.0, 0.8 ideally;\n"
          "    '2 wkr, whole': the first batch built by one worker, as before the pool shared it;\n"
          "    2 workers' start, max: %.1f ms median)\n",
          median (start2, reps));
  double throughput = 0, write_share = 0;
  steady_run (&throughput, &write_share);
  breakdown (mb);
  /* One line for scripts (bench/first-batch-side-by-side.sh). */
  printf ("\nRESULT first_2w_ms=%.1f build_1w_ms=%.1f ratio=%.2f write_share=%.3f throughput=%.0f\n",
          median (ttfb2, reps), mb, median (r2, reps), write_share, throughput);
  return 0;
}
