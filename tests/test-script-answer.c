/* A PyTorch script answered as Loadscope's own loader is: the
 * knobs the user did not name stay the script's and are reported as such,
 * a script whose step is ten times its wait is step-bound with the gain
 * stated, and a slow __getitem__ is loading-bound and named, from the
 * stages the probe timed inside the script's DataLoader. Skipped, saying so,
 * where no interpreter here imports torch. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/chart/chart.h"
#include "app/report/chart-store.h"
#include "app/store/store-named.h"
#include "app/target/target-diagnose.h"
#include "app/store/store.h"
#include "test-cli-util.h"
#include "test-pytorch-util.h"
#include "test-util.h"

static char *scratch, *python, *images;

static gboolean
need_torch (void)
{
  if (python)
    return TRUE;
  g_test_skip ("no interpreter here imports torch and torchvision (install python3-torch python3-torchvision)");
  return FALSE;
}

/* `run --target pytorch --script own_knobs.py --json` with extra options;
 * the summary (owned by the caller's parser). */
static JsonObject *
run_own_knobs (JsonParser *parser, const char *script_args, const char *first, ...)
{
  g_autofree char *script = ls_test_pytorch_script ("own_knobs.py");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *base[] = { "run", "--target", "pytorch", "--python", python, "--script", script, "--script-args",
                         script_args, "--batches", "14", "--no-db", "--json" };
  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (argv, (char *) base[i]);
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  ls_test_cli r = ls_test_loadscopev ((const char *const *) argv->pdata);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  ls_test_cli_clear (&r);
  return json_node_get_object (json_parser_get_root (parser));
}

static const char *
knob_from (JsonObject *summary, const char *knob)
{
  JsonObject *knobs = json_object_get_object_member (json_object_get_object_member (summary, "target"), "knobs");
  return json_object_get_string_member (json_object_get_object_member (knobs, knob), "from");
}

/* Without --batch-size, --pin, --workers ... the script's own knobs run. */
static void
test_script_keeps_its_knobs (void)
{
  if (!need_torch ())
    return;
  g_autofree char *seen = g_build_filename (scratch, "seen.json", NULL);
  g_autofree char *args = g_strdup_printf ("--seen %s", seen);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *s = run_own_knobs (p, args, NULL);
  g_autoptr (JsonParser) sp = json_parser_new ();
  g_assert_true (json_parser_load_from_file (sp, seen, NULL));
  JsonObject *loader = json_node_get_object (json_parser_get_root (sp));
  /* what the script's DataLoader iterated with */
  g_assert_cmpint (json_object_get_int_member (loader, "batch_size"), ==, 12);
  g_assert_cmpint (json_object_get_int_member (loader, "num_workers"), ==, 1);
  g_assert_true (json_object_get_boolean_member (loader, "pin_memory"));
  g_assert_cmpint (json_object_get_int_member (loader, "prefetch_factor"), ==, 3);
  g_assert_true (json_object_get_boolean_member (loader, "persistent_workers"));
  /* what the run recorded, each marked as the script's */
  g_assert_cmpint (json_object_get_int_member (s, "batch_size"), ==, 12);
  g_assert_cmpint (json_object_get_int_member (s, "workers"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (s, "prefetch"), ==, 3);
  g_assert_true (json_object_get_boolean_member (s, "persistent"));
  g_assert_cmpstr (knob_from (s, "batch_size"), ==, "script");
  g_assert_cmpstr (knob_from (s, "pin_memory"), ==, "script");
  g_assert_cmpstr (knob_from (s, "num_workers"), ==, "script");
}

/* The knobs given are applied, and said to be Loadscope's. */
static void
test_given_knobs_apply (void)
{
  if (!need_torch ())
    return;
  g_autofree char *seen = g_build_filename (scratch, "seen-given.json", NULL);
  g_autofree char *args = g_strdup_printf ("--seen %s", seen);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *s = run_own_knobs (p, args, "--batch-size", "8", "--pin", "off", NULL);
  g_autoptr (JsonParser) sp = json_parser_new ();
  g_assert_true (json_parser_load_from_file (sp, seen, NULL));
  JsonObject *loader = json_node_get_object (json_parser_get_root (sp));
  g_assert_cmpint (json_object_get_int_member (loader, "batch_size"), ==, 8);
  g_assert_false (json_object_get_boolean_member (loader, "pin_memory"));
  g_assert_cmpint (json_object_get_int_member (loader, "num_workers"), ==, 1); /* not given: the script's */
  g_assert_cmpint (json_object_get_int_member (s, "batch_size"), ==, 8);
  g_assert_cmpstr (knob_from (s, "batch_size"), ==, "loadscope");
  g_assert_cmpstr (knob_from (s, "pin_memory"), ==, "loadscope");
  g_assert_cmpstr (knob_from (s, "num_workers"), ==, "script");
}

/* A 400 ms step against a wait of a few ms: step-bound (a wait is the
 * hand-off of a batch built long before; on a loaded machine it stretches
 * by the scheduler's tens of ms, so the step is long enough that a tenth
 * of it stays above that), the gain stated. */
static void
test_step_bound_script (void)
{
  if (!need_torch ())
    return;
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *s = run_own_knobs (p, "--step-ms 400", NULL);
  JsonObject *v = json_object_get_object_member (s, "verdict");
  g_test_message ("%s", json_object_get_string_member (v, "headline"));
  g_assert_cmpstr (json_object_get_string_member (v, "limit"), ==, "step");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (v, "expected_gain"), "at most "));
  g_assert_nonnull (strstr (json_object_get_string_member (v, "expected_gain"), "the step takes"));
}

