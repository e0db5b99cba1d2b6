/* --target pytorch --ranks N end to end with Debian's PyTorch (CPU, gloo):
 * the tests' own DDP script (tests/pytorch/ddp.py) started as torchrun
 * starts it, every rank measured (its stages inside its own DataLoader
 * workers), the node's throughput the ranks' sum, the slow rank named in
 * the verdict; a sweep over workers and threads per rank recorded and
 * exported; a rank that raises or is killed ends the run naming it, and no
 * rank or worker is left. Skipped, saying so, where no interpreter here
 * imports torch. No timing is asserted: the slow rank sleeps 10x longer per
 * sample than the others, far past any noise. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "app/core/verdict-ranks.h"
#include "app/target/probe-line.h"
#include "test-cli-util.h"
#include "test-pytorch-util.h"
#include "test-sql.h"
#include "test-util.h"

static char *scratch, *python, *ddp;

static gboolean
need_torch (void)
{
  if (python)
    return TRUE;
  g_test_skip ("no interpreter here imports torch and torchvision (install python3-torch python3-torchvision)");
  return FALSE;
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

/* Each rank's own figures: its pid, knobs, waits, step, and the stages
 * inside its DataLoader's workers. */
static void
assert_rank (JsonObject *r, guint i, gint64 workers)
{
  g_assert_cmpint (json_object_get_int_member (r, "rank"), ==, i);
  g_assert_cmpint (json_object_get_int_member (r, "pid"), >, 1);
  g_assert_cmpint (json_object_get_int_member (r, "num_workers"), ==, workers);
  g_assert_cmpint (json_object_get_int_member (r, "batch_size"), ==, 8);
  g_assert_cmpfloat (json_object_get_double_member (r, "throughput_sps"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (r, "wait_ms_p50"), >=, 0);
  g_assert_cmpfloat (json_object_get_double_member (r, "step_ms_p50"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (r, "getitem_ms"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (r, "collate_ms"), >, 0);
  g_assert_cmpint (json_object_get_int_member (r, "threads"), >=, 1);
  g_assert_cmpfloat (json_object_get_double_member (r, "cpu_ms"), >, 0);
}

static void
test_slow_rank (void)
{
  if (!need_torch ())
    return;
  g_autofree char *db = g_build_filename (scratch, "slow.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--script", ddp, "--python", python, "--script-args",
                                     "--slow-rank 1 --getitem-ms 10", "--ranks", "2", "--workers", "1", "--batches",
                                     "20", "--timeout", "300", "--db", db, "--json", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  JsonObject *t = json_object_get_object_member (o, "target");
  g_autoptr (JsonNode) shown = json_node_alloc ();
  json_node_init_object (shown, t);
  g_autofree char *target_text = json_to_string (shown, FALSE);
  g_test_message ("target: %s", target_text);
  g_assert_cmpint (json_object_get_int_member (t, "world_size"), ==, 2);
  JsonArray *ranks = json_object_get_array_member (t, "ranks");
  g_assert_cmpint (json_array_get_length (ranks), ==, 2);
  double sum = 0;
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *rank = json_array_get_object_element (ranks, i);
      assert_rank (rank, i, 1);
      sum += json_object_get_double_member (rank, "throughput_sps");
    }
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (ranks, 0), "pid"), !=,
                   json_object_get_int_member (json_array_get_object_element (ranks, 1), "pid"));
  /* The node: the ranks' sum is the run's throughput; 2 ranks + 2 workers. */
  JsonObject *node = json_object_get_object_member (t, "node");
  g_assert_cmpfloat (fabs (json_object_get_double_member (node, "throughput_sps") - sum), <, 1e-6 * sum);
  g_assert_cmpfloat (fabs (json_object_get_double_member (o, "throughput_sps") - sum), <, 1e-6 * sum);
  g_assert_cmpint (json_object_get_int_member (node, "processes"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (node, "cores"), >=, 1);
  g_assert_cmpint (json_object_get_int_member (node, "slowest_rank"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (node, "slowest_stage"), ==, "__getitem__");
  g_assert_cmpfloat (json_object_get_double_member (node, "slower_by_ms"), >, 0);
  /* The verdict names the slow rank and its stage. */
  const char *headline = json_object_get_string_member (json_object_get_object_member (o, "verdict"), "headline");
  g_test_message ("verdict: %s", headline);
  g_assert_nonnull (strstr (headline, "rank 1's __getitem__: the other rank waits for it in its step"));
  /* Stored with the run, and shown in its text. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT json_array_length(summary, '$.target.ranks') FROM run"), ==, 2);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT json_extract(summary, '$.target.node.slowest_rank') FROM run"), ==, 1);
  ls_test_cli_clear (&r);
  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, ls_test_sql_int (db, "SELECT id FROM run"));
  r = ls_test_loadscope ("show", id, "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_test_message ("%s", r.out);
  ls_test_cli_clear (&r);
}

/* A script that spawns its own ranks (torch.multiprocessing.spawn): the
 * probe enters both, each measured, the slow one named. */
static void
test_spawned_ranks (void)
{
  if (!need_torch ())
    return;
  g_autofree char *spawning = ls_test_pytorch_script ("ddp_spawn.py");
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--script", spawning, "--python", python,
                                     "--script-args", "--slow-rank 1 --getitem-ms 10", "--workers", "1", "--batches",
                                     "20", "--timeout", "300", "--no-db", "--json", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o = parse_object (parser, r.out);
  JsonObject *t = json_object_get_object_member (o, "target");
  JsonArray *ranks = json_object_get_array_member (t, "ranks");
  g_assert_cmpint (json_array_get_length (ranks), ==, 2);
  for (guint i = 0; i < 2; i++)
    assert_rank (json_array_get_object_element (ranks, i), i, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (t, "node"), "slowest_rank"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "batches"), ==, 20); /* rank 0's timeline */
  const char *headline = json_object_get_string_member (json_object_get_object_member (o, "verdict"), "headline");
  g_assert_nonnull (strstr (headline, "rank 1's __getitem__"));
  ls_test_cli_clear (&r);
}

/* sweep --ranks 2 --workers 0,1 --threads 1,2: four runs, each with both
 * ranks measured at the configuration's workers and threads; exported. */
static void
test_sweep (void)
{
  if (!need_torch ())
    return;
  g_autofree char *db = g_build_filename (scratch, "sweep.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("sweep", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks", "2",
                                     "--workers", "0,1", "--threads", "1,2", "--batches", "10", "--warmup", "1",
                                     "--timeout", "300", "--db", db, NULL);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done'"), ==, 4);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE json_array_length(summary, '$.target.ranks') "
                                        "= 2"), ==, 4);
  /* Each rank ran with the configuration's threads and workers. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run, json_each(summary, '$.target.ranks') r WHERE "
                                        "json_extract(r.value, '$.threads') = json_extract(summary, '$.target.threads') "
                                        "AND json_extract(r.value, '$.omp_num_threads') = "
                                        "json_extract(summary, '$.target.threads') AND "
                                        "json_extract(r.value, '$.num_workers') = workers"), ==, 8);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(DISTINCT json_extract(summary, '$.target.threads') || '/' || "
                                        "workers) FROM run"), ==, 4);
  g_autofree char *out = g_build_filename (scratch, "sweep.json", NULL);
  r = ls_test_loadscope ("export", "--db", db, "--all", "--format", "json", "-o", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "slowest_rank"));
}

#ifdef __linux__
/* Processes whose arguments hold marker (the ranks and their forked workers). */
static int
marked (const char *marker)
{
  int n = 0;
  GDir *d = g_dir_open ("/proc", 0, NULL);
  g_assert_nonnull (d);
  for (const char *name; (name = g_dir_read_name (d));)
    {
      if (!g_ascii_isdigit (name[0]))
        continue;
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *data = NULL;
      gsize len = 0;
      if (!g_file_get_contents (path, &data, &len, NULL))
        continue;
      for (gsize i = 0; i < len; i++)
        if (data[i] == '\0')
          data[i] = ' ';
      n += g_strstr_len (data, (gssize) len, marker) != NULL;
    }
  g_dir_close (d);
  return n;
}
#endif

/* A rank that fails ends the run: named, with how it ended and its last
 * lines; nothing of the run's tree is left (a deadline, not a timing). */
static void
rank_fails (const char *how, const char *const *expect)
{
  g_autofree char *marker = g_strdup_printf ("lsranks%08x", g_random_int ());
  g_autofree char *args = g_strdup_printf ("%s --tag %s", how, marker);
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--script", ddp, "--python", python, "--script-args",
                                     args, "--ranks", "2", "--workers", "1", "--batches", "20", "--timeout", "300",
                                     "--no-db", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  for (const char *const *e = expect; *e; e++)
    g_assert_nonnull (strstr (r.err, *e));
  ls_test_cli_clear (&r);
#ifdef __linux__
  int left = 0;
  for (int i = 0; i < 600 && (left = marked (marker)) > 0; i++)
    g_usleep (100000);
  g_assert_cmpint (left, ==, 0);
#endif
}

static void
test_rank_raises (void)
{
  if (!need_torch ())
    return;
  const char *expect[] = { "rank 1 of ddp.py (pid ", "ended with exit status 1",
                           "raised RuntimeError: rank 1 gave up at step 2", NULL };
  rank_fails ("--raise-rank 1", expect);
}

static void
test_rank_killed (void)
{
  if (!need_torch ())
    return;
  const char *expect[] = { "rank 0 of ddp.py (pid ", "was killed by signal 9", "its last lines of output",
                           "rank 0: out of memory, killing myself", NULL };
  rank_fails ("--kill-rank 0", expect);
}

/* --launcher torchrun: a stand-in torchrun on PATH (tests/pytorch/
 * fake_torchrun.py: Debian's own fails at start) starts the ranks as
 * torchrun does; the probe enters each (both measured, their pids the ones
 * the stand-in started, the slow one named); a rank that raises ends the
 * run naming it; without a torchrun on PATH the run says so. */
static void
test_torchrun (void)
{
  if (!need_torch ())
    return;
  g_autofree char *bin = g_build_filename (scratch, "bin", NULL);
  g_autofree char *exe = g_build_filename (bin, "torchrun", NULL);
  g_autofree char *log = g_build_filename (scratch, "torchrun.log", NULL);
  g_autofree char *fake = ls_test_pytorch_script ("fake_torchrun.py");
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\nexec '%s' '%s' \"$@\"\n", python, fake);
  g_assert_cmpint (g_mkdir_with_parents (bin, 0755), ==, 0);
  g_assert_true (g_file_set_contents (exe, text, -1, NULL));
  g_assert_cmpint (g_chmod (exe, 0755), ==, 0);
  g_autofree char *path = g_strdup_printf ("PATH=%s:%s", bin, g_getenv ("PATH"));
  g_autofree char *log_env = g_strdup_printf ("FAKE_TORCHRUN_LOG=%s", log);
  const char *env[] = { path, log_env, NULL };
  const char *args[] = { "run", "--target", "pytorch", "--script", ddp, "--python", python, "--script-args",
                         "--slow-rank 1 --getitem-ms 10", "--ranks", "2", "--launcher", "torchrun", "--workers", "1",
                         "--batches", "20", "--timeout", "300", "--no-db", "--json", NULL };
  ls_test_cli r = ls_test_loadscope_env (env, args);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *t = json_object_get_object_member (parse_object (parser, r.out), "target");
  g_assert_cmpstr (json_object_get_string_member (t, "launcher"), ==, "torchrun");
  JsonArray *ranks = json_object_get_array_member (t, "ranks");
  g_assert_cmpint (json_array_get_length (ranks), ==, 2);
  g_autofree char *started = NULL;
  g_assert_true (g_file_get_contents (log, &started, NULL, NULL));
  g_test_message ("the stand-in started (rank pid): %s", started);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *rank = json_array_get_object_element (ranks, i);
      assert_rank (rank, i, 1);
      g_autofree char *line = g_strdup_printf ("%u %" G_GINT64_FORMAT "\n", i, json_object_get_int_member (rank, "pid"));
      g_assert_nonnull (strstr (started, line));
    }
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (t, "node"), "slowest_rank"), ==, 1);
  ls_test_cli_clear (&r);

  /* A sweep passes --launcher to each of its runs: every configuration's
   * ranks started by the stand-in, both measured, recorded. */
  g_assert_true (g_file_set_contents (log, "", 0, NULL));
  g_autofree char *db = g_build_filename (scratch, "torchrun-sweep.sqlite", NULL);
  const char *sweep[] = { "sweep", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks", "2",
                          "--launcher", "torchrun", "--workers", "0,1", "--batches", "10", "--warmup", "1",
                          "--timeout", "300", "--db", db, NULL };
  r = ls_test_loadscope_env (env, sweep);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done' AND "
                                        "json_extract(summary, '$.target.launcher') = 'torchrun' AND "
                                        "json_array_length(summary, '$.target.ranks') = 2"), ==, 2);
  g_autofree char *swept = NULL;
  g_assert_true (g_file_get_contents (log, &swept, NULL, NULL));
  guint started_ranks = 0;
  for (const char *c = swept; *c; c++)
    started_ranks += *c == '\n';
  g_assert_cmpuint (started_ranks, ==, 4); /* 2 runs x 2 ranks */

  const char *raising[] = { "run", "--target", "pytorch", "--script", ddp, "--python", python, "--script-args",
                            "--raise-rank 1", "--ranks", "2", "--launcher", "torchrun", "--batches", "20",
                            "--timeout", "300", "--no-db", NULL };
  r = ls_test_loadscope_env (env, raising);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "rank 1 of ddp.py (pid "));
  g_assert_nonnull (strstr (r.err, "raised RuntimeError: rank 1 gave up at step 2"));
  ls_test_cli_clear (&r);

  const char *no_path[] = { "PATH=/nonexistent", NULL };
  r = ls_test_loadscope_env (no_path, raising);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "--launcher torchrun: no torchrun on PATH"));
  ls_test_cli_clear (&r);
}

