/* --target pytorch end to end with Debian's PyTorch (CPU): a sweep over an
 * unmodified ImageFolder script records a run per configuration with its
 * own worker pids, per-batch waits and per-process memory, and the
 * DataLoader each run iterated had the configured knobs (the script says
 * what it saw); each failure of a script is a clear error. Skipped, saying
 * so, where no interpreter here imports torch. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "test-cli-util.h"
#include "test-pytorch-util.h"
#include "test-sql.h"
#include "test-util.h"

static char *scratch, *dataset, *python, *scripts;

static char *
script (const char *name)
{
  return g_build_filename (scripts, name, NULL);
}

static gboolean
need_torch (void)
{
  if (python)
    return TRUE;
  g_test_skip ("no interpreter here imports torch and torchvision (install python3-torch python3-torchvision)");
  return FALSE;
}

/* How many runs `history --target T [--limit N] --json` lists. */
static int
history_count (const char *db, const char *target, const char *limit)
{
  ls_test_cli r = ls_test_loadscope ("history", "--db", db, "--json", target ? "--target" : NULL, target, limit ? "--limit" : NULL,
                        limit, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  int n = (int) json_array_get_length (json_node_get_array (json_parser_get_root (parser)));
  ls_test_cli_clear (&r);
  return n;
}

/* history --target without torch: a loader run is listed under loadscope
 * only; an unknown target is bad usage, named. */
static void
test_history_target (void)
{
  g_autofree char *db = g_build_filename (scratch, "history.sqlite", NULL);
  ls_test_cli r = ls_test_loadscope ("run", "--dataset", "synthetic", "--batches", "3", "--sink", "none", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (history_count (db, "loadscope", NULL), ==, 1);
  g_assert_cmpint (history_count (db, "PyTorch", NULL), ==, 0);
  r = ls_test_loadscope ("history", "--db", db, "--target", "pytorch", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "no runs recorded in"));
  g_assert_nonnull (strstr (r.out, "with target pytorch"));
  ls_test_cli_clear (&r);
  /* The side-by-side chart with one target only still draws (its note says what is missing). */
  g_autofree char *png = g_build_filename (scratch, "target-loader-only.png", NULL);
  r = ls_test_loadscope ("export", "--db", db, "--all", "--chart", "target", "--format", "png", "-o", png, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  ls_test_cli_clear (&r);
  r = ls_test_loadscope ("history", "--db", db, "--target", "tensorflow", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--target tensorflow: expected loadscope or pytorch"));
  ls_test_cli_clear (&r);
}

static void
test_sweep_over_imagefolder (void)
{
  if (!need_torch ())
    return;
  g_autofree char *db = g_build_filename (scratch, "sweep.sqlite", NULL);
  g_autofree char *seen = g_build_filename (scratch, "seen", NULL);
  g_autofree char *s = script ("imagefolder.py");
  g_autofree char *args = g_strdup_printf ("%s --seen %s", dataset, seen);
  g_assert_cmpint (g_mkdir_with_parents (seen, 0700), ==, 0);

  ls_test_cli r = ls_test_loadscope ("sweep", "--target", "pytorch", "--script", s, "--python", python, "--script-args", args,
                        "--workers", "0,1,2", "--pin", "off,staging", "--batch-size", "8", "--batches", "6",
                        "--db", db, NULL);
  g_test_message ("%s\n%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);

  /* Six runs, done, each with its own workers and the figures. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE status = 'done'"), ==, 6);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(DISTINCT pid) FROM worker"), ==,
                   ls_test_sql_int (db, "SELECT count(*) FROM worker"));
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM worker"), ==, 2 * (1 + 2)); /* per pin mode */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run r WHERE (SELECT count(*) FROM batch b "
                                        "WHERE b.run_id = r.id AND b.wait_ms >= 0) < 6"), ==, 0);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE pss_peak_bytes > 0 OR "
                                        "private_peak_bytes > 0"), ==, 6);
  /* What the probe cannot see is unknown (null), never 0: the copy per
   * batch (the script's own .to()), the loader's four stages (a script's
   * are its own), the bytes of a sample and a batch. What it times inside
   * the script's DataLoader, each batch's fetch (busy), is there. */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch WHERE copy_ms IS NOT NULL OR stage_ms IS NOT NULL "
                                        "OR read_ms IS NOT NULL OR decode_ms IS NOT NULL OR transform_ms IS NOT NULL "
                                        "OR write_ms IS NOT NULL"), ==, 0);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch WHERE busy_ms > 0"), >=, 6 * 6);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch WHERE compute_ms IS NULL"), ==, 0);
  /* each batch's stages inside the DataLoader, in workers (fork) and at
   * 0 workers alike; __getitem__ of 8 samples and collate_fn take time */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch WHERE getitem_ms > 0 AND collate_ms > 0 "
                                        "AND sampler_ms >= 0 AND handoff_ms >= 0"), >=, 6 * 6);
  /* where each was built, for the timeline's lanes: by one of its run's
   * workers (the training loop's own process, -1, at 0 workers), ending
   * before the loop had it; at 2 workers both built some */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM batch b JOIN run r ON r.id = b.run_id WHERE "
                                        "((r.workers = 0 AND b.worker = -1) OR (b.worker >= 0 AND b.worker < r.workers)) "
                                        "AND b.build_start_ms <= b.build_end_ms AND b.build_end_ms <= b.ready_ms"),
                   >=, 6 * 6);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run r WHERE r.workers = 2 AND (SELECT count(DISTINCT "
                                        "worker) FROM batch b WHERE b.run_id = r.id) = 2"),
                   ==, 2);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE stage_read_ms IS NOT NULL OR "
                                        "stage_busy_ms IS NOT NULL"), ==, 0);
  /* the script's own stages (the probe's), not the loader's */
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM run WHERE json_type(summary, '$.stages_ms.getitem') = "
                                        "'real' AND json_type(summary, '$.stages_ms.read') IS NULL "
                                        "AND json_type(summary, '$.copy_ms') = 'null' AND "
                                        "json_type(summary, '$.sample_bytes') = 'null' AND "
                                        "json_type(summary, '$.batch_bytes') = 'null'"), ==, 6);

  /* What each run's DataLoader iterated with, as the script saw it. */
  g_autoptr (GDir) dir = g_dir_open (seen, 0, NULL);
  int n = 0, by_workers[3] = { 0 }, pinned = 0;
  for (const char *name; (name = g_dir_read_name (dir)); n++)
    {
      g_autofree char *path = g_build_filename (seen, name, NULL);
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_file (parser, path, NULL));
      JsonObject *o = json_node_get_object (json_parser_get_root (parser));
      gint64 w = json_object_get_int_member (o, "num_workers");
      g_assert_cmpint (w, >=, 0);
      g_assert_cmpint (w, <=, 2);
      by_workers[w]++;
      g_assert_cmpint (json_object_get_int_member (o, "batch_size"), ==, 8);
      pinned += json_object_get_boolean_member (o, "pin_memory");
      /* no --start: the script's own start method stays (it names none) */
      if (w > 0)
        g_assert_true (json_object_get_null_member (o, "start"));
    }
  g_assert_cmpint (n, ==, 6);
  for (int w = 0; w < 3; w++)
    g_assert_cmpint (by_workers[w], ==, 2);
  g_assert_cmpint (pinned, ==, 3);

  /* history --target: the six script runs, not a loader run beside them;
   * --limit counts the runs shown. */
  r = ls_test_loadscope ("run", "--dataset", "synthetic", "--batches", "3", "--sink", "none", "--db", db, NULL);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (history_count (db, "pytorch", NULL), ==, 6);
  g_assert_cmpint (history_count (db, "pytorch", "2"), ==, 2);
  g_assert_cmpint (history_count (db, "loadscope", NULL), ==, 1);
  g_assert_cmpint (history_count (db, NULL, NULL), ==, 7);

  /* Both targets side by side in one chart. */
  g_autofree char *png = g_build_filename (scratch, "target.png", NULL);
  r = ls_test_loadscope ("export", "--db", db, "--all", "--chart", "target", "--format", "png", "-o", png, NULL);
  g_test_message ("%s%s", r.out, r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "exported the chart (target) of all runs"));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  ls_test_cli_clear (&r);

  /* Script runs travel to another machine like the loader's: exported as
   * JSON and as SQLite, each imported into a fresh store, all seven. */
  const char *formats[] = { "json", "sqlite" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *bundle = g_strdup_printf ("%s/bundle.%s", scratch, formats[i]);
      g_autofree char *other = g_strdup_printf ("%s/other-%s.sqlite", scratch, formats[i]);
      r = ls_test_loadscope ("export", "--db", db, "--all", "--format", formats[i], "-o", bundle, "--force", NULL);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
      r = ls_test_loadscope ("import", "--db", other, bundle, NULL);
      g_test_message ("%s%s", r.out, r.err);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
      g_assert_cmpint (history_count (other, "pytorch", NULL), ==, 6);
      g_assert_cmpint (history_count (other, NULL, NULL), ==, 7);
    }
}

