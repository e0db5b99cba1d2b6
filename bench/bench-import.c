/* Import benchmarks, each `loadscope import` a process of its own, its peak
 * memory (wait4's ru_maxrss) and wall time read when it ends:
 *
 *   1. a JSON export of SIZE MB (default 300): one run of a recorded
 *      three-batch run's fields with as many batches as make SIZE MB (the
 *      worst case: one record holding nearly all of the file); goal: peak
 *      <= 3x the file (or 300 MB, whichever is larger);
 *   2. a sqlite bundle of RUNS runs (default 100,000), each a copy of the
 *      recorded run with its batches, made in SQL; goal: under a minute.
 *
 *   bench-import LOADSCOPE [SIZE_MB] [RUNS]    (Linux: wait4) */
#define _DEFAULT_SOURCE /* wait4 */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

static const char *exe;
static char *dir;

/* Runs loadscope with args; its exit status, peak RSS (KiB) and seconds. */
static double cpu_s; /* the last command's user + system time */

static int
loadscope (const char *const *args, long *maxrss_kb, double *seconds)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) exe);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  GPid pid;
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  if (!g_spawn_async (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                      NULL, &pid, &error))
    g_error ("bench-import: %s", error->message);
  int status = 0;
  struct rusage ru;
  if (wait4 (pid, &status, 0, &ru) != pid)
    g_error ("bench-import: wait4 failed");
  if (seconds)
    *seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (maxrss_kb)
    *maxrss_kb = ru.ru_maxrss;
  cpu_s = (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static char *
in_dir (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static char *
to_text (JsonNode *n)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, n);
  return json_generator_to_data (gen, NULL);
}

/* export.json's one run with as many copies of its first batch (seq and
 * batch numbered on) as make size_mb: written as text, never as a tree. */
static gsize
write_big_json (const char *one, const char *out, guint64 size_mb)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_file (parser, one, &error))
    g_error ("bench-import: %s", error->message);
  JsonObject *top = json_node_get_object (json_parser_get_root (parser));
  JsonObject *run = json_array_get_object_element (json_object_get_array_member (top, "runs"), 0);
  JsonObject *batch = json_array_get_object_element (json_object_get_array_member (run, "batches"), 0);
  json_object_set_int_member (batch, "seq", 123456789);
  json_object_set_int_member (batch, "batch", 987654321);
  g_autoptr (JsonNode) batch_node = json_node_init_object (json_node_alloc (), batch);
  g_autofree char *batch_text = to_text (batch_node);
  char *seq_at = strstr (batch_text, "123456789"), *batch_at = strstr (batch_text, "987654321");
  g_assert (seq_at && batch_at && seq_at < batch_at);
  g_autofree char *head_part = g_strndup (batch_text, (gsize) (seq_at - batch_text));
  g_autofree char *mid_part = g_strndup (seq_at + 9, (gsize) (batch_at - seq_at - 9));
  const char *tail_part = batch_at + 9;

  guint64 rows = size_mb * 1000000 / (strlen (batch_text) + 1);
  json_object_set_int_member (run, "max_batches", (gint64) rows);
  json_object_remove_member (run, "batches");
  json_object_set_array_member (run, "batches", json_array_new ());
  g_autoptr (JsonNode) top_node = json_node_init_object (json_node_alloc (), top);
  g_autofree char *top_text = to_text (top_node);
  /* the run's empty batches: "batches":[] is where the rows go */
  char *slot = strstr (top_text, "\"batches\":[]");
  g_assert (slot);
  slot += strlen ("\"batches\":[");
  FILE *f = g_fopen (out, "wb");
  fwrite (top_text, 1, (size_t) (slot - top_text), f);
  for (guint64 i = 0; i < rows; i++)
    fprintf (f, "%s%s%" G_GUINT64_FORMAT "%s%" G_GUINT64_FORMAT "%s", i ? "," : "", head_part, i, mid_part, i,
             tail_part);
  fputs (slot, f);
  long size = ftell (f);
  fclose (f);
  return (gsize) size;
}

