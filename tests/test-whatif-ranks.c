/* whatif --run ID --ranks N --cores C: a node predicted from runs with
 * ranks. The model on made-up runs (what it echoes, when it says the node
 * is oversubscribed, that it fits the slowdown only where a run was over
 * the cores, bad input named); then end to end with Debian's PyTorch (CPU,
 * gloo): a 1-rank and 2-rank sweep of the tests' DDP script, a real 3-rank
 * run, and the prediction for 3 ranks beside it, with the error in the
 * test's output. The error is printed, never asserted: this machine's
 * other load moves it (bench/bench-whatif-ranks.py measures it). Skipped,
 * saying so, where no interpreter here imports torch. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "app/analysis/whatif-ranks.h"
#include "test-cli-util.h"
#include "test-pytorch-util.h"
#include "test-sql.h"
#include "test-util.h"

static char *scratch, *python, *ddp;

/* A run of n ranks on 2 cores, 8 samples a batch: c ms of CPU per batch,
 * period ms per batch, background cores of other load. */
static ls_whatif_ranks_run
made (gint64 id, guint n, guint workers, double c, double period, double background)
{
  return (ls_whatif_ranks_run){ .id = id, .ranks = n, .workers = workers, .threads = 1, .batch_size = 8,
                                .period_ms = period, .cpu_ms = c, .workers_cpu_ms = workers ? c / 2 : 0,
                                .cores = 2, .background = background, .throughput_sps = n * 8 / period * 1e3,
                                .pss_peak_bytes = 200e6 + workers * 50e6 };
}

static void
test_model (void)
{
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  ls_whatif_ranks_run a = made (7, 2, 0, 3, 10, 0), b = made (6, 1, 0, 3, 8, 0);
  g_array_append_val (runs, a);
  g_array_append_val (runs, b);
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_whatif_ranks_basis) basis = ls_whatif_ranks_basis_new (runs, NULL, &error);
  g_assert_no_error (error);
  /* Neither run had more processes than cores: the slowdown is assumed, and said so. */
  g_assert_false (basis->beta_fitted);
  g_assert_cmpfloat (basis->beta, ==, 1.0);
  g_assert_nonnull (strstr (basis->source, "assumed proportional"));

  ls_whatif_ranks_prediction fits, over;
  ls_whatif_ranks_predict (basis, 2, 32, -1, &fits);
  ls_whatif_ranks_predict (basis, 8, 2, -1, &over);
  g_assert_false (fits.oversubscribed);
  g_assert_true (over.oversubscribed);
  g_assert_cmpuint (over.processes, ==, 8);
  g_assert_cmpfloat (over.throughput_sps, >, 0);
  /* More ranks than cores: each rank's batch takes longer than with room. */
  g_assert_cmpfloat (over.period_ms, >, fits.period_ms);
  g_assert_cmpfloat (over.slowdown, >, 1);
  g_assert_cmpfloat (fits.slowdown, ==, 1);

  /* Less of the machine's other load: never slower. */
  ls_whatif_ranks_prediction quiet, busy;
  ls_whatif_ranks_predict (basis, 3, 2, 0, &quiet);
  ls_whatif_ranks_predict (basis, 3, 2, 3, &busy);
  g_assert_cmpfloat (quiet.throughput_sps, >=, busy.throughput_sps);
  g_assert_cmpfloat (busy.background, ==, 3);

  g_autofree char *words = ls_whatif_ranks_explain (basis, &over);
  g_test_message ("%s", words);
  g_assert_nonnull (strstr (words, "8 ranks \u00d7 (1 + 0 workers) = 8 processes on 2 cores"));
  g_assert_nonnull (strstr (words, "oversubscribed: 6 more processes than cores"));
  g_autofree char *roomy = ls_whatif_ranks_explain (basis, &fits);
  g_assert_null (strstr (roomy, "oversubscribed"));
  g_autoptr (JsonNode) node = ls_whatif_ranks_to_json (basis, &over);
  JsonObject *o = json_node_get_object (node);
  JsonObject *conf = json_object_get_object_member (o, "configuration");
  g_assert_cmpint (json_object_get_int_member (conf, "ranks"), ==, 8);
  g_assert_cmpfloat (json_object_get_double_member (conf, "cores"), ==, 2);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (o, "predicted"), "oversubscribed"));
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "basis")), ==, 2);

  /* A run over the cores beside one within them: the slowdown is fitted,
   * and the fit gives back the runs it was fitted to. */
  g_autoptr (GArray) loaded = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  ls_whatif_ranks_run c = made (9, 2, 0, 3, 5 + 3 * pow (1.5, 1.7), 1), d = made (8, 1, 0, 3, 5 + 3, 1);
  g_array_append_val (loaded, c);
  g_array_append_val (loaded, d);
  g_autoptr (ls_whatif_ranks_basis) fitted = ls_whatif_ranks_basis_new (loaded, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fitted->beta_fitted);
  g_assert_cmpfloat (fabs (fitted->beta - 1.7), <, 0.02);
  g_assert_cmpfloat (fabs (fitted->off_cpu_ms - 5), <, 0.1);

  /* Memory: a rank's and a worker's from the runs' PSS peaks. */
  g_autoptr (GArray) with_workers = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  ls_whatif_ranks_run e = made (11, 1, 1, 3, 8, 0), f = made (10, 1, 0, 3, 8, 0);
  g_array_append_val (with_workers, e);
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (ls_whatif_ranks_run));
  g_array_append_val (all, e);
  g_array_append_val (all, f);
  g_autoptr (ls_whatif_ranks_basis) mem = ls_whatif_ranks_basis_new (with_workers, all, &error);
  g_assert_no_error (error);
  ls_whatif_ranks_prediction m;
  ls_whatif_ranks_predict (mem, 4, 16, -1, &m);
  g_assert_cmpfloat (fabs (m.node_pss_bytes - 4 * (200e6 + 50e6)), <, 1e3);
}