/* Whether PYTHON imports MODULE. */
static gboolean
imports (const char *module)
{
  g_autofree char *code = g_strdup_printf ("import %s", module);
  const char *argv[] = { python, "-c", code, NULL };
  int status = -1;
  return g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                       NULL, NULL, NULL, &status, NULL)
         && g_spawn_check_wait_status (status, NULL);
}

/* The other shapes of script the probe must handle unchanged: an HDF5
 * Dataset (h5py, opened in each worker), a worker_init_fn of the script's
 * own (still run, once per worker), two loaders (--loader 1 measures the
 * second, the first keeps its own knobs), and spawn on a script without a
 * __main__ guard (refused, saying why). */
static void
test_other_scripts (void)
{
  if (!need_torch ())
    return;
  ls_test_cli r;
  if (imports ("h5py"))
    {
      g_autofree char *h5 = g_build_filename (scratch, "images.h5", NULL);
      r = ls_test_loadscope ("make-dataset", "--format", "hdf5", "--count", "64", h5, NULL);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
      g_autofree char *s = script ("hdf5_dataset.py");
      r = ls_test_loadscope ("run", "--target", "pytorch", "--script", s, "--python", python, "--script-args", h5,
                     "--workers", "2", "--batch-size", "8", "--batches", "3", "--no-db", "--json", NULL);
      g_test_message ("hdf5_dataset.py: %s", r.err);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "\"status\" : \"done\""));
      ls_test_cli_clear (&r);
    }
  else
    g_test_message ("hdf5_dataset.py left out: %s does not import h5py (python3-h5py)", python);

  g_autofree char *inits = g_build_filename (scratch, "inits", NULL);
  g_assert_cmpint (g_mkdir_with_parents (inits, 0700), ==, 0);
  g_autofree char *wi = script ("worker_init.py");
  r = ls_test_loadscope ("run", "--target", "pytorch", "--script", wi, "--python", python, "--script-args", inits,
                 "--workers", "2", "--batches", "3", "--no-db", NULL);
  g_test_message ("worker_init.py: %s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  guint n_inits = 0;
  g_autoptr (GDir) dir = g_dir_open (inits, 0, NULL);
  while (g_dir_read_name (dir))
    n_inits++;
  g_assert_cmpuint (n_inits, ==, 2); /* the script's own worker_init_fn, in each of the 2 workers */

  g_autofree char *seen = g_build_filename (scratch, "two-loaders.json", NULL);
  g_autofree char *tl = script ("two_loaders.py");
  r = ls_test_loadscope ("run", "--target", "pytorch", "--script", tl, "--python", python, "--script-args", seen, "--loader",
                 "1", "--workers", "2", "--batch-size", "16", "--batches", "50", "--no-db", NULL);
  g_test_message ("two_loaders.py: %s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_autofree char *knobs = NULL;
  g_assert_true (g_file_get_contents (seen, &knobs, NULL, NULL));
  g_assert_cmpstr (knobs, ==, "{\"train\": [0, 8], \"val\": [2, 16]}");

  g_autofree char *ng = script ("no_guard.py");
  r = ls_test_loadscope ("run", "--target", "pytorch", "--script", ng, "--python", python, "--workers", "1", "--start",
                 "spawn", "--batches", "3", "--timeout", "20", "--no-db", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "no_guard.py has no `if __name__ == \"__main__\":` guard"));
  ls_test_cli_clear (&r);
}

