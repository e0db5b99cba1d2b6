/* Store schema 9 through the command line: a run at 2 workers records its
 * first batch's parts, the arena's page size and each worker's page faults
 * in the measured batches, and an export and import keeps them. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>

#include "test-cli-util.h"
#include "test-sql.h"
#include "test-util.h"


static void
cli_ok (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = ls_test_loadscope_va (first, ap);
  va_end (ap);
  if (r.status != 0)
    g_error ("loadscope %s exited %d: %s", first, r.status, r.err);
  g_free (r.out);
  g_free (r.err);
}

#define PARTS_SQL                                                                                                      \
  "SELECT printf ('%.6f,%.6f,%.6f,%.6f,%.6f,%d', first_worker_start_ms, first_populate_ms, first_in_flight_ms, "       \
  "first_build_ms, first_handoff_ms, arena_page_bytes) FROM run"
#define WORKER_SQL                                                                                                     \
  "SELECT group_concat (printf ('%d:%.6f:%d:%d', idx, populate_ms, measured_faults, measured_bytes), ';') FROM worker"

static void
test_recorded_and_round_trip (void)
{
  g_autofree char *a = ls_test_tmp_path ("a.sqlite");
  g_autofree char *b = ls_test_tmp_path ("b.sqlite");
  g_autofree char *bundle = ls_test_tmp_path ("a.json");

  cli_ok ("run", "--dataset", "synthetic", "--count", "96", "--size", "64x64", "--workers", "2", "--batch-size", "8",
          "--warmup", "2", "--sink", "none", "--db", a, NULL);
  /* Every part is there, none negative, and they add up to at most the
   * recorded wait (the hand-off is what is left of it). */
  g_assert_cmpint (ls_test_sql_int (a, "SELECT count(*) FROM run WHERE first_build_ms > 0 AND first_worker_start_ms > 0 "
                                       "AND first_populate_ms >= 0 AND first_in_flight_ms >= 0 AND first_handoff_ms >= 0 "
                                       "AND arena_page_bytes >= 4096"),
                   ==, 1);
  g_assert_cmpint (ls_test_sql_int (a, "SELECT count(*) FROM run WHERE first_worker_start_ms + first_populate_ms + "
                                       "first_in_flight_ms + first_build_ms + first_handoff_ms "
                                       "<= time_to_first_batch_ms + 0.001"),
                   ==, 1);
  /* Both workers built measured batches: their faults and bytes are there. */
  g_assert_cmpint (ls_test_sql_int (a, "SELECT count(*) FROM worker WHERE measured_bytes > 0 AND measured_faults >= 0 "
                                       "AND populate_ms >= 0"),
                   ==, 2);

  cli_ok ("export", "--all", "--format", "json", "-o", bundle, "--db", a, NULL);
  cli_ok ("import", bundle, "--db", b, NULL);
  g_autofree char *run_a = ls_test_sql_text (a, PARTS_SQL);
  g_autofree char *run_b = ls_test_sql_text (b, PARTS_SQL);
  g_assert_nonnull (run_a);
  g_assert_cmpstr (run_a, ==, run_b);
  g_autofree char *workers_a = ls_test_sql_text (a, WORKER_SQL);
  g_autofree char *workers_b = ls_test_sql_text (b, WORKER_SQL);
  g_assert_nonnull (workers_a);
  g_assert_cmpstr (workers_a, ==, workers_b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ls_test_tmp_dir_make ("loadscope-first-batch-XXXXXX");
  g_test_add_func ("/store/first-batch-parts/recorded-and-round-trip", test_recorded_and_round_trip);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_tmp_dir_remove ();
  return rc;
}
