/* Every input the fuzzers of tests/fuzz/ found a bug with (tests/fuzz/
 * regress/, named after the harness: jpeg-, json-import-, bundle-import-,
 * events-, hdf5-), fed to the product code in the normal suite: each must
 * end as a result or a clear error, never a crash or a hang. Plus the
 * inputs too large to keep as files (100,000 levels of nesting). */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <hdf5.h>

#include "app/core/run-events.h"
#include "app/store/import.h"
#include "loader/dataset.h"
#include "loader/image-sample.h"
#include "test-util.h"

static char *regress_dir;
static char *scratch;

static char *
read_input (const char *name, gsize *len)
{
  g_autofree char *path = g_build_filename (regress_dir, name, NULL);
  char *data = NULL;
  g_assert_true (g_file_get_contents (path, &data, len, NULL));
  return data;
}

static void
check_jpeg (const char *name)
{
  gsize len;
  g_autofree char *data = read_input (name, &len);
  ls_image_pipeline p;
  ls_error err = { 0 };
  static float out[3 * 24 * 24];
  g_assert_cmpint (ls_image_pipeline_init (&p, 1, 24, LS_OUTPUT_F32_CHW, 2000000, &err), ==, LS_OK);
  if (ls_image_sample_jpeg (&p, (const uint8_t *) data, len, 0, 0, out, &err) != LS_OK)
    g_assert_cmpstr (err.message, !=, "");
  ls_image_pipeline_clear (&p);
}

static void
check_import (const char *name)
{
  g_autofree char *path = g_build_filename (regress_dir, name, NULL);
  g_autofree char *db = g_build_filename (scratch, name, NULL);
  g_autoptr (GError) error = NULL;
  ls_import_counts counts;
  ls_store *store = ls_store_open (db, &error);
  g_assert_no_error (error);
  if (!ls_import_file (store, path, &counts, &error))
    {
      g_test_message ("%s: %s", name, error->message);
      g_assert_nonnull (strstr (error->message, name));
    }
  ls_store_close (store);
}

/* Lines as the sweep session takes them: an event has a string "event". */
static void
check_event_lines (const char *text, gsize len)
{
  gsize start = 0;
  while (start < len)
    {
      const char *nl = memchr (text + start, '\n', len - start);
      gsize end = nl ? (gsize) (nl - text) : len;
      g_autofree char *line = g_strndup (text + start, end - start);
      g_autoptr (JsonObject) ev = ls_run_events_parse_line (line, end - start);
      if (ev)
        g_assert_nonnull (json_object_get_string_member_with_default (ev, "event", NULL));
      start = end + 1;
    }
}

static void
check_events (const char *name)
{
  gsize len;
  g_autofree char *data = read_input (name, &len);
  check_event_lines (data, len);
}

/* An HDF5 file the open survives but whose rows hang (or crash) libhdf5:
 * a run over it with a worker ends with the pool's error, in bounded
 * time (--timeout). */
static void
check_hdf5_run (const char *path, const char *expect)
{
  const char *argv[] = { g_getenv ("LOADSCOPE"), "run", "--dataset", path, "--workers", "1", "--batches", "1",
                         "--batch-size", "1", "--sink", "none", "--no-db", "--timeout", "3", NULL };
  g_autofree char *out = NULL, *err_text = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err_text, &status,
                               &error));
  g_test_message ("%s%s", out, err_text);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_autofree char *all = g_strconcat (out, err_text, NULL);
  g_assert_nonnull (strstr (all, expect));
}