/* 12 samples of 15 ms each in one worker against a 2 ms step: the script
 * waits; the probe timed __getitem__ inside the worker and it is named. */
static void
test_slow_getitem_is_named (void)
{
  if (!need_torch ())
    return;
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *s = run_own_knobs (p, "--step-ms 2 --getitem-ms 15", NULL);
  JsonObject *v = json_object_get_object_member (s, "verdict");
  g_test_message ("%s", json_object_get_string_member (v, "headline"));
  g_assert_cmpstr (json_object_get_string_member (v, "limit"), ==, "loading");
  JsonObject *stages = json_object_get_object_member (s, "stages_ms");
  g_assert_nonnull (stages);
  /* 12 x 15 ms of sleep in __getitem__ per batch, at least */
  g_assert_cmpfloat (json_object_get_double_member (stages, "getitem"), >=, 12 * 15);
  g_assert_cmpfloat (json_object_get_double_member (stages, "collate"), <,
                     json_object_get_double_member (stages, "getitem"));
  JsonArray *findings = json_object_get_array_member (v, "findings");
  gboolean named = FALSE;
  for (guint i = 0; i < json_array_get_length (findings); i++)
    named |= strstr (json_array_get_string_element (findings, i), "__getitem__") != NULL;
  g_assert_true (named);
  /* each sample timed inside the worker: its median is the sleep at least */
  JsonObject *t = json_object_get_object_member (s, "target");
  g_assert_cmpfloat (json_object_get_double_member (t, "getitem_p50_ms"), >=, 15);
  g_assert_cmpfloat (json_object_get_double_member (t, "getitem_p95_ms"), >=,
                     json_object_get_double_member (t, "getitem_p50_ms"));
  g_assert_cmpint (json_object_get_int_member (t, "getitem_samples_timed"), >=, 12 * 4);
  /* a worker that sleeps in __getitem__ is busy on the wall clock, not on
   * the CPU: the kernel's count is its own, not the stages' sum again */
  g_assert_cmpfloat (json_object_get_double_member (t, "worker_cpu_ms"), <,
                     0.5 * json_object_get_double_member (t, "worker_busy_ms"));
  g_assert_false (json_object_get_null_member (stages, "idle"));
}

/* A loader built the ways scripts build one: each is found, takes the
 * knobs given, and has its stages timed. */
static void
test_loaders_built_every_way (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("built_every_way.py");
  static const char *const ways[] = { "module", "subclass", "factory", "iterable" };
  for (guint i = 0; i < G_N_ELEMENTS (ways); i++)
    {
      g_autofree char *seen = g_strdup_printf ("%s/seen-%s.json", scratch, ways[i]);
      g_autofree char *args = g_strdup_printf ("%s --seen %s", ways[i], seen);
      ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--python", python, "--script", script,
                                         "--script-args", args, "--workers", "2", "--batches", "10", "--no-db",
                                         "--json", NULL);
      g_test_message ("%s: %s", ways[i], r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) p = json_parser_new ();
      g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
      ls_test_cli_clear (&r);
      JsonObject *s = json_node_get_object (json_parser_get_root (p));
      g_assert_cmpint (json_object_get_int_member (s, "batches"), ==, 10);
      g_autoptr (JsonParser) sp = json_parser_new ();
      g_assert_true (json_parser_load_from_file (sp, seen, NULL));
      JsonObject *loader = json_node_get_object (json_parser_get_root (sp));
      g_assert_cmpint (json_object_get_int_member (loader, "num_workers"), ==, 2); /* the script asks 0 */
      /* 6 samples of 1 ms of sleep each, timed inside the workers */
      g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (s, "stages_ms"), "getitem"),
                         >=, 6);
    }
}