/* On a CUDA device the runner reads NVML over the script's measured
 * batches, as for Loadscope's CUDA sink: here a fake NVML (utilization
 * 10..100 %) and the probe told to assume a device. */
static void
test_nvml_over_the_script (void)
{
  if (!need_torch ())
    return;
  const char *fake = g_getenv ("LS_FAKE_NVML");
  if (!fake)
    {
      g_test_skip ("LS_FAKE_NVML is not set: run with meson test");
      return;
    }
  g_setenv ("LOADSCOPE_NVML_LIBRARY", fake, TRUE);
  g_setenv ("LS_TEST_PROBE_ASSUME_CUDA", "1", TRUE);
  g_autofree char *s = script ("imagefolder.py");
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--script", s, "--python", python, "--script-args", dataset,
                        "--workers", "1", "--batch-size", "4", "--batches", "12", "--no-db", "--json", NULL);
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
  g_unsetenv ("LS_TEST_PROBE_ASSUME_CUDA");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "sink"), ==, "cuda");
  double util = json_object_get_double_member (o, "gpu_util_nvml");
  g_assert_cmpfloat (util, >=, 0.1);
  g_assert_cmpfloat (util, <=, 1.0);
  /* the copy to the device is null, and says why */
  g_assert_true (json_object_get_null_member (o, "copy_ms"));
  JsonObject *target = json_object_get_object_member (o, "target");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (target, "copy_note"), "not measured: "));
  ls_test_cli_clear (&r);
}

