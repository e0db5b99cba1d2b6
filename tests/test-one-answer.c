/* One answer everywhere: the same recorded runs give one recommendation
 * and one set of figures through `sweep --json`, `tune --json` (what the
 * Tune window shows), the Results page's verdict text (ls_verdict_for_sweep
 * over the summaries read from the store, as the window reads them), and
 * `report` in HTML and Markdown. A PyTorch script on the CPU (no GPU
 * consumer) speaks of no GPU in any of them, nor in `whatif`. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "app/core/recommend.h"
#include "app/core/verdict.h"
#include "app/report/report-escape.h"
#include "app/store/store-query.h"
#include "app/store/store.h"
#include "test-cli-util.h"
#include "test-util.h"


#define DATA "--dataset", "synthetic", "--count", "192", "--size", "32x32", "--sample-cost-us", "300", \
             "--batch-size", "16"

/* What no output about a run without a GPU consumer may say. */
static const char *const gpu_words[] = {
  "GPU busy", "GPU speed", "faster GPU", "keep the GPU", "keeping the GPU", "GPU-bound", "as fast", "gpu-speed",
  "on the GPU",
};

static void
assert_ok (ls_test_cli *r, const char *what)
{
  if (r->status != 0)
    g_error ("%s: exit %d\n%s\n%s", what, r->status, r->out, r->err);
}

static JsonNode *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* The summaries of a sweep as the window reads them (LsTuneSession, History). */
static JsonArray *
store_summaries (const char *db, gint64 sweep_id)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_assert_no_error (error);
  char ref[32];
  g_snprintf (ref, sizeof ref, "%" G_GINT64_FORMAT, sweep_id);
  g_autoptr (GArray) ids = ls_store_select_runs (store, NULL, ref, &error);
  g_assert_no_error (error);
  JsonArray *out = json_array_new ();
  for (guint i = 0; i < ids->len; i++)
    {
      g_autoptr (JsonObject) run = ls_store_run_object (store, g_array_index (ids, gint64, i), &error);
      g_assert_no_error (error);
      g_autoptr (JsonNode) node = parse (json_object_get_string_member (run, "summary"));
      json_array_add_object_element (out, json_object_ref (json_node_get_object (node)));
    }
  return out;
}

/* The Results page's text for these summaries. */
static char *
results_text (JsonArray *summaries, ls_verdict *v)
{
  ls_verdict_for_sweep (summaries, 0, v);
  return ls_verdict_text (v);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return text;
}

/* `report --sweep ID` in both formats: each holds the recommendation, the
 * DataLoader line and the headline, escaped as the format escapes them. */
static void
assert_reports_agree (const char *db, gint64 sweep_id, const ls_verdict *v, gboolean no_gpu)
{
  static const struct {
    const char *format, *file;
    char *(*escape) (const char *, gsize);
  } formats[] = { { "html", "report.html", ls_report_html_escape }, { "md", "report.md", ls_report_md_escape } };
  char id[32];
  g_snprintf (id, sizeof id, "%" G_GINT64_FORMAT, sweep_id);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      g_autofree char *out = ls_test_tmp_path (formats[f].file);
      ls_test_cli r = ls_test_loadscope ("report", "--db", db, "--sweep", id, "--format", formats[f].format, "-o", out,
                                         "--force", NULL);
      assert_ok (&r, "report");
      ls_test_cli_clear (&r);
      g_autofree char *text = read_text (out);
      const char *parts[] = { v->recommendation, v->dataloader, v->headline };
      for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
        {
          /* Markdown shows the DataLoader line as code: plain. */
          gboolean code = f == 1 && parts[i] == v->dataloader;
          g_autofree char *escaped = code ? ls_report_plain_text (parts[i], 0) : formats[f].escape (parts[i], 0);
          if (!strstr (text, escaped))
            g_error ("the %s report lacks the one answer's \"%s\"", formats[f].format, escaped);
        }
      for (guint i = 0; no_gpu && i < G_N_ELEMENTS (gpu_words); i++)
        if (strstr (text, gpu_words[i]))
          g_error ("the %s report of a run without a GPU says \"%s\"", formats[f].format, gpu_words[i]);
    }
}

/* A loader sweep with repeats: `sweep --json`, the store (Results) and
 * both reports give one recommendation, one DataLoader line, one verdict. */
