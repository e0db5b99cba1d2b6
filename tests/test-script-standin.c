/* The script target's runner with a stand-in interpreter
 * (tests/probe-standin.c) that speaks the probe's protocol: built and run
 * natively and for Windows under Wine (scripts/windows/test-app-wine.sh),
 * where there is no Python with torch. `loadscope run --target pytorch
 * --python STANDIN`: a run to its end (batches, the step-bound verdict, the
 * script's prints kept off stdout), each batch's stages inside the
 * DataLoader in the store and in the events, a script that exits before the probe
 * reports, one that hangs (the run's timeout wins, and the stand-in is gone
 * afterwards), --ranks 2 with the stand-in as the ranks' launcher (both
 * measured, a failed rank named, a hung one ended with the run), an
 * interpreter that does not exist. Results only, never
 * timings. $LS_PROBE_STANDIN names the stand-in. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "app/chart/chart-lanes.h"
#include "app/report/chart-store.h"
#include "app/store/store.h"
#include "platform/process.h"
#include "test-cli-util.h"
#include "test-sql.h"
#include "test-util.h"

static char *scratch, *script, *standin;

/* `loadscope run --target pytorch` of the stand-in with script_args; the
 * extra arguments (--no-db or --db among them) up to NULL. */
static ls_test_cli
run_standin (const char *script_args, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *fixed[] = { "run", "--target", "pytorch", "--python", standin, "--script", script, "--script-args",
                          script_args, NULL };
  for (const char *const *a = fixed; *a; a++)
    g_ptr_array_add (args, (char *) *a);
  va_list ap;
  va_start (ap, script_args);
  for (const char *a = va_arg (ap, const char *); a; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return ls_test_loadscopev ((const char *const *) args->pdata);
}

static JsonObject *
parse (const ls_test_cli *r)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, r->out, -1, &error))
    g_error ("run --json printed no JSON (%s); stdout:\n%s\nstderr:\n%s", error->message, r->out, r->err);
  return json_object_ref (json_node_get_object (json_parser_get_root (p)));
}

static void
test_to_the_end (void)
{
  ls_test_cli r = run_standin ("--batches 20 --step-ms 30 --wait-ms 1", "--no-db", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonObject) o = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
  g_assert_cmpint (json_object_get_int_member (o, "batches"), ==, 20);
  JsonObject *target = json_object_get_object_member (o, "target");
  g_assert_cmpstr (json_object_get_string_member (target, "python"), ==, "stand-in");
  g_assert_cmpstr (json_object_get_string_member (target, "ended"), ==, "script_ended");
  /* no device: the copy is null, and says why */
  g_assert_true (json_object_get_null_member (o, "copy_ms"));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (target, "copy_note"), "none: "));
  /* the step (30 ms of sleep) is what the run spends its time on */
  JsonObject *verdict = json_object_get_object_member (o, "verdict");
  g_assert_cmpstr (json_object_get_string_member (verdict, "limit"), ==, "step");
  /* The script's prints went to stderr: stdout is the JSON alone. */
  g_assert_null (strstr (r.out, "probe-standin: a print"));
  g_assert_nonnull (strstr (r.err, "probe-standin: a print"));
  ls_test_cli_clear (&r);
}

/* Each batch's sampler, __getitem__, collate and hand-off, as the probe
 * reported them, in the store's batch rows and in the batch events. */
