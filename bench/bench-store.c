/* Run store benchmarks, measured side by side in one run:
 *
 *   1. write rate: 1,000,000 batch rows through ls_run_recorder_batch into
 *      a fresh store (WAL, commits every 250 ms or 2048 rows), commits
 *      included; goal >= 500,000 rows/s;
 *   2. recording cost: the same synthetic run with and without recording
 *      its batches, alternated; the ratio of throughputs should be ~1.0.
 *      Two loads: hand-off bound (batches of 1 tiny sample, no work: the
 *      worst case, every batch is a row) and a typical one (batch 64 of
 *      32x32 float samples).
 *
 *   bench-store [WORKER_EXE] [ROWS]    (default: $LOADSCOPE_WORKER, 1000000) */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/store/run-recorder.h"
#include "app/store/store-private.h"
#include "loader/run.h"
#include "platform/sysinfo.h"

static const char *worker_exe;

typedef struct {
  ls_store *store;
  gint64 machine;
  const ls_run_config *config;
  ls_run_recorder *rec;
} recording;

static void
on_started (void *user, const ls_run_result *so_far)
{
  recording *r = user;
  g_autoptr (GError) error = NULL;
  r->rec = ls_run_recorder_begin (r->store, r->machine, 0, r->config, so_far, &error);
  if (!r->rec)
    g_error ("bench-store: %s", error->message);
}

static void
on_batch (void *user, uint64_t seq, const ls_batch_record *b)
{
  recording *r = user;
  ls_run_recorder_batch (r->rec, seq, b);
}

static ls_run_config
config (uint64_t count, uint32_t side, uint32_t batch, uint32_t workers)
{
  ls_run_config c;
  memset (&c, 0, sizeof c);
  ls_pool_config_init (&c.pool);
  strcpy (c.pool.dataset.kind, "synthetic");
  c.pool.dataset.count = count;
  c.pool.dataset.width = side;
  c.pool.dataset.height = side;
  c.pool.dataset.output = batch == 1 ? LS_OUTPUT_U8_HWC : LS_OUTPUT_F32_CHW;
  c.pool.num_workers = workers;
  c.pool.batch_size = batch;
  c.pool.worker_path = worker_exe;
  c.pool.epochs = 1;
  c.pool.timeout_s = 60;
  c.warmup = workers ? workers : 1;
  c.sample_interval_ms = 100;
  return c;
}

static double
write_rate (ls_store *store, gint64 machine, uint64_t rows)
{
  g_autoptr (GError) error = NULL;
  ls_run_config c = config (rows, 1, 1, 0);
  ls_run_result so_far;
  memset (&so_far, 0, sizeof so_far);
  strcpy (so_far.sink_name, "none");

  ls_run_recorder *rec = ls_run_recorder_begin (store, machine, 0, &c, &so_far, &error);
  if (!rec)
    g_error ("bench-store: %s", error->message);
  gint64 t0 = g_get_monotonic_time ();
  for (uint64_t i = 0; i < rows; i++)
    {
      ls_batch_record b = { .epoch = (uint32_t) (i / 100000),
                            .batch = i % 100000,
                            .samples = 64,
                            .ready_ms = (double) i * 0.01,
                            .wait_ms = 0.05 + (double) (i % 7),
                            .copy_ms = -1,
                            .compute_ms = -1,
                            .stage_ms = -1 };
      ls_run_recorder_batch (rec, i, &b);
    }
  if (!ls_run_recorder_finish (rec, &so_far, "{}", &error))
    g_error ("bench-store: %s", error->message);
  double s = (double) (g_get_monotonic_time () - t0) / 1e6;

  sqlite3_stmt *st = NULL;
  gint64 stored = 0;
  sqlite3_prepare_v2 (ls_store_db (store), "SELECT count (*) FROM batch", -1, &st, NULL);
  if (sqlite3_step (st) == SQLITE_ROW)
    stored = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  if ((uint64_t) stored != rows)
    g_error ("bench-store: %" G_GINT64_FORMAT " rows stored of %" G_GUINT64_FORMAT, stored, rows);
  return (double) rows / s;
}