static void
test_sweep (void)
{
  g_autofree char *db = ls_test_tmp_path ("sweep.sqlite");
  ls_test_cli r = ls_test_loadscope ("sweep", DATA, "--workers", "0,1,2", "--pin", "off,staging", "--repeat", "2",
                                     "--db", db, "--json", NULL);
  assert_ok (&r, "sweep");
  g_autoptr (JsonNode) node = parse (r.out);
  ls_test_cli_clear (&r);

  ls_verdict from_cli, from_store;
  g_autofree char *cli = results_text (json_node_get_array (node), &from_cli);
  g_autoptr (JsonArray) stored = store_summaries (db, 1);
  g_autofree char *results = results_text (stored, &from_store);
  g_test_message ("%s", results);
  g_assert_cmpstr (cli, ==, results);
  g_assert_cmpint (from_cli.index, ==, from_store.index);
  g_assert_nonnull (from_store.recommendation);
  g_assert_true (g_str_has_prefix (from_store.recommendation, "Use "));
  assert_reports_agree (db, 1, &from_store, FALSE);

  /* The line to try never names a configuration this sweep measured slower. */
  g_autoptr (GPtrArray) groups = ls_config_groups (stored);
  for (guint j = 0; from_store.suggested && j < groups->len; j++)
    {
      const ls_config_group *g = groups->pdata[j];
      g_autofree char *line = ls_recommend_dataloader_text (json_array_get_object_element (stored, (guint) g->representative));
      g_assert_cmpstr (line, !=, from_store.suggested);
    }
  ls_verdict_clear (&from_cli);
  ls_verdict_clear (&from_store);
}

/* `tune --json` (the Tune window shows its "verdict") against the Results
 * page and the reports of the sweep it recorded. */
static void
test_tune (void)
{
  g_autofree char *db = ls_test_tmp_path ("tune.sqlite");
  ls_test_cli r = ls_test_loadscope ("tune", DATA, "--max-runs", "5", "--time-budget", "40s", "--db", db, "--json",
                                     NULL);
  assert_ok (&r, "tune");
  g_autoptr (JsonNode) node = parse (r.out);
  ls_test_cli_clear (&r);
  JsonObject *o = json_node_get_object (node);
  gint64 sweep_id = json_object_get_int_member (o, "sweep_id");
  g_assert_cmpint (sweep_id, >, 0);
  const char *tune_text = json_object_get_string_member (o, "verdict");
  g_test_message ("tune:\n%s", tune_text);

  ls_verdict v;
  g_autoptr (JsonArray) stored = store_summaries (db, sweep_id);
  g_autofree char *results = results_text (stored, &v);
  g_test_message ("Results:\n%s", results);
  /* The same words and figures (wait, step, throughput), then tune's own line. */
  g_assert_true (g_str_has_prefix (tune_text, results));
  g_assert_cmpstr (json_object_get_string_member (o, "pytorch"), ==, v.dataloader);
  /* The throughput tune reports is the recommendation's. */
  JsonObject *measured = json_object_get_object_member (o, "measured");
  g_autofree char *tput = g_strdup_printf (": %.0f samples/s", json_object_get_double_member (measured, "throughput_sps"));
  g_autofree char *best = g_strdup_printf ("best throughput, %.0f samples/s",
                                           json_object_get_double_member (measured, "throughput_sps"));
  g_assert_true (strstr (v.recommendation, tput) || strstr (v.recommendation, best));
  JsonObject *rec = json_object_get_object_member (o, "recommended");
  JsonObject *chosen = json_array_get_object_element (stored, (guint) v.index);
  g_assert_cmpint (json_object_get_int_member (rec, "workers"), ==, json_object_get_int_member (chosen, "workers"));
  assert_reports_agree (db, sweep_id, &v, FALSE);
  ls_verdict_clear (&v);
}

/* A recorded sweep made into a PyTorch script's on the CPU (no GPU
 * consumer: sink none, a 3 ms step of its own), imported into a store. */