static void
check_hdf5 (const char *name)
{
  g_autofree char *path = g_build_filename (regress_dir, name, NULL);
  ls_dataset_spec spec = { 0 };
  ls_dataset *ds = NULL;
  ls_error err = { 0 };

  g_strlcpy (spec.kind, "hdf5", sizeof spec.kind);
  g_strlcpy (spec.path, path, sizeof spec.path);
  spec.width = spec.height = 16;
  spec.seed = 1;
  if (ls_dataset_open (&spec, &ds, &err) != LS_OK)
    {
      g_test_message ("%s", err.message);
      g_assert_nonnull (strstr (err.message, path));
      return;
    }
  ls_dataset_close (ds);
  if (strstr (name, "read-hang"))
    check_hdf5_run (path, "timed out");
  else if (strstr (name, "read-crash"))
    check_hdf5_run (path, "worker");
}

static void
test_input (gconstpointer data)
{
  const char *name = data;
  if (g_str_has_prefix (name, "jpeg-"))
    check_jpeg (name);
  else if (g_str_has_prefix (name, "json-import-") || g_str_has_prefix (name, "bundle-import-"))
    check_import (name);
  else if (g_str_has_prefix (name, "events-"))
    check_events (name);
  else if (g_str_has_prefix (name, "hdf5-"))
    check_hdf5 (name);
  else
    g_error ("tests/fuzz/regress/%s: name it after its harness (jpeg-, json-import-, bundle-import-, events-, "
             "hdf5-)",
             name);
}

/* 100,000 levels overflowed json-glib's recursive parser (SIGSEGV) in
 * the sweep session's reading of its runner's lines. */
static void
test_deep_event_line (void)
{
  g_autoptr (GString) line = g_string_new ("{\"event\":\"batch\",\"a\":");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (line, '[');
  g_assert_null (ls_run_events_parse_line (line->str, line->len));
  check_event_lines (line->str, line->len);
  /* At the bound it still parses. */
  g_autoptr (GString) ok = g_string_new ("{\"event\":\"finished\",\"summary\":{\"verdict\":{\"a\":");
  for (int i = 3; i < LS_RUN_EVENTS_MAX_DEPTH; i++)
    g_string_append_c (ok, '[');
  for (int i = 3; i < LS_RUN_EVENTS_MAX_DEPTH; i++)
    g_string_append_c (ok, ']');
  g_string_append (ok, "}}}");
  g_autoptr (JsonObject) ev = ls_run_events_parse_line (ok->str, ok->len);
  g_assert_nonnull (ev);
}

/* Members of other types than the runner writes are not events: the
 * readers' typed getters would give NULL ("event": 1 crashed strcmp). */