/* The ranks event is checked like every line of the probe's channel: one
 * flat entry per rank, in order, numbers only. */
static void
test_event_check (void)
{
  static const struct {
    const char *line;
    const char *error; /* NULL: accepted */
  } cases[] = {
    { "{\"event\":\"ranks\",\"world_size\":2,\"master_port\":29500,\"ranks\":[{\"rank\":0,\"pid\":10,"
      "\"wait_ms_mean\":1.5},{\"rank\":1,\"pid\":null,\"wait_ms_mean\":9}]}", NULL },
    { "{\"event\":\"ranks\",\"world_size\":3,\"ranks\":[{\"rank\":0}]}", "not one entry per rank" },
    { "{\"event\":\"ranks\",\"world_size\":1,\"ranks\":[{\"rank\":1}]}", "ranks[].rank: 1 is out of range" },
    { "{\"event\":\"ranks\",\"world_size\":1,\"ranks\":[{\"rank\":0,\"pid\":\"x\"}]}", "not a number" },
    { "{\"event\":\"ranks\",\"world_size\":1,\"ranks\":[{\"rank\":0,\"stages\":{\"a\":1}}]}", "not a number" },
    { "{\"event\":\"ranks\",\"world_size\":65,\"ranks\":[]}", "world_size: 65 is out of range" },
    { "{\"event\":\"ranks\",\"world_size\":1,\"ranks\":{}}", "missing or not an array" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ls_probe_state st;
      ls_probe_event kind;
      g_autoptr (GError) error = NULL;
      ls_probe_state_init (&st);
      JsonObject *o = ls_probe_line_parse (&st, cases[i].line, strlen (cases[i].line), &kind, &error);
      if (!cases[i].error)
        {
          g_assert_no_error (error);
          g_assert_cmpint (kind, ==, LS_PROBE_EV_RANKS);
          json_object_unref (o);
          continue;
        }
      g_assert_null (o);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].error));
    }
}

