/* The phases of a script run and their allowances (app/target/probe-phase.h),
 * on a clock the test gives: no time passes, nothing is timed. A start
 * (torch's import, a worker set's start) has the start's allowance, never
 * a short --timeout; a set's start is taken once per batch, so lines that
 * are no progress ("workers" repeated, worker_ready, stages) never hold a
 * run past its allowance. */
#include <glib.h>
#include <string.h>

#include "app/target/probe-phase.h"

#define S(x) ((uint64_t) ((x) * 1e9))

/* Whether the run's current phase ran past its allowance at `t` s. */
static gboolean
expired_at (const ls_phase *p, double t)
{
  return ls_phase_expired (p, S (t));
}

static void
test_start_has_its_own_allowance (void)
{
  ls_phase p;
  ls_phase_init (&p, 4, S (0));
  g_assert_cmpint (p.kind, ==, LS_PHASE_START);
  g_assert_cmpfloat (ls_phase_allowance (&p), ==, LS_PHASE_START_MIN_S);
  /* torch's import taking 30 s is no hang */
  g_assert_false (expired_at (&p, 30));
  g_assert_true (expired_at (&p, LS_PHASE_START_MIN_S + 1));
  /* the probe's line: the script's own 4 s from now on */
  ls_phase_event (&p, LS_PROBE_EV_PROBE, S (30));
  g_assert_cmpint (p.kind, ==, LS_PHASE_LOADER);
  g_assert_false (expired_at (&p, 33));
  g_assert_true (expired_at (&p, 35));
  char msg[256];
  ls_phase_message (&p, "no_loader.py", 0, msg, sizeof msg);
  g_assert_nonnull (strstr (msg, "did not build a torch.utils.data.DataLoader within 4 s"));
}

static void
test_worker_set_start (void)
{
  ls_phase p;
  ls_phase_init (&p, 4, S (0));
  ls_phase_event (&p, LS_PROBE_EV_PROBE, S (10));
  ls_phase_event (&p, LS_PROBE_EV_LOADER, S (11));
  g_assert_cmpint (p.kind, ==, LS_PHASE_BATCHES);
  /* spawned workers importing torch: 40 s to the set's first batch */
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (12));
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  g_assert_cmpfloat (ls_phase_allowance (&p), ==, LS_PHASE_START_MIN_S);
  g_assert_false (expired_at (&p, 52));
  ls_phase_event (&p, LS_PROBE_EV_WORKER_READY, S (52)); /* no progress */
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  ls_phase_event (&p, LS_PROBE_EV_BATCH, S (52));
  g_assert_cmpint (p.kind, ==, LS_PHASE_BATCHES);
  /* then each batch within --timeout of the one before */
  g_assert_false (expired_at (&p, 55));
  ls_phase_event (&p, LS_PROBE_EV_BATCH, S (55));
  g_assert_true (expired_at (&p, 59.5));
  char msg[256];
  ls_phase_message (&p, "hanging.py", 2, msg, sizeof msg);
  g_assert_nonnull (strstr (msg, "hanging.py hung: no batch for 4 s (--timeout) after 2 batches"));
  /* the next epoch's set (persistent workers off) starts again */
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (56));
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  g_assert_false (expired_at (&p, 100));
  g_assert_true (expired_at (&p, 56 + LS_PHASE_START_MIN_S + 1));
  ls_phase_message (&p, "train.py", 2, msg, sizeof msg);
  g_assert_nonnull (strstr (msg, "workers did not start and deliver a first batch within 120 s"));
}

/* "workers" lines without batches are no progress: the first set's clock
 * runs on, and a set never restarts it before a batch. */
static void
test_workers_lines_are_not_progress (void)
{
  ls_phase p;
  ls_phase_init (&p, 4, S (0));
  ls_phase_event (&p, LS_PROBE_EV_PROBE, S (1));
  /* before the DataLoader: no set starts */
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (2));
  g_assert_cmpint (p.kind, ==, LS_PHASE_LOADER);
  g_assert_true (expired_at (&p, 6));
  ls_phase_event (&p, LS_PROBE_EV_LOADER, S (3));
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (4));
  for (double t = 4.5; t < 200; t += 0.5)
    {
      ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (t));
      ls_phase_event (&p, LS_PROBE_EV_WORKER_READY, S (t));
      ls_phase_event (&p, LS_PROBE_EV_STAGES, S (t));
    }
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  g_assert_true (expired_at (&p, 4 + LS_PHASE_START_MIN_S + 1));
  /* one batch, then a set again at once: one set's start per batch */
  ls_phase_event (&p, LS_PROBE_EV_BATCH, S (200));
  g_assert_cmpint (p.kind, ==, LS_PHASE_BATCHES);
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (201));
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  ls_phase_event (&p, LS_PROBE_EV_BATCH, S (202));
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (203));
  g_assert_cmpint (p.kind, ==, LS_PHASE_WORKERS);
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (204));
  g_assert_cmpuint (p.since_ns, ==, S (203));
}

/* The end and a closed channel: --timeout, whichever phase came before. */
static void
test_end_and_close (void)
{
  ls_phase p;
  ls_phase_init (&p, 4, S (0));
  ls_phase_event (&p, LS_PROBE_EV_PROBE, S (1));
  ls_phase_event (&p, LS_PROBE_EV_LOADER, S (2));
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (3));
  ls_phase_event (&p, LS_PROBE_EV_FINISHED, S (5));
  g_assert_cmpint (p.kind, ==, LS_PHASE_ENDING);
  g_assert_cmpfloat (ls_phase_allowance (&p), ==, 4);
  /* a set after the end starts nothing */
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (6));
  g_assert_cmpint (p.kind, ==, LS_PHASE_ENDING);
  ls_phase_closed (&p, S (7));
  g_assert_cmpint (p.kind, ==, LS_PHASE_CLOSED);
  g_assert_false (expired_at (&p, 10));
  g_assert_true (expired_at (&p, 11.5));
  /* --timeout 0 waits forever, in every phase */
  ls_phase_init (&p, 0, S (0));
  g_assert_false (expired_at (&p, 1e6));
  ls_phase_event (&p, LS_PROBE_EV_PROBE, S (1));
  ls_phase_event (&p, LS_PROBE_EV_LOADER, S (2));
  ls_phase_event (&p, LS_PROBE_EV_WORKERS, S (3));
  g_assert_false (expired_at (&p, 1e6));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/target/phase/start-has-its-own-allowance", test_start_has_its_own_allowance);
  g_test_add_func ("/target/phase/worker-set-start", test_worker_set_start);
  g_test_add_func ("/target/phase/workers-lines-are-not-progress", test_workers_lines_are_not_progress);
  g_test_add_func ("/target/phase/end-and-close", test_end_and_close);
  return g_test_run ();
}