static double
run_once (ls_store *store, gint64 machine, const ls_run_config *base, gboolean record)
{
  ls_run_config c = *base;
  recording r = { store, machine, &c, NULL };
  ls_run_result result;
  ls_error err = { 0 };

  if (record)
    {
      c.user = &r;
      c.on_started = on_started;
      c.on_batch = on_batch;
    }
  if (ls_run (&c, &result, &err) != LS_OK || result.status != LS_RUN_DONE)
    g_error ("bench-store: run failed: %s%s", err.message, result.error);
  double sps = result.throughput_sps;
  if (r.rec)
    {
      g_autoptr (GError) error = NULL;
      if (!ls_run_recorder_finish (r.rec, &result, "{}", &error))
        g_error ("bench-store: %s", error->message);
    }
  ls_run_result_clear (&result);
  return sps;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
recording_cost (ls_store *store, gint64 machine, const char *what, const ls_run_config *c, int reps)
{
  double with[16], without[16];
  g_assert (reps <= 16);
  run_once (store, machine, c, FALSE); /* warm the page cache and the allocator */
  for (int i = 0; i < reps; i++)
    {
      /* Alternate which goes first, so drift does not favour one. */
      if (i % 2)
        {
          with[i] = run_once (store, machine, c, TRUE);
          without[i] = run_once (store, machine, c, FALSE);
        }
      else
        {
          without[i] = run_once (store, machine, c, FALSE);
          with[i] = run_once (store, machine, c, TRUE);
        }
    }
  qsort (with, (size_t) reps, sizeof with[0], cmp_double);
  qsort (without, (size_t) reps, sizeof without[0], cmp_double);
  double batches_per_s = without[reps / 2] / c->pool.batch_size;
  printf ("   %-34s %12.0f %12.0f %12.0f %8.3f\n", what, batches_per_s, without[reps / 2], with[reps / 2],
          with[reps / 2] / without[reps / 2]);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  ls_sysinfo info;
  uint64_t rows = argc > 2 ? g_ascii_strtoull (argv[2], NULL, 10) : 1000000;

  worker_exe = argc > 1 ? argv[1] : getenv ("LOADSCOPE_WORKER");
  if (!worker_exe)
    {
      fprintf (stderr, "usage: bench-store WORKER_EXE [ROWS] (or set LOADSCOPE_WORKER)\n");
      return 2;
    }
  g_autofree char *dir = g_dir_make_tmp ("loadscope-bench-store-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (dir, "bench.sqlite", NULL);
  ls_store *store = ls_store_open (path, &error);
  g_assert_no_error (error);
  gint64 machine = ls_store_this_machine (store, NULL, NULL, &error);
  g_assert_no_error (error);

  ls_sysinfo_read (&info, NULL);
  printf ("bench-store on %s, %s, %d cores; SQLite %s; store in %s\n", info.cpu_model, info.kernel,
          info.logical_cores, sqlite3_libversion (), dir);

  printf ("\n1. Write rate: %" G_GUINT64_FORMAT " batch rows through ls_run_recorder_batch (goal >= 500000 rows/s)\n",
          rows);
  double best = 0;
  for (int i = 0; i < 3; i++)
    {
      double rate = write_rate (store, machine, rows);
      printf ("   pass %d: %.0f rows/s\n", i + 1, rate);
      if (rate > best)
        best = rate;
      ls_store_exec (store, "DELETE FROM batch; DELETE FROM run; PRAGMA wal_checkpoint (TRUNCATE);", NULL);
    }
  printf ("   best: %.0f rows/s (%.2f x the goal)\n", best, best / 500000.0);

  printf ("\n2. Recording cost: the same run with and without recording each batch (medians of 5, goal ~1.0)\n");
  printf ("   %-34s %12s %12s %12s %8s\n", "load", "batches/s", "samples/s", "recorded", "ratio");
  ls_run_config handoff = config (40000, 1, 1, 2);
  recording_cost (store, machine, "hand-off bound: 2 workers, batch 1", &handoff, 5);
  ls_run_config typical = config (64 * 400, 32, 64, 2);
  recording_cost (store, machine, "typical: 2 workers, batch 64 32x32", &typical, 5);

  ls_store_close (store);
  static const char *const suffixes[] = { "", "-wal", "-shm" };
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *p = g_strconcat (path, suffixes[i], NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
  return 0;
}