static void
test_batch_stages_recorded (void)
{
  g_autofree char *db = g_build_filename (scratch, "stages.sqlite", NULL);
  ls_test_cli r = run_standin ("--batches 6 --step-ms 1", "--db", db, "--events=-", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *row = ls_test_sql_text (db, "SELECT group_concat (sampler_ms || ' ' || getitem_ms || ' ' || "
                                               "collate_ms || ' ' || handoff_ms || ' ' || pin_ms, ';') FROM batch");
  g_assert_cmpstr (row, ==, "0.0625 1.5 0.25 0.125 0.03125;0.0625 1.5 0.25 0.125 0.03125;0.0625 1.5 0.25 0.125 0.03125;"
                            "0.0625 1.5 0.25 0.125 0.03125;0.0625 1.5 0.25 0.125 0.03125;0.0625 1.5 0.25 0.125 0.03125");
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count (*) FROM batch WHERE read_ms IS NULL"), ==, 6);
  /* Built by the script's own process (num_workers 0): the loop's lane,
   * __getitem__ then collate_fn from the build's start, then the hand-off. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count (*) FROM batch WHERE worker = -1 AND build_start_ms IS NOT NULL "
                                        "AND build_end_ms >= build_start_ms"),
                   ==, 6);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (ls_store) store = ls_store_open (db, &error);
    g_assert_no_error (error);
    g_autoptr (ls_chart) lanes = ls_chart_run_lanes (store, 1, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (lanes->lanes->labels->len, ==, 1);
    guint getitem = 0, handoff = 0;
    for (guint i = 0; i < lanes->lanes->spans->len; i++)
      {
        const ls_lane_span *sp = &g_array_index (lanes->lanes->spans, ls_lane_span, i);
        getitem += sp->kind == LS_SPAN_GETITEM;
        handoff += sp->kind == LS_SPAN_HANDOFF;
      }
    g_assert_cmpuint (getitem, ==, 6);
    g_assert_cmpuint (handoff, ==, 6);
  }
  guint batches = 0;
  g_auto (GStrv) lines = g_strsplit (r.out, "\n", -1);
  for (char **l = lines; *l; l++)
    if (strstr (*l, "\"event\":\"batch\"") || strstr (*l, "\"event\" : \"batch\""))
      {
        batches++;
        g_assert_nonnull (strstr (*l, "\"getitem_ms\":1.5"));
        g_assert_nonnull (strstr (*l, "\"handoff_ms\":0.125"));
      }
  g_assert_cmpuint (batches, ==, 6);
  ls_test_cli_clear (&r);

  /* The run's stages chart draws them, under the DataLoader's names. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open (db, &error);
  g_assert_no_error (error);
  g_autoptr (ls_chart) chart = ls_chart_run_stages (store, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (chart->title, "inside the script's DataLoader"));
  /* the hand-off is drawn less its pin_memory(), which has a bar part of its own */
  static const struct { const char *label; double ms; } want[] = {
    { "__getitem__", 1.5 }, { "hand-off", 0.125 - 0.03125 }, { "pin_memory", 0.03125 },
  };
  for (guint w = 0; w < G_N_ELEMENTS (want); w++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < chart->series->len; i++)
        {
          const ls_chart_series *s = chart->series->pdata[i];
          if (g_strcmp0 (s->label, want[w].label) != 0)
            continue;
          found = TRUE;
          g_assert_cmpuint (s->points->len, ==, 6);
          g_assert_cmpfloat (g_array_index (s->points, ls_chart_point, 0).y, ==, want[w].ms);
        }
      g_assert_true (found);
    }
}

static void
test_exits_early (void)
{
  ls_test_cli r = run_standin ("--batches 2 --exit 3", "--no-db", "--json", NULL);
  g_autoptr (JsonObject) o = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (o, "error"), ==,
                   "train.py ended with exit status 3 before the probe reported");
  g_assert_cmpint (json_object_get_int_member (o, "batches"), ==, 2);
  ls_test_cli_clear (&r);
}

static void
test_hang_ends_at_timeout (void)
{
  g_autofree char *pid_file = g_build_filename (scratch, "standin.pid", NULL);
  g_autofree char *args = g_strdup_printf ("--batches 2 --hang --pid-file '%s'", pid_file);
  ls_test_cli r = run_standin (args, "--timeout", "2", "--no-db", "--json", NULL);
  g_autoptr (JsonObject) o = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "failed");
  g_assert_nonnull (strstr (json_object_get_string_member (o, "error"), "train.py hung: no batch for 2 s"));
  /* The run ended the stand-in: it is not left running. */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (pid_file, &text, NULL, NULL));
  gint64 pid = g_ascii_strtoll (text, NULL, 10);
  g_assert_cmpint (pid, >, 0);
  g_assert_false (ls_process_is_alive (pid, "probe-standin"));
  ls_test_cli_clear (&r);
}

/* --ranks 2 with the stand-in as launcher (as loadscope_probe/ranks.py):
 * both ranks measured, the node's throughput their sum, the slow rank
 * named, and both rank processes gone after the run. */