/* The node's budget says what processes beyond the cores cost; waits
 * within 20 % of each other name no limiting rank. */
static void
test_budget (void)
{
  g_autofree char *fits = ls_verdict_ranks_budget (8, 3, 32);
  g_assert_cmpstr (fits, ==, "num_workers=3 per rank \u00d7 8 ranks = 24 workers + 8 ranks = 32 processes on 32 cores, "
                             "OMP_NUM_THREADS=1 per rank (--threads 1)");
  g_autofree char *over = ls_verdict_ranks_budget (2, 2, 2);
  g_assert_nonnull (strstr (over, "6 processes on 2 cores"));
  g_assert_nonnull (strstr (over, "4 more processes than cores"));
  g_assert_nonnull (strstr (over, "about 33 % of its speed alone"));
  g_autofree char *roomy = ls_verdict_ranks_budget (2, 1, 16);
  g_assert_nonnull (strstr (roomy, "OMP_NUM_THREADS=7 per rank"));

  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *even = parse_object (parser, "{\"target\":{\"ranks\":[{\"rank\":0,\"wait_ms_p50\":10},"
                                           "{\"rank\":1,\"wait_ms_p50\":11}]}}");
  g_assert_null (ls_verdict_ranks_limiting (even));
  g_assert_cmpint (ls_verdict_ranks_share (even, 8), ==, 4);
  g_autoptr (JsonParser) p2 = json_parser_new ();
  JsonObject *uneven = parse_object (p2, "{\"target\":{\"ranks\":[{\"rank\":0,\"wait_ms_p50\":2},"
                                         "{\"rank\":1,\"wait_ms_p50\":3},{\"rank\":2,\"wait_ms_p50\":40,"
                                         "\"getitem_ms\":1,\"collate_ms\":30}]}}");
  g_autofree char *limiting = ls_verdict_ranks_limiting (uneven);
  g_assert_cmpstr (limiting, ==, "rank 2's collate_fn: the other ranks wait for it in their step (its median batch "
                                 "wait 40.0 ms against 2.5 ms)");
}