static void
test_event_member_types (void)
{
  const char *refused[] = {
    "{\"event\":1}",
    "{\"event\":null}",
    "{\"event\":{}}",
    "{\"seq\":1}",
    "{\"event\":\"error\",\"message\":5}",
    "{\"event\":\"started\",\"sink\":[\"sim\"]}",
    "{\"event\":\"batch\",\"seq\":{\"a\":1}}",
    "{\"event\":\"finished\",\"summary\":[]}",
    "{\"event\":\"workers\",\"pids\":7}",
    "{\"event\":\"finished\",\"summary\":{\"status\":1}}",
    "{\"event\":\"finished\",\"summary\":{\"batch_wait_ms\":{\"p50\":[]}}}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    g_assert_null (ls_run_events_parse_line (refused[i], strlen (refused[i])));
  const char *taken = "{\"event\":\"started\",\"sink\":\"sim\",\"sink_note\":null,\"planned_batches\":3}";
  g_autoptr (JsonObject) ev = ls_run_events_parse_line (taken, strlen (taken));
  g_assert_nonnull (ev);
  /* A run that saw NVML (a GPU) and a --target pytorch run. */
  const char *finished = "{\"event\":\"finished\",\"summary\":{\"status\":\"done\",\"nvml\":{\"device\":\"GPU\","
                         "\"driver\":\"1\",\"samples\":3,\"peak_mem_used_bytes\":9},\"target\":{\"loader\":{\"a\":[1]}},"
                         "\"verdict\":{\"findings\":[]},\"worker_pids\":[1,2]}}";
  g_autoptr (JsonObject) done = ls_run_events_parse_line (finished, strlen (finished));
  g_assert_nonnull (done);
}

/* A file whose labels pass through tests/hdf5-crash-filter.c, which
 * crashes with LS_TEST_FILTER_CRASH set: inside libhdf5, while the open
 * reads the labels. The open (in a child process first) says so, naming
 * the file; this process lives on. */
#define CRASH_FILTER_ID 32100

static void
test_hdf5_crash_in_open (void)
{
  g_autofree char *path = g_build_filename (scratch, "crashes-libhdf5.h5", NULL);
  hsize_t dims[4] = { 2, 4, 4, 3 }, ldims[1] = { 2 }, chunk[1] = { 2 };
  static uint8_t pixels[2 * 4 * 4 * 3];
  int32_t labels[2] = { 0, 1 };

  if (!H5Zfilter_avail (CRASH_FILTER_ID))
    {
      g_test_skip ("tests/hdf5-crash-filter is not on HDF5_PLUGIN_PATH");
      return;
    }
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple (4, dims, NULL);
  hid_t d = H5Dcreate2 (file, "images", H5T_NATIVE_UINT8, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, pixels), >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 1, chunk);
  g_assert_cmpint (H5Pset_filter (dcpl, CRASH_FILTER_ID, H5Z_FLAG_MANDATORY, 0, NULL), >=, 0);
  space = H5Screate_simple (1, ldims, NULL);
  d = H5Dcreate2 (file, "labels", H5T_NATIVE_INT32, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels), >=, 0);
  H5Dclose (d);
  H5Sclose (space);
  H5Pclose (dcpl);
  H5Fclose (file);

  ls_dataset_spec spec = { 0 };
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  g_strlcpy (spec.kind, "hdf5", sizeof spec.kind);
  g_strlcpy (spec.path, path, sizeof spec.path);
  spec.width = spec.height = 16;
  /* Passing through, the file opens. */
  g_assert_cmpint (ls_dataset_open (&spec, &ds, &err), ==, LS_OK);
  ls_dataset_close (ds);

  g_setenv ("LS_TEST_FILTER_CRASH", "1", TRUE);
  int rc = ls_dataset_open (&spec, &ds, &err);
  g_unsetenv ("LS_TEST_FILTER_CRASH");
  g_test_message ("%s", err.message);
  g_assert_cmpint (rc, ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, "crashed libhdf5"));
  g_assert_nonnull (strstr (err.message, "SIGSEGV"));
}

/* The lines a real run wrote (the events seed corpus) are all events: the
 * parser's type rules match what the runner writes. */
static void
test_real_event_lines (void)
{
  g_autofree char *path = g_build_filename (regress_dir, "..", "corpus", "events", "seed-run.jsonl", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      {
        g_autoptr (JsonObject) ev = ls_run_events_parse_line (lines[i], strlen (lines[i]));
        g_assert_nonnull (ev);
        n++;
      }
  g_assert_cmpuint (n, >=, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  regress_dir = g_build_filename (g_getenv ("LS_TEST_DATA"), "..", "fuzz", "regress", NULL);
  scratch = g_dir_make_tmp ("loadscope-fuzz-regress-XXXXXX", NULL);
  g_assert_nonnull (scratch);

  g_test_add_func ("/fuzz-regress/events/deep-line", test_deep_event_line);
  g_test_add_func ("/fuzz-regress/events/member-types", test_event_member_types);
  g_test_add_func ("/fuzz-regress/events/real-lines", test_real_event_lines);
  g_test_add_func ("/fuzz-regress/hdf5/crash-in-open", test_hdf5_crash_in_open);
  GDir *dir = g_dir_open (regress_dir, 0, NULL);
  g_assert_nonnull (dir);
  const char *name;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)))
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *test = g_strdup_printf ("/fuzz-regress/input/%s", (char *) names->pdata[i]);
      g_test_add_data_func (test, names->pdata[i], test_input);
    }
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (scratch);
  g_free (scratch);
  g_free (regress_dir);
  return rc;
}