static void
test_ranks_measured (void)
{
  g_autofree char *pid_file = g_build_filename (scratch, "ranks.pid", NULL);
  g_autofree char *args = g_strdup_printf ("--batches 8 --step-ms 5 --wait-ms 10 --slow-rank 1 --pid-file '%s'",
                                           pid_file);
  ls_test_cli r = run_standin (args, "--ranks", "2", "--no-db", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonObject) o = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
  JsonObject *target = json_object_get_object_member (o, "target");
  JsonArray *ranks = json_object_get_array_member (target, "ranks");
  g_assert_cmpuint (json_array_get_length (ranks), ==, 2);
  double sum = 0;
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *rank = json_array_get_object_element (ranks, i);
      g_assert_cmpint (json_object_get_int_member (rank, "rank"), ==, i);
      g_assert_cmpint (json_object_get_int_member (rank, "samples"), ==, 32);
      g_assert_cmpfloat (json_object_get_double_member (rank, "throughput_sps"), >, 0);
      sum += json_object_get_double_member (rank, "throughput_sps");
    }
  JsonObject *node = json_object_get_object_member (target, "node");
  g_assert_cmpint (json_object_get_int_member (node, "ranks"), ==, 2);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (node, "throughput_sps"), sum, 1e-6 * sum);
  /* rank 1 waits 40 ms a batch against rank 0's 10 (fixed, not timed) */
  g_assert_cmpint (json_object_get_int_member (node, "slowest_rank"), ==, 1);
  for (int rank = 0; rank < 2; rank++)
    {
      g_autofree char *path = rank ? g_strdup_printf ("%s.%d", pid_file, rank) : g_strdup (pid_file);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_assert_false (ls_process_is_alive (g_ascii_strtoll (text, NULL, 10), "probe-standin"));
    }
  ls_test_cli_clear (&r);
}

/* A rank that fails ends the run naming it; one that hangs is ended with
 * the launcher by the run's timeout. */
static void
test_ranks_fail_and_hang (void)
{
  ls_test_cli r = run_standin ("--batches 6 --step-ms 5 --fail-rank 1", "--ranks", "2", "--no-db", "--json", NULL);
  g_autoptr (JsonObject) o = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "failed");
  g_assert_nonnull (strstr (json_object_get_string_member (o, "error"), "rank 1 of stand-in"));
  g_assert_nonnull (strstr (json_object_get_string_member (o, "error"), "exited with code 3"));
  ls_test_cli_clear (&r);

  g_autofree char *pid_file = g_build_filename (scratch, "ranks-hang.pid", NULL);
  g_autofree char *args = g_strdup_printf ("--batches 2 --hang --pid-file '%s'", pid_file);
  r = run_standin (args, "--ranks", "2", "--timeout", "2", "--no-db", "--json", NULL);
  g_autoptr (JsonObject) h = parse (&r);
  g_assert_cmpstr (json_object_get_string_member (h, "status"), ==, "failed");
  for (int rank = 0; rank < 2; rank++)
    {
      g_autofree char *path = rank ? g_strdup_printf ("%s.%d", pid_file, rank) : g_strdup (pid_file);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      gint64 pid = g_ascii_strtoll (text, NULL, 10);
      g_assert_cmpint (pid, >, 0);
      g_assert_false (ls_process_is_alive (pid, "probe-standin"));
    }
  ls_test_cli_clear (&r);
}

static void
test_no_interpreter (void)
{
  g_autofree char *missing = g_build_filename (scratch, "no-such-python", NULL);
  const char *args[] = { "run", "--target", "pytorch", "--python", missing, "--script", script, "--no-db", NULL };
  ls_test_cli r = ls_test_loadscopev (args);
  g_assert_cmpint (r.status, !=, 0);
  g_autofree char *want = g_strdup_printf ("--python %s: ", missing);
  g_assert_nonnull (strstr (r.err, want));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  standin = g_strdup (g_getenv ("LS_PROBE_STANDIN"));
  if (!standin || !*standin)
    g_error ("set LS_PROBE_STANDIN to tests/probe-standin (meson does)");
  scratch = g_dir_make_tmp ("loadscope-standin-XXXXXX", NULL);
  g_assert_nonnull (scratch);
  script = g_build_filename (scratch, "train.py", NULL);
  g_assert_true (g_file_set_contents (script, "# not run: the stand-in only speaks the probe's protocol\n", -1, NULL));
  g_test_add_func ("/target/standin/to-the-end", test_to_the_end);
  g_test_add_func ("/target/standin/batch-stages-recorded", test_batch_stages_recorded);
  g_test_add_func ("/target/standin/exits-early", test_exits_early);
  g_test_add_func ("/target/standin/hang-ends-at-timeout", test_hang_ends_at_timeout);
  g_test_add_func ("/target/standin/ranks-measured", test_ranks_measured);
  g_test_add_func ("/target/standin/ranks-fail-and-hang", test_ranks_fail_and_hang);
  g_test_add_func ("/target/standin/no-interpreter", test_no_interpreter);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (scratch);
  return rc;
}