/* Bad usage, named, without starting anything. */
static void
test_usage (void)
{
  static const struct {
    const char *args[12];
    const char *says;
  } cases[] = {
    { { "run", "--dataset", "synthetic", "--ranks", "2", NULL }, "--ranks and --threads are for --target pytorch" },
    { { "run", "--target", "pytorch", "--script", "x.py", "--ranks", "65", NULL }, "--ranks 65: must be between" },
    { { "run", "--target", "pytorch", "--script", "x.py", "--threads", "-1", NULL }, "--threads -1: must be between" },
    { { "run", "--target", "pytorch", "--script", "x.py", "--ranks", "2", "--launcher", "mpirun", NULL },
      "--launcher 'mpirun': must be probe or torchrun" },
    { { "run", "--target", "pytorch", "--script", "x.py", "--launcher", "torchrun", NULL },
      "--launcher is for --ranks N" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ls_test_cli r = ls_test_loadscopev (cases[i].args);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      ls_test_cli_clear (&r);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-target-ranks-XXXXXX", NULL);
  python = ls_test_find_torch_python ();
  ddp = ls_test_pytorch_script ("ddp.py");
  g_test_add_func ("/target/ranks/usage", test_usage);
  g_test_add_func ("/target/ranks/event-check", test_event_check);
  g_test_add_func ("/target/ranks/budget", test_budget);
  g_test_add_func ("/target/ranks/slow-rank", test_slow_rank);
  g_test_add_func ("/target/ranks/spawned", test_spawned_ranks);
  g_test_add_func ("/target/ranks/rank-raises", test_rank_raises);
  g_test_add_func ("/target/ranks/rank-killed", test_rank_killed);
  g_test_add_func ("/target/ranks/sweep", test_sweep);
  g_test_add_func ("/target/ranks/torchrun", test_torchrun);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (python);
  g_free (ddp);
  g_free (scratch);
  return rc;
}