/* Bad input named, without reading anything it need not. */
static void
test_usage (void)
{
  g_autofree char *db = g_build_filename (scratch, "empty.sqlite", NULL);
  static const struct {
    const char *args[10];
    const char *says;
    int status;
  } cases[] = {
    { { "whatif", "--run", "1", "--ranks", "0", NULL }, "--ranks 0: must be between 1 and 64", 2 },
    { { "whatif", "--run", "1", "--ranks", "x", NULL }, "--ranks", 2 },
    { { "whatif", "--run", "1", "--ranks", "3", "--cores", "0", NULL }, "--cores", 2 },
    { { "whatif", "--run", "1", "--ranks", "3", "--gpu-speed", "2", NULL }, "--gpu-speed cannot go with --ranks", 2 },
    { { "whatif", "--run", "1", "--ranks", "3", "--background", "-1", NULL }, "--background -1", 2 },
    { { "whatif", "--run", "1", "--background", "1", NULL }, "--background is for --ranks", 2 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ls_test_cli r = ls_test_loadscopev (cases[i].args);
      g_test_message ("%s", r.err);
      g_assert_cmpint (r.status, ==, cases[i].status);
      g_assert_nonnull (strstr (r.err, cases[i].says));
      ls_test_cli_clear (&r);
    }
  /* A run without ranks: said, with what to run instead. */
  ls_test_cli r = ls_test_loadscope ("run", "--dataset", "synthetic", "--count", "64", "--batches", "4", "--db", db,
                                     NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("whatif", "--run", "1", "--ranks", "3", "--db", db, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "run 1 has no ranks"));
  ls_test_cli_clear (&r);
}

static JsonObject *
parse (JsonParser *parser, const char *text)
{
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* The check: 1 and 2 ranks measured, 3 predicted and measured. */
static void
test_three_from_two (void)
{
  if (!python)
    {
      g_test_skip ("no interpreter here imports torch and torchvision (install python3-torch python3-torchvision)");
      return;
    }
  g_autofree char *db = g_build_filename (scratch, "ranks.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("sweep", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks",
                                     "1,2", "--workers", "0", "--batches", "100", "--timeout", "300", "--db", db, NULL);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  gint64 two = ls_test_sql_int (db, "SELECT id FROM run WHERE json_extract(summary, '$.target.node.ranks') = 2");
  g_assert_cmpint (two, >, 0);
  r = ls_test_loadscope ("run", "--target", "pytorch", "--script", ddp, "--python", python, "--ranks", "3",
                         "--workers", "0", "--batches", "100", "--timeout", "300", "--db", db, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) mp = json_parser_new ();
  JsonObject *three = parse (mp, r.out);
  double measured = json_object_get_double_member (three, "throughput_sps");
  /* The other load while it ran, for a second prediction beside it. */
  g_autofree char *then = g_strdup_printf (
      "%.3f", json_object_get_double_member (json_object_get_object_member (three, "machine_busy"),
                                             "other_cpu_percent") / 100.0);
  ls_test_cli_clear (&r);

  g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, two);
  r = ls_test_loadscope ("whatif", "--run", id, "--ranks", "3", "--cores", "2", "--db", db, "--json", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) pp = json_parser_new ();
  JsonObject *o = parse (pp, r.out);
  JsonObject *pred = json_object_get_object_member (o, "predicted");
  JsonObject *conf = json_object_get_object_member (o, "configuration");
  JsonObject *model = json_object_get_object_member (o, "model");
  double predicted = json_object_get_double_member (pred, "throughput_sps");
  g_assert_cmpfloat (predicted, >, 0);
  g_assert_cmpint (json_object_get_int_member (conf, "ranks"), ==, 3);
  g_assert_cmpfloat (json_object_get_double_member (conf, "cores"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (conf, "processes"), ==, 3);
  g_assert_true (json_object_get_boolean_member (pred, "oversubscribed"));
  g_assert_cmpfloat (json_object_get_double_member (pred, "cpu_ms_per_sample"), >, 0);
  /* Its basis: the 2-rank run and the 1-rank run of its sweep, named. */
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "basis")), ==, 2);
  g_assert_nonnull (strstr (json_object_get_string_member (model, "source"), "2 runs with 2, 1 ranks"));
  g_test_message ("3 ranks on 2 cores: predicted %.0f samples/s, measured %.0f samples/s, error %+.1f %% "
                  "(model: CPU %.2f ms + off-CPU %.2f ms per batch, slowdown load^%.2f, background %.2f cores)",
                  predicted, measured, (predicted - measured) / measured * 100,
                  json_object_get_double_member (model, "cpu_ms_per_batch"),
                  json_object_get_double_member (model, "off_cpu_ms_per_batch"),
                  json_object_get_double_member (model, "beta"),
                  json_object_get_double_member (model, "background_cores"));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("whatif", "--run", id, "--ranks", "3", "--cores", "2", "--background", then, "--db", db,
                         "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) bp = json_parser_new ();
  double with_then = json_object_get_double_member (
      json_object_get_object_member (parse (bp, r.out), "predicted"), "throughput_sps");
  g_assert_cmpfloat (with_then, >, 0);
  g_test_message ("the same with the other load measured during the 3-rank run (%s cores): predicted %.0f "
                  "samples/s, error %+.1f %%", then, with_then, (with_then - measured) / measured * 100);
  ls_test_cli_clear (&r);

  /* The words say the same. */
  r = ls_test_loadscope ("whatif", "--run", id, "--ranks", "3", "--cores", "2", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_test_message ("%s", r.out);
  g_assert_nonnull (strstr (r.out, "3 ranks \u00d7 (1 + 0 workers) = 3 processes on 2 cores (oversubscribed"));
  g_assert_nonnull (strstr (r.out, "Basis: runs"));
  ls_test_cli_clear (&r);
  /* Workers per rank the sweep did not measure: said, with the sweep to run. */
  r = ls_test_loadscope ("whatif", "--run", id, "--ranks", "3", "--workers", "2", "--db", db, NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "has 2 workers per rank"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-whatif-ranks-XXXXXX", NULL);
  python = ls_test_find_torch_python ();
  ddp = ls_test_pytorch_script ("ddp.py");
  g_test_add_func ("/whatif/ranks/model", test_model);
  g_test_add_func ("/whatif/ranks/usage", test_usage);
  g_test_add_func ("/whatif/ranks/three-from-two", test_three_from_two);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  g_free (python);
  g_free (ddp);
  g_free (scratch);
  return rc;
}