static void
sql (sqlite3 *db, const char *text)
{
  char *msg = NULL;
  if (sqlite3_exec (db, text, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("bench-import: %s: %s", text, msg);
}

/* The columns of table, "a, b, c", with `instead` for those named in from. */
static char *
columns (sqlite3 *db, const char *table, const char *const *from, const char *const *instead)
{
  g_autofree char *q = g_strdup_printf ("PRAGMA table_info (%s)", table);
  sqlite3_stmt *st = NULL;
  GString *cols = g_string_new (NULL), *vals = g_string_new (NULL);
  sqlite3_prepare_v2 (db, q, -1, &st, NULL);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (st, 1);
      const char *v = NULL;
      for (guint i = 0; from[i]; i++)
        if (strcmp (from[i], name) == 0)
          v = instead[i];
      g_string_append_printf (cols, "%s\"%s\"", cols->len ? ", " : "", name);
      g_string_append_printf (vals, "%s%s", vals->len ? ", " : "", v ? v : g_strdup_printf ("t.\"%s\"", name));
    }
  sqlite3_finalize (st);
  g_autofree char *c = g_string_free (cols, FALSE), *v = g_string_free (vals, FALSE);
  return g_strdup_printf ("(%s) SELECT %s", c, v);
}

/* The bundle's one run copied to n runs (uuids numbered), each with the
 * first run's batches. */
static void
grow_bundle (const char *bundle, guint n)
{
  sqlite3 *db = NULL;
  if (sqlite3_open (bundle, &db) != SQLITE_OK)
    g_error ("bench-import: cannot open %s", bundle);
  sql (db, "BEGIN");
  static const char *const run_from[] = { "id", "uuid", NULL };
  static const char *const run_to[] = { "NULL", "printf ('%08x-0000-4000-8000-%012x', 7, c.i)", NULL };
  g_autofree char *run_cols = columns (db, "run", run_from, run_to);
  g_autofree char *runs = g_strdup_printf ("INSERT INTO run %s FROM run AS t, (WITH RECURSIVE k(i) AS (SELECT 1 UNION "
                                           "ALL SELECT i + 1 FROM k WHERE i < %u) SELECT i FROM k) AS c WHERE t.id = 1",
                                           run_cols, n - 1);
  sql (db, runs);
  static const char *const batch_from[] = { "run_id", NULL };
  static const char *const batch_to[] = { "r.id", NULL };
  g_autofree char *batch_cols = columns (db, "batch", batch_from, batch_to);
  g_autofree char *batches
      = g_strdup_printf ("INSERT INTO batch %s FROM batch AS t, run AS r WHERE t.run_id = 1 AND r.id != 1", batch_cols);
  sql (db, batches);
  sql (db, "COMMIT");
  sqlite3_close (db);
}

int
main (int argc, char **argv)
{
  exe = argc > 1 ? argv[1] : g_getenv ("LOADSCOPE");
  guint64 size_mb = argc > 2 ? g_ascii_strtoull (argv[2], NULL, 10) : 300;
  guint runs = argc > 3 ? (guint) g_ascii_strtoull (argv[3], NULL, 10) : 100000;
  if (!exe || size_mb == 0 || runs < 2)
    {
      fprintf (stderr, "usage: bench-import LOADSCOPE [SIZE_MB] [RUNS]\n");
      return 2;
    }
  dir = g_dir_make_tmp ("ls-bench-import-XXXXXX", NULL);
  g_autofree char *src = in_dir ("src.sqlite"), *one = in_dir ("one.json"), *big = in_dir ("big.json");
  g_autofree char *bundle = in_dir ("bundle.sqlite");
  const char *run_args[] = { "run", "--dataset", "synthetic", "--count", "32", "--size", "16x16", "--batches", "3",
                             "--sink", "sim", "--model-ms", "1", "--db", src, NULL };
  const char *export_args[] = { "export", "--all", "--format", "json", "-o", one, "--db", src, NULL };
  const char *bundle_args[] = { "export", "--all", "--format", "sqlite", "-o", bundle, "--db", src, NULL };
  if (loadscope (run_args, NULL, NULL) != 0 || loadscope (export_args, NULL, NULL) != 0
      || loadscope (bundle_args, NULL, NULL) != 0)
    g_error ("bench-import: recording the run to copy failed");

  /* 1. streaming JSON: peak memory against the file */
  gsize bytes = write_big_json (one, big, size_mb);
  g_autofree char *db1 = in_dir ("json.sqlite");
  const char *import_json[] = { "import", big, "--db", db1, NULL };
  long kb = 0;
  double s = 0;
  int rc = loadscope (import_json, &kb, &s);
  double budget = MAX (3.0 * (double) bytes, 300e6);
  printf ("json import: %.1f MB file (one run, its batches), exit %d, %.1f s (CPU %.1f s), peak %.1f MB = %.2fx the file "
          "(goal <= 3x or 300 MB: %s)\n",
          (double) bytes / 1e6, rc, s, cpu_s, (double) kb * 1024 / 1e6, (double) kb * 1024 / (double) bytes,
          rc == 0 && (double) kb * 1024 <= budget ? "met" : "NOT met");
  g_unlink (big);

  /* 2. a bundle of many runs: time */
  grow_bundle (bundle, runs);
  GStatBuf st;
  g_stat (bundle, &st);
  g_autofree char *db2 = in_dir ("bundle-dst.sqlite");
  const char *import_bundle[] = { "import", bundle, "--db", db2, NULL };
  rc = loadscope (import_bundle, &kb, &s);
  printf ("bundle import: %u runs (%.1f MB), exit %d, %.1f s, CPU %.1f s (%.3f ms a run; goal under 60 s: %s), "
          "peak %.1f MB\n",
          runs, (double) st.st_size / 1e6, rc, s, cpu_s, cpu_s * 1e3 / runs,
          rc == 0 && s < 60 ? "met" : "NOT met (wall time; the CPU time says what an idle machine would take)",
          (double) kb * 1024 / 1e6);

  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
  if (system (rm) != 0)
    fprintf (stderr, "bench-import: %s is left\n", dir);
  return 0;
}
