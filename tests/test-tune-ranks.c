/* tune --target pytorch --ranks N: workers and threads per rank searched
 * within the node's CPU budget (N x (workers + threads) <= the budget) and
 * memory budget, with the tests' DDP script (gloo on the CPU). Which
 * configuration wins is not asserted (this machine's load decides); that
 * none over the budgets is tried is. The budget errors need no run but one.
 * Skipped, saying so, where no interpreter here imports torch. */
#include <json-glib/json-glib.h>
#include <string.h>

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

/* More ranks than the CPU budget's cores: said before anything runs. */
static void
test_too_many_ranks (void)
{
  ls_test_cli r = ls_test_loadscope ("tune", "--target", "pytorch", "--script", ddp, "--python",
                                     python ? python : "python3", "--ranks", "3", "--cpu-budget", "2", "--no-db",
                                     NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "3 ranks need at least 3 cores (one process each); the CPU budget is 2"));
  g_assert_null (strstr (r.err, "measuring"));
  ls_test_cli_clear (&r);
}

static void
test_within_budget (void)
{
  if (!need_torch ())
    return;
  g_autofree char *db = g_build_filename (scratch, "tune.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("tune", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks",
                                     "2", "--cpu-budget", "4", "--batches", "20", "--time-budget", "600s",
                                     "--timeout", "300", "--db", db, "--json", NULL);
  g_test_message ("%s\n%s", r.err, r.out);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  JsonArray *points = json_object_get_array_member (o, "points");
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < json_array_get_length (points); i++)
    {
      JsonObject *p = json_array_get_object_element (points, i);
      gint64 w = json_object_get_int_member (p, "workers"), t = json_object_get_int_member (p, "threads");
      g_assert_cmpint (t, >=, 1);
      g_assert_cmpint (2 * (w + t), <=, 4);
      g_hash_table_add (seen, g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, w, t));
    }
  /* Every configuration that fits: 0 or 1 worker with 1 thread, 0 workers with 2. */
  g_assert_cmpuint (g_hash_table_size (seen), ==, 3);
  g_assert_true (g_hash_table_contains (seen, "0/1") && g_hash_table_contains (seen, "1/1")
                 && g_hash_table_contains (seen, "0/2"));
  g_assert_nonnull (json_object_get_object_member (o, "recommended"));
  ls_test_cli_clear (&r);
  /* Each run: 2 ranks, each with the point's workers and threads. */
  gint64 runs = ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done'");
  g_assert_cmpint (runs, ==, json_array_get_length (points));
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE json_extract(summary, '$.target.node.ranks') "
                                        "= 2"), ==, runs);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run, json_each(run.summary, '$.target.ranks') r "
                                        "WHERE 2 * (json_extract(r.value, '$.num_workers') + "
                                        "json_extract(r.value, '$.threads')) > 4"), ==, 0);
}

/* A memory budget below the smallest node: one run, then said. */
static void
test_memory_budget (void)
{
  if (!need_torch ())
    return;
  ls_test_cli r = ls_test_loadscope ("tune", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks",
                                     "2", "--cpu-budget", "4", "--memory-budget", "10M", "--batches", "10",
                                     "--timeout", "300", "--no-db", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is below what the smallest configuration of 2 ranks used"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-tune-ranks-XXXXXX", NULL);
  python = ls_test_find_torch_python ();
  ddp = ls_test_pytorch_script ("ddp.py");
  g_test_add_func ("/tune/ranks/too-many-ranks", test_too_many_ranks);
  g_test_add_func ("/tune/ranks/within-budget", test_within_budget);
  g_test_add_func ("/tune/ranks/memory-budget", test_memory_budget);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (python);
  g_free (ddp);
  g_free (scratch);
  return rc;
}