/* A script that fails in each way says so, naming the script. */
static void
test_script_failures (void)
{
  if (!need_torch ())
    return;
  /* A short --timeout never counts Python's start or torch's import (its
   * clock starts at the probe's line), nor a worker set's start up to its
   * first batch (a spawned worker imports torch again; here it also starts
   * 6 s late, as on a loaded machine): "hung" and "did not build" are the
   * script's, however slow the machine. */
  struct {
    const char *script, *timeout, *start, *env, *expect;
  } cases[] = {
    { "failing.py", "30", "fork", NULL, "raised ValueError" },
    { "hanging.py", "4", "fork", NULL, "hung: no batch for 4 s (--timeout) after 2 batches" },
    { "hanging.py", "4", "spawn", "LS_TEST_WORKER_START_S=6", "hung: no batch for 4 s (--timeout) after 2 batches" },
    { "no_loader.py", "4", "fork", NULL, "did not build a torch.utils.data.DataLoader within 4 s" },
    { "ignore_knobs.py", "30", "fork", NULL, "num_workers=0, Loadscope set 1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = script (cases[i].script);
      const char *env[] = { cases[i].env, NULL };
      const char *args[] = { "run", "--target", "pytorch", "--script", s, "--python", python, "--script-args", dataset,
                             "--workers", "1", "--batch-size", "8", "--batches", "6", "--timeout", cases[i].timeout,
                             "--start", cases[i].start, "--no-db", NULL };
      ls_test_cli r = ls_test_loadscope_env (env, args);
      g_test_message ("%s (%s): exit %d: %s", cases[i].script, cases[i].start, r.status, r.err);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, cases[i].script));
      g_assert_nonnull (strstr (r.err, cases[i].expect));
      ls_test_cli_clear (&r);
    }
}

/* An interpreter that cannot import torch is named as such: the same
 * Python without its site packages (where Debian's torch lives). */
static void
test_no_torch (void)
{
  if (!need_torch ())
    return;
  g_autofree char *bare = g_build_filename (scratch, "python-without-site", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\nexec %s -S \"$@\"\n", python);
  g_assert_true (g_file_set_contents (bare, text, -1, NULL));
  g_assert_cmpint (g_chmod (bare, 0755), ==, 0);
  g_autofree char *s = script ("imagefolder.py");
  ls_test_cli r = ls_test_loadscope ("run", "--target", "pytorch", "--script", s, "--python", bare, "--script-args", dataset,
                        "--batches", "2", "--no-db", NULL);
  g_test_message ("exit %d: %s", r.status, r.err);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "cannot import torch"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = g_dir_make_tmp ("ls-target-pytorch-XXXXXX", NULL);
  scripts = g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "pytorch", NULL);
  python = ls_test_find_torch_python ();
  dataset = g_build_filename (scratch, "images", NULL);
  if (python)
    {
      ls_test_cli r = ls_test_loadscope ("make-dataset", "--format", "jpeg-dir", "--count", "96", "--size", "80x64", dataset, NULL);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
    }
  g_test_add_func ("/target/pytorch/sweep-over-imagefolder", test_sweep_over_imagefolder);
  g_test_add_func ("/target/pytorch/script-failures", test_script_failures);
  g_test_add_func ("/target/pytorch/other-scripts", test_other_scripts);
  g_test_add_func ("/target/pytorch/nvml-over-the-script", test_nvml_over_the_script);
  g_test_add_func ("/target/pytorch/no-torch", test_no_torch);
  g_test_add_func ("/target/pytorch/history-target", test_history_target);
  int rc = g_test_run ();
  ls_test_remove_tree (scratch);
  return rc;
}