static char *
cpu_script_store (void)
{
  g_autofree char *src = ls_test_tmp_path ("cpu-source.sqlite");
  ls_test_cli r = ls_test_loadscope ("sweep", DATA, "--sink", "none", "--workers", "0,1", "--db", src, NULL);
  assert_ok (&r, "sweep --sink none");
  ls_test_cli_clear (&r);
  g_autofree char *file = ls_test_tmp_path ("cpu-script.json");
  r = ls_test_loadscope ("export", "--format", "json", "--all", "--db", src, "-o", file, "--force", NULL);
  assert_ok (&r, "export");
  ls_test_cli_clear (&r);

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, file, NULL));
  JsonArray *runs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "runs");
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      JsonObject *summary = json_object_get_object_member (run, "summary");
      g_assert_cmpstr (json_object_get_string_member (summary, "sink"), ==, "none");
      JsonObject *target = json_object_new ();
      json_object_set_string_member (target, "kind", "pytorch");
      json_object_set_string_member (target, "script", "train.py");
      json_object_set_double_member (target, "step_share", 0.1);
      json_object_set_double_member (target, "step_ms_p50", 3.0);
      json_object_set_object_member (summary, "target", target);
      JsonObject *step = json_object_new ();
      json_object_set_double_member (step, "p50", 3.0);
      json_object_set_double_member (step, "p95", 3.0);
      json_object_set_double_member (step, "mean", 3.0);
      json_object_set_object_member (summary, "compute_ms", step);
      JsonArray *batches = json_object_get_array_member (run, "batches");
      for (guint b = 0; b < json_array_get_length (batches); b++)
        json_object_set_double_member (json_array_get_object_element (batches, b), "compute_ms", 3.0);
    }
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, file, NULL));
  char *db = ls_test_tmp_path ("cpu-script.sqlite");
  r = ls_test_loadscope ("import", file, "--db", db, NULL);
  assert_ok (&r, "import");
  ls_test_cli_clear (&r);
  return db;
}

static void
assert_no_gpu_words (const char *what, const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (gpu_words); i++)
    if (strstr (text, gpu_words[i]))
      g_error ("%s of a script on the CPU says \"%s\":\n%s", what, gpu_words[i], text);
}

static void
test_cpu_script (void)
{
  g_autofree char *db = cpu_script_store ();
  g_autoptr (JsonArray) stored = store_summaries (db, 1);
  g_assert_cmpuint (json_array_get_length (stored), ==, 2);
  ls_verdict v;
  g_autofree char *results = results_text (stored, &v);
  g_test_message ("%s", results);
  assert_no_gpu_words ("the sweep's verdict", results);
  ls_verdict_clear (&v);
  for (guint i = 0; i < json_array_get_length (stored); i++)
    {
      ls_verdict_for_run (json_array_get_object_element (stored, i), 2, &v);
      g_autofree char *text = ls_verdict_text (&v);
      assert_no_gpu_words ("a run's verdict", text);
      ls_verdict_clear (&v);
    }
  ls_verdict_for_sweep (stored, 0, &v);
  assert_reports_agree (db, 1, &v, TRUE);
  ls_verdict_clear (&v);

  /* The command line: show, compare and what-if. */
  const char *const commands[][8] = {
    { "show", "1", NULL },
    { "compare", "1", "2", NULL },
    { "whatif", "--run", "1", "--workers", "2", NULL },
  };
  for (guint c = 0; c < G_N_ELEMENTS (commands); c++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      for (guint k = 0; commands[c][k]; k++)
        g_ptr_array_add (argv, (char *) commands[c][k]);
      g_ptr_array_add (argv, (char *) "--db");
      g_ptr_array_add (argv, db);
      g_ptr_array_add (argv, NULL);
      ls_test_cli r = ls_test_loadscopev ((const char *const *) argv->pdata);
      assert_ok (&r, commands[c][0]);
      g_test_message ("%s:\n%s", commands[c][0], r.out);
      assert_no_gpu_words (commands[c][0], r.out);
      ls_test_cli_clear (&r);
    }
  /* What-if offers no GPU speed where there is no GPU. */
  ls_test_cli r = ls_test_loadscope ("whatif", "--run", "1", "--gpu-speed", "2", "--db", db, NULL);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "--gpu-speed"));
  g_assert_nonnull (strstr (r.err, "--step-ms"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ls_test_tmp_dir_make ("loadscope-one-answer-XXXXXX");
  g_test_add_func ("/answer/sweep", test_sweep);
  g_test_add_func ("/answer/tune", test_tune);
  g_test_add_func ("/answer/cpu-script", test_cpu_script);
  int rc = g_test_run ();
  ls_test_tmp_dir_remove ();
  return rc;
}