/* A script that ends with sys.exit() after 4 batches: a finished run of 4
 * (the last one's step lasting until the exit). */
static void
test_script_that_exits (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("built_every_way.py");
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--python", python, "--script", script,
                                     "--script-args", "exit --batches 4", "--workers", "1", "--batches", "10",
                                     "--no-db", "--json", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  ls_test_cli_clear (&r);
  JsonObject *s = json_node_get_object (json_parser_get_root (p));
  g_assert_cmpint (json_object_get_int_member (s, "batches"), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (s, "status"), ==, "done");
}

/* A sweep of the script: the stages chart has a bar per configuration of
 * the script's own stages (__getitem__, collate_fn, ...), not the loader's. */
static void
test_stages_chart_of_a_script (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("own_knobs.py");
  g_autofree char *db = g_build_filename (scratch, "sweep.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("sweep", "--db", db, "--target", "pytorch", "--python", python, "--script", script,
                                     "--script-args", "--step-ms 2 --getitem-ms 2", "--workers", "0,1", "--batches",
                                     "10", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open (db, &error);
  g_assert_no_error (error);
  ls_chart *chart = ls_chart_sweep (store, 1, "stages", &error);
  g_assert_no_error (error);
  guint getitem_points = 0, loader_points = 0;
  for (guint i = 0; i < chart->series->len; i++)
    {
      const ls_chart_series *s = chart->series->pdata[i];
      if (strcmp (s->label, "__getitem__") == 0)
        {
          getitem_points = s->points->len;
          g_assert_true (s->in_legend);
          /* 12 samples of 2 ms of sleep each */
          for (guint k = 0; k < s->points->len; k++)
            g_assert_cmpfloat (g_array_index (s->points, ls_chart_point, k).y, >=, 24);
        }
      else if (strcmp (s->label, "read") == 0 || strcmp (s->label, "decode") == 0)
        loader_points += s->points->len;
    }
  g_assert_cmpuint (getitem_points, ==, 2);
  g_assert_cmpuint (loader_points, ==, 0);
  ls_chart_free (chart);
  /* the batch rows hold each batch's fetch time (busy), as the loader's do */
  gint64 params[2] = { 1, 0 };
  g_autoptr (ls_store_rows) rows = ls_store_query_rows (store, LS_QUERY_RUN_BATCH_BUSY, params, 2, &error);
  g_assert_no_error (error);
  guint busy_rows = 0;
  while (ls_store_rows_next (rows, NULL))
    {
      g_assert_cmpfloat (ls_store_rows_get_double (rows, 0), >=, 24);
      busy_rows++;
    }
  g_assert_cmpuint (busy_rows, >=, 8);
  /* whatif on the 1-worker run alone builds from the script's own stage
   * costs (the fetch time the probe measured), not from its throughput */
  r = ls_test_loadscope ("whatif", "--db", db, "--run", "2", "--alone", "--workers", "2", "--json", NULL);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) wp = json_parser_new ();
  g_assert_true (json_parser_load_from_data (wp, r.out, -1, NULL));
  ls_test_cli_clear (&r);
  JsonObject *model = json_object_get_object_member (json_node_get_object (json_parser_get_root (wp)), "model");
  g_test_message ("%s", json_object_get_string_member (model, "t_build_source"));
  g_assert_nonnull (strstr (json_object_get_string_member (model, "t_build_source"), "measured build time"));
}

/* tune searches the script's DataLoader knobs as it does the loader's. */
static void
test_tune_a_script (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("own_knobs.py");
  g_autofree char *db = g_build_filename (scratch, "tune.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("tune", "--db", db, "--target", "pytorch", "--python", python, "--script", script,
                                     "--script-args", "--step-ms 2 --getitem-ms 1", "--batches", "10",
                                     "--time-budget", "40s", NULL);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Use "));
  g_assert_nonnull (strstr (r.out, "DataLoader(dataset, batch_size=12"));
  g_assert_null (strstr (r.out, "nan"));
  g_assert_null (strstr (r.err, "nan"));
  /* On the CPU pin_memory does nothing: no run is spent on it. */
  g_autofree char *all = g_strconcat (r.out, r.err, NULL);
  g_assert_nonnull (strstr (all, "pin: the script runs on the CPU, where pin_memory has no effect: not searched"));
  g_assert_null (strstr (all, "pin=staging"));
  g_assert_null (strstr (all, "pin=arena"));
  ls_test_cli_clear (&r);
}

/* On CUDA the probe times the script's own copies of each batch to the
 * device with events around its .to(): here a test switch stands in for
 * the device (the probe's copy is a clone, its events the host clock), so
 * what is checked is the matching of copies to batches and their way into
 * the batch events and the summary; tests/device/check.sh runs the same
 * script on a real GPU. */
static void
test_copies_to_the_device (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("cuda_copy.py");
  g_autofree char *events = g_build_filename (scratch, "copy-events.jsonl", NULL);
  g_autofree char *events_arg = g_strconcat ("--events=", events, NULL);
  const char *args[] = { "run", "--target", "pytorch", "--python", python, "--script", script, "--script-args",
                         "--step-ms 2", "--batches", "12", "--no-db", "--json", events_arg, NULL };
  const char *fake[] = { "LS_TEST_PROBE_FAKE_CUDA_COPY=1", "LS_TEST_PROBE_ASSUME_CUDA=1", NULL };
  ls_test_cli r = ls_test_loadscope_env (fake, args);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  g_assert_cmpstr (json_object_get_string_member (o, "status"), ==, "done");
  JsonObject *copy = json_object_get_object_member (o, "copy_ms");
  g_assert_cmpfloat (json_object_get_double_member (copy, "p50"), >, 0);
  JsonObject *target = json_object_get_object_member (o, "target");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (target, "copy_note"), "timed on the device"));
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (target, "stages_ms"), "pin"), >=, 0);
  /* every batch, in order, with its own copies (x and y) */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (events, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gint64 batches = 0;
  for (char **l = lines; *l && **l; l++)
    {
      g_autoptr (JsonParser) lp = json_parser_new ();
      g_assert_true (json_parser_load_from_data (lp, *l, -1, NULL));
      JsonObject *e = json_node_get_object (json_parser_get_root (lp));
      if (g_strcmp0 (json_object_get_string_member (e, "event"), "batch") != 0)
        continue;
      g_assert_cmpint (json_object_get_int_member (e, "seq"), ==, batches);
      g_assert_false (json_object_get_null_member (e, "copy_ms"));
      g_assert_cmpfloat (json_object_get_double_member (e, "copy_ms"), >, 0);
      /* pin_memory() of the batch (in next(): 0 workers), matched to it */
      g_assert_false (json_object_get_null_member (e, "pin_ms"));
      g_assert_cmpfloat (json_object_get_double_member (e, "pin_ms"), >=, 0);
      batches++;
    }
  g_assert_cmpint (batches, ==, 12);
  ls_test_cli_clear (&r);

  /* The same script on the CPU: nothing copied, null, and said why. */
  const char *cpu_args[] = { "run", "--target", "pytorch", "--python", python, "--script", script, "--script-args",
                             "--step-ms 2", "--batches", "6", "--no-db", "--json", NULL };
  r = ls_test_loadscopev (cpu_args);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) cp = json_parser_new ();
  g_assert_true (json_parser_load_from_data (cp, r.out, -1, NULL));
  o = json_node_get_object (json_parser_get_root (cp));
  g_assert_true (json_object_get_null_member (o, "copy_ms"));
  target = json_object_get_object_member (o, "target");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (target, "copy_note"), "none: "));
  ls_test_cli_clear (&r);
}

static JsonObject *
member_object (JsonObject *o, const char *name)
{
  return json_object_get_object_member (o, name);
}

/* run --diagnose on the ImageFolder script: (a) replays the first batches
 * (the loader stops, so it opens few of the files), the dataset's folder
 * is found from the files it opened, and (c) and (b) run with all of it
 * dropped from and read into the page cache. */
static void
test_diagnose_a_script (void)
{
  if (!need_torch ())
    return;
  g_autofree char *script = ls_test_pytorch_script ("imagefolder.py");
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--python", python, "--script", script,
                                     "--script-args", images, "--workers", "1", "--batch-size", "8", "--batches",
                                     "10", "--diagnose", "--json", NULL);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_assert_true (json_parser_load_from_data (p, r.out, -1, NULL));
  ls_test_cli_clear (&r);
  JsonObject *d = member_object (json_node_get_object (json_parser_get_root (p)), "diagnose");
  static const char *const parts[] = { "prepared", "warm", "cold" };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_assert_cmpstr (json_object_get_string_member (member_object (d, parts[i]), "status"), ==, "done");
      g_assert_cmpint (json_object_get_int_member (member_object (d, parts[i]), "measured_batches"), >=, 8);
    }
  /* 96 images (and the dataset's own files beside them) */
  g_assert_cmpint (json_object_get_int_member (d, "files"), >=, 96);
  g_assert_nonnull (strstr (json_object_get_string_member (d, "files_note"), images));
  /* replayed: 2 batches kept, at most 2 more prefetched by the worker, of
   * the 10 the run takes (80 files without the replay) */
  gint64 seen = json_object_get_int_member (d, "files_seen");
  g_assert_cmpint (seen, >=, 16);
  g_assert_cmpint (seen, <=, 4 * 8);
}

/* The probe's list of files opened is untrusted: relative paths, what is
 * not a regular file, overlong lines are left out; the dataset is the
 * folder holding the rest, all of its files; files with nothing but the
 * root in common are taken as listed. */
static void
test_dataset_files_from_the_list (void)
{
  g_autofree char *root = g_build_filename (scratch, "listed", NULL);
  g_autofree char *a = g_build_filename (root, "a", "x.jpg", NULL), *b = g_build_filename (root, "b", "y.jpg", NULL);
  g_autofree char *c = g_build_filename (root, "b", "z.jpg", NULL);
  g_autofree char *dir_a = g_build_filename (root, "a", NULL), *dir_b = g_build_filename (root, "b", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir_a, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (dir_b, 0700), ==, 0);
  const char *made[] = { a, b, c };
  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    g_assert_true (g_file_set_contents (made[i], "x", 1, NULL));
  g_autofree char *fifo = g_build_filename (root, "a", "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *log = g_build_filename (scratch, "opened", NULL);
  g_autofree char *longline = g_strnfill (5000, 'x');
  g_autofree char *text = g_strdup_printf ("%s\n%s\nrelative/y.jpg\n%s\n/%s\n%s/nothing\n", a, b, fifo, longline, root);
  g_assert_true (g_file_set_contents (log, text, -1, NULL));
  char note[512];
  guint seen = 0;
  g_autoptr (GPtrArray) files = ls_target_dataset_files (log, 100, &seen, note, sizeof note);
  g_test_message ("%s", note);
  g_assert_cmpuint (seen, ==, 2);
  g_assert_cmpuint (files->len, ==, 3); /* z.jpg too, never listed; not the FIFO */
  g_assert_nonnull (strstr (note, root));
  g_autoptr (GPtrArray) capped = ls_target_dataset_files (log, 2, &seen, note, sizeof note);
  g_assert_cmpuint (capped->len, ==, 2); /* more than 2 under the folder: the listed ones */
  /* nothing in common but the root */
  g_autofree char *apart = g_strdup_printf ("%s\n/etc/hostname\n", a);
  g_assert_true (g_file_set_contents (log, apart, -1, NULL));
  g_autoptr (GPtrArray) listed = ls_target_dataset_files (log, 100, &seen, note, sizeof note);
  g_assert_cmpuint (listed->len, ==, 2);
  g_assert_nonnull (strstr (note, "root"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-script-answer-XXXXXX", NULL);
  python = ls_test_find_torch_python ();
  images = g_build_filename (scratch, "images", NULL);
  if (python)
    {
      ls_test_cli r = ls_test_loadscope ("make-dataset", "--format", "jpeg-dir", "--count", "96", "--size", "80x64",
                                         images, NULL);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
    }
  g_test_add_func ("/target/script/keeps-its-knobs", test_script_keeps_its_knobs);
  g_test_add_func ("/target/script/given-knobs-apply", test_given_knobs_apply);
  g_test_add_func ("/target/script/step-bound", test_step_bound_script);
  g_test_add_func ("/target/script/slow-getitem-named", test_slow_getitem_is_named);
  g_test_add_func ("/target/script/stages-chart", test_stages_chart_of_a_script);
  g_test_add_func ("/target/script/built-every-way", test_loaders_built_every_way);
  g_test_add_func ("/target/script/exits", test_script_that_exits);
  g_test_add_func ("/target/script/diagnose", test_diagnose_a_script);
  g_test_add_func ("/target/script/dataset-files", test_dataset_files_from_the_list);
  g_test_add_func ("/target/script/tune", test_tune_a_script);
  g_test_add_func ("/target/script/copies-to-the-device", test_copies_to_the_device);
  int status = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  g_free (python);
  g_free (images);
  return status;
}
