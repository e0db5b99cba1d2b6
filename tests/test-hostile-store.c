/* The store and the CLI against hostile input and faults:
 * unbounded and deeply nested imports, float knobs at their extremes
 * through run -> export -> import, and what the earlier tests do not
 * cover. Each test runs `loadscope` as a user would. */
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/store/store.h"
#include "test-cli-util.h"
#include "test-util.h"

static char *tmp_dir;

/* As a shell says it: 128 + the signal for a killed one. */
static ls_test_cli
run_cliv (const char *const *args)
{
  ls_test_cli r = ls_test_loadscopev (args);
  if (r.signal)
    r.status = 128 + r.signal;
  return r;
}

#define run_cli(...) run_cliv ((const char *const[]){ __VA_ARGS__, NULL })

static char *
path_in (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
sql (const char *db, const char *text)
{
  sqlite3 *h = NULL;
  g_assert_cmpint (sqlite3_open (db, &h), ==, SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec (h, text, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    g_error ("%s: %s", text, msg);
  sqlite3_close (h);
}

static gint64
sql_int (const char *db, const char *text)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  gint64 v = -1;
  g_assert_cmpint (sqlite3_open_v2 (db, &h, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_busy_timeout (h, 10000); /* polled while a runner creates and writes it */
  g_assert_cmpint (sqlite3_prepare_v2 (h, text, -1, &st, NULL), ==, SQLITE_OK);
  if (sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (h);
  return v;
}

/* sql_int for a store a runner may still be creating: -1 until its
 * tables are there (the file appears before its schema). */
static gint64
sql_int_polled (const char *db, const char *text)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  gint64 v = -1;
  if (sqlite3_open_v2 (db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
    {
      sqlite3_busy_timeout (h, 10000);
      if (sqlite3_prepare_v2 (h, text, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
        v = sqlite3_column_int64 (st, 0);
      sqlite3_finalize (st);
    }
  sqlite3_close (h);
  return v;
}

/* A store with one small run. */
static char *
store_with_run (const char *name)
{
  char *db = path_in (name);
  ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--count", "32", "--size", "16x16", "--batches", "3",
                          "--sink", "sim", "--model-ms", "1", "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  return db;
}

static guint
import_dirs_of (const char *prefix)
{
  g_autoptr (GDir) d = g_dir_open (g_get_tmp_dir (), 0, NULL);
  const char *name;
  guint n = 0;
  while (d && (name = g_dir_read_name (d)))
    n += g_str_has_prefix (name, prefix);
  return n;
}

/* ------------------------------------------------------------ imports */

static void
test_import_is_capped (void)
{
  /* /dev/zero is neither JSON nor SQLite from its first byte:
   * refused before more is read (test-hostile-import measures how much). */
  g_autofree char *db = path_in ("cap.sqlite");
  ls_test_cli r = run_cli ("import", "/dev/zero", "--db", db);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "neither an SQLite bundle nor JSON"));
  ls_test_cli_clear (&r);

  /* What looks like JSON is read up to the cap: a sparse file of "[" and
   * zeros, one byte over 1 GiB. */
  g_autofree char *big = path_in ("big.json");
  int fd = open (big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "[", 1), ==, 1);
  g_assert_cmpint (ftruncate (fd, ((off_t) 1 << 30) + 1), ==, 0);
  close (fd);
  r = run_cli ("import", big, "--db", db);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "MiB an import reads"));
  ls_test_cli_clear (&r);
  g_unlink (big);
}

static void
test_deep_json_is_refused (void)
{
  g_autofree char *db = path_in ("deep.sqlite");
  g_autofree char *file = path_in ("deep.json");
  GString *text = g_string_new (NULL);
  for (int i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  for (int i = 0; i < 100000; i++)
    g_string_append_c (text, ']');
  g_assert_true (g_file_set_contents (file, text->str, (gssize) text->len, NULL));
  g_string_free (text, TRUE);
  ls_test_cli r = run_cli ("import", file, "--db", db);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "nested more than 64 levels"));
  ls_test_cli_clear (&r);
}

static void
test_deep_summary_in_bundle (void)
{
  g_autofree char *src = store_with_run ("deep-src.sqlite");
  g_autofree char *bundle = path_in ("deep-bundle.sqlite");
  g_autofree char *dst = path_in ("deep-dst.sqlite");
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  GString *q = g_string_new ("UPDATE run SET summary = '{\"a\":");
  for (int i = 0; i < 100000; i++)
    g_string_append_c (q, '[');
  for (int i = 0; i < 100000; i++)
    g_string_append_c (q, ']');
  g_string_append (q, "}'");
  sql (bundle, q->str);
  g_string_free (q, TRUE);

  /* A temporary folder an import left when it was killed: removed by the next one. */
  g_autofree char *stale = g_build_filename (g_get_tmp_dir (), "loadscope-import-2147483600-test17", NULL);
  g_autofree char *stale_file = g_build_filename (stale, "bundle.sqlite", NULL);
  g_assert_cmpint (g_mkdir_with_parents (stale, 0700), ==, 0);
  g_assert_true (g_file_set_contents (stale_file, "x", 1, NULL));

  r = run_cli ("import", bundle, "--db", dst);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "summary"));
  ls_test_cli_clear (&r);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (import_dirs_of ("loadscope-import-"), ==, 0);
}

/* ------------------------------------------------------------ float knobs */

static void
test_float_knobs_refuse_nan_and_inf (void)
{
  static const char *const knobs[] = { "--model-ms", "--timeout", "--pixel-limit", "--sim-bandwidth-pageable",
                                       "--sim-bandwidth-pinned" };
  static const char *const bad[] = { "nan", "inf", "-inf", "1e300", "-1" };
  g_autofree char *db = path_in ("floats.sqlite");
  for (guint k = 0; k < G_N_ELEMENTS (knobs); k++)
    for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
      {
        ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--count", "8", "--size", "16x16", "--batches", "1",
                                "--sink", "sim", "--db", db, knobs[k], bad[b]);
        if (r.status != 2)
          g_error ("%s %s: exit %d (%s)", knobs[k], bad[b], r.status, r.err);
        g_assert_nonnull (strstr (r.err, knobs[k]));
        ls_test_cli_clear (&r);
      }
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS) && sql_int (db, "SELECT count(*) FROM run") != 0);
}

/* Whatever run records, export -> import takes back: every knob at its extremes. */
static void
test_knob_extremes_round_trip (void)
{
  static const char *const extremes[][4] = {
    { "--timeout", "0" }, { "--timeout", "10000000" }, { "--timeout", "1e-300" },
    { "--model-ms", "0" }, { "--model-ms", "1e-300" },
    { "--pixel-limit", "100000" }, { "--pixel-limit", "1e-300" },
    { "--sim-bandwidth-pageable", "0.01" }, { "--sim-bandwidth-pinned", "10000", "--pin", "staging" },
    { "--seed", "0" }, { "--seed", "9223372036854775807" },
    { "--batch-size", "1", "--warmup", "2147483647" }, { "--prefetch", "64", "--workers", "1" },
    { "--crop", "4096", "--output", "u8-hwc" }, { "--crop", "1" },
  };
  g_autofree char *db = path_in ("extremes.sqlite");
  g_autofree char *json = path_in ("extremes.json");
  g_autofree char *bundle = path_in ("extremes-bundle.sqlite");
  g_autofree char *to_json = path_in ("extremes-from-json.sqlite");
  g_autofree char *to_bundle = path_in ("extremes-from-bundle.sqlite");
  for (guint i = 0; i < G_N_ELEMENTS (extremes); i++)
    {
      const char *const *e = extremes[i];
      ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--count", "16", "--size", "16x16", "--batches", "2",
                              "--sink", "sim", "--model-ms", "1", "--db", db, e[0], e[1], e[2] ? e[2] : "--shuffle",
                              e[2] ? e[3] : "on");
      if (r.status != 0)
        g_error ("%s %s: exit %d (%s)", e[0], e[1], r.status, r.err);
      ls_test_cli_clear (&r);
    }
  gint64 n = sql_int (db, "SELECT count(*) FROM run");
  g_assert_cmpint (n, ==, G_N_ELEMENTS (extremes));
  ls_test_cli r = run_cli ("export", "--all", "--format", "json", "-o", json, "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  r = run_cli ("import", json, "--db", to_json);
  if (r.status != 0)
    g_error ("import of the JSON export: %s", r.err);
  ls_test_cli_clear (&r);
  r = run_cli ("import", bundle, "--db", to_bundle);
  if (r.status != 0)
    g_error ("import of the bundle: %s", r.err);
  ls_test_cli_clear (&r);
  g_assert_cmpint (sql_int (to_json, "SELECT count(*) FROM run"), ==, n);
  g_assert_cmpint (sql_int (to_bundle, "SELECT count(*) FROM run"), ==, n);
  g_assert_cmpint (sql_int (to_json, "SELECT count(*) FROM run WHERE seed = 9223372036854775807"), ==, 1);
}

/* What the store would keep but import would refuse is refused up front,
 * naming the option: export -> import always round-trips. */
static void
test_options_past_the_store_are_refused (void)
{
  static const char *const past[][3] = {
    { "--batches", "2000000000000", "--batches 2000000000000: must be between 0 and 1099511627776" },
    { "--epochs", "1000001", "--epochs 1000001: must be between 1 and 1000000" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (past); i++)
    {
      ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--count", "16", "--size", "16x16", "--sink", "sim",
                              "--no-db", past[i][0], past[i][1]);
      g_test_message ("%s %s: exit %d: %s", past[i][0], past[i][1], r.status, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, past[i][2]));
      ls_test_cli_clear (&r);
    }
}

/* A bundle in which a table is a view over an endless recursive query,
 * or holds a trigger or a virtual table: import refuses it by name at
 * once (it spun until killed), and leaves no temporary copy. */
static void
test_bundle_objects_other_than_tables_are_refused (void)
{
  static const struct {
    const char *name, *sql, *expect;
  } rigged[] = {
#define ENDLESS(t)                                                                                                    \
  { "view-" t, "DROP TABLE " t "; CREATE VIEW " t " AS WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 " \
               "FROM c) SELECT id FROM c",                                                                             \
    "the view \"" t "\": a bundle holds only tables" }
    ENDLESS ("run"), ENDLESS ("batch"), ENDLESS ("sample"), ENDLESS ("worker"), ENDLESS ("sweep"), ENDLESS ("machine"),
#undef ENDLESS
    { "trigger", "CREATE TRIGGER spin AFTER UPDATE ON run BEGIN SELECT 1; END", "the trigger \"spin\"" },
    { "virtual", "CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1)", "the virtual table \"boxes\"" },
  };
  g_autofree char *src = store_with_run ("rigged-src.sqlite");
  g_autofree char *clean = path_in ("rigged-clean.sqlite");
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", clean, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  guint before = import_dirs_of ("loadscope-import-");
  for (guint i = 0; i < G_N_ELEMENTS (rigged); i++)
    {
      g_autofree char *name = g_strdup_printf ("rigged-%s.sqlite", rigged[i].name);
      g_autofree char *bundle = path_in (name);
      g_autofree char *db = g_strdup_printf ("%s.dst", bundle);
      g_autoptr (GFile) from = g_file_new_for_path (clean), to = g_file_new_for_path (bundle);
      g_assert_true (g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL));
      sql (bundle, rigged[i].sql);
      r = run_cli ("import", bundle, "--db", db);
      g_test_message ("%s: exit %d: %s", rigged[i].name, r.status, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, rigged[i].expect));
      ls_test_cli_clear (&r);
      g_assert_cmpuint (import_dirs_of ("loadscope-import-"), ==, before);
    }
}

/* export --format sqlite --force over a bundle, killed (SIGKILL) at
 * points spread over its run: the final name holds the old bundle or the
 * whole new one, never a part, and no journal of its own is left beside
 * it. (The points depend on the machine's speed; each outcome is checked,
 * none is timed.) */
static void
test_killed_sqlite_export_leaves_old_or_new (void)
{
  g_autofree char *src = store_with_run ("killed-export-src.sqlite");
  g_autofree char *bundle = path_in ("killed-export.sqlite");
  g_autofree char *journal = g_strconcat (bundle, "-journal", NULL);
  g_autofree char *fresh = path_in ("killed-export-check.sqlite");
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  for (int i = 0; i < 8; i++)
    {
      const char *argv[] = { g_getenv ("LOADSCOPE"), "export", "--all", "--format", "sqlite", "-o", bundle, "--force",
                             "--db", src, NULL };
      GPid pid;
      g_autoptr (GError) error = NULL;
      g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                    | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, &error));
      g_assert_no_error (error);
      g_usleep ((gulong) (i * 25000));
      kill (pid, SIGKILL);
      int status = 0;
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_false (g_file_test (journal, G_FILE_TEST_EXISTS));
      g_unlink (fresh);
      r = run_cli ("import", bundle, "--db", fresh);
      if (r.status != 0)
        g_error ("after a kill at %d ms: %s does not import: %s", i * 25, bundle, r.err);
      ls_test_cli_clear (&r);
      g_assert_cmpint (sql_int (fresh, "SELECT count(*) FROM run"), ==, 1);
    }
}

/* ------------------------------------------------------------ stopped writers */

/* Starts $LOADSCOPE with $LS_TEST_HOLD=hold and $TMPDIR=tmp (NULL: this
 * test's) and returns once it says it is holding there: the point a test
 * interrupts, told by the command itself, not guessed by a sleep. */
static GSubprocess *
start_held (const char *hold, const char *tmp, const char *const *args)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_subprocess_launcher_setenv (launcher, "LS_TEST_HOLD", hold, TRUE);
  if (tmp)
    g_subprocess_launcher_setenv (launcher, "TMPDIR", tmp, TRUE);
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  GSubprocess *p = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_autoptr (GDataInputStream) err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (p));
  g_autofree char *want = g_strdup_printf ("loadscope: holding at %s: ", hold);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (err, NULL, NULL, &error);
      g_assert_no_error (error);
      if (!line)
        g_error ("%s ended before holding at %s", args[0], hold);
      g_test_message ("%s: %s", args[0], line);
      if (g_str_has_prefix (line, want))
        break;
    }
  return p;
}

/* Sends sig and checks that it ended the process (not an exit of its own). */
static void
stop_held (GSubprocess *p, int sig)
{
  g_subprocess_send_signal (p, sig);
  g_autoptr (GError) error = NULL;
  g_assert_true (g_subprocess_wait (p, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (p));
  g_assert_cmpint (g_subprocess_get_term_sig (p), ==, sig);
}

static guint
entries_of (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name (d))
    n++;
  return n;
}

/* SIGTERM or Ctrl-C in the middle of an import (its private copy made,
 * the store's transaction begun): the copy and its folder are gone with
 * the process, and the store has none of the bundle's runs. */
static void
test_stopped_import_leaves_no_copy (void)
{
  static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
  g_autofree char *src = store_with_run ("stopped-import-src.sqlite");
  g_autofree char *bundle = path_in ("stopped-import.sqlite");
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    {
      g_autofree char *name = g_strdup_printf ("stopped-import-tmp-%d", sigs[i]);
      g_autofree char *tmp = path_in (name);
      g_autofree char *db = g_strdup_printf ("%s.dst", tmp);
      g_assert_cmpint (g_mkdir (tmp, 0700), ==, 0);
      /* the store exists before, so that its runs can be counted after */
      r = run_cli ("history", "--db", db);
      ls_test_cli_clear (&r);
      g_autoptr (GSubprocess) p = start_held ("import", tmp, (const char *const[]){ "import", bundle, "--db", db, NULL });
      g_assert_cmpuint (entries_of (tmp), ==, 1); /* its folder, while it holds */
      stop_held (p, sigs[i]);
      g_assert_cmpuint (entries_of (tmp), ==, 0);
      g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run"), ==, 0);
    }
}

/* A writer's command line: ARGS (NULL-terminated), then -o FILE --force
 * --db SRC, NULL-terminated (the array does not own its strings). */
static GPtrArray *
writer_args (const char *const *args, const char *file, const char *src)
{
  GPtrArray *a = g_ptr_array_new ();
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (a, (char *) args[i]);
  const char *rest[] = { "-o", file, "--force", "--db", src, NULL };
  for (guint i = 0; i < G_N_ELEMENTS (rest); i++)
    g_ptr_array_add (a, (char *) rest[i]);
  return a;
}

/* Every exported file, stopped half written (SIGTERM, Ctrl-C, SIGHUP in
 * turn) with --force over an old one: the old file is there as it was,
 * and nothing else is in its folder (no partial, no journal). */
static void
test_stopped_writes_leave_the_old_file (void)
{
  static const struct {
    const char *name;
    const char *args[8];
  } writers[] = {
    { "runs.csv", { "export", "--all", "--format", "csv", NULL } },
    { "batches.csv", { "export", "--all", "--format", "csv", "--batches", NULL } },
    { "runs.json", { "export", "--all", "--format", "json", NULL } },
    { "runs.sqlite", { "export", "--all", "--format", "sqlite", NULL } },
    { "timeline.svg", { "export", "--run", "1", "--format", "svg", NULL } },
    { "timeline.png", { "export", "--run", "1", "--format", "png", NULL } },
    { "timeline.pdf", { "export", "--run", "1", "--format", "pdf", NULL } },
    { "review.html", { "report", "--all", "--format", "html", NULL } },
    { "review.md", { "report", "--all", "--format", "md", NULL } },
  };
  static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
  static const char old[] = "the old file\n";
  g_autofree char *src = store_with_run ("stopped-writes-src.sqlite");
  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    {
      g_autofree char *dir_name = g_strdup_printf ("stopped-writes-%u", i);
      g_autofree char *dir = path_in (dir_name);
      g_autofree char *file = g_build_filename (dir, writers[i].name, NULL);
      g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
      g_assert_true (g_file_set_contents (file, old, -1, NULL));
      g_autoptr (GPtrArray) args = writer_args (writers[i].args, file, src);
      g_autoptr (GSubprocess) p = start_held ("write", NULL, (const char *const *) args->pdata);
      g_assert_cmpuint (entries_of (dir), >=, 2); /* the old file and the partial */
      stop_held (p, sigs[i % G_N_ELEMENTS (sigs)]);
      g_autofree char *now = NULL;
      g_assert_true (g_file_get_contents (file, &now, NULL, NULL));
      g_assert_cmpstr (now, ==, old);
      if (entries_of (dir) != 1)
        g_error ("%s: %u files left beside it after the stop", writers[i].name, entries_of (dir) - 1);

      /* Not stopped, the same command replaces it whole. */
      g_ptr_array_add (args, NULL);
      ls_test_cli done = ls_test_loadscopev ((const char *const *) args->pdata);
      g_assert_cmpint (done.status, ==, 0);
      ls_test_cli_clear (&done);
      g_clear_pointer (&now, g_free);
      g_assert_true (g_file_get_contents (file, &now, NULL, NULL));
      g_assert_cmpstr (now, !=, old);
    }
}

/* The names in dir other than keep (NULL-terminated), as one line. */
static char *
others_in (const char *dir, const char *const *keep)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GString) s = g_string_new (NULL);
  for (const char *name; d && (name = g_dir_read_name (d));)
    if (!g_strv_contains (keep, name))
      g_string_append_printf (s, "%s%s", s->len ? " " : "", name);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* SIGKILL (which nothing catches) half way through an export: the final
 * name holds the old file whole (or nothing, where there was none), and
 * the partial left beside it is removed by the next export of the same
 * file, which writes it whole. A partial whose writer still runs is never
 * removed, nor what only looks like a partial: a link, a folder, another
 * file's partial, a name with more after it. */
static void
test_killed_writes_are_removed_by_the_next (void)
{
  static const struct {
    const char *name;
    const char *args[8];
  } writers[] = {
    { "runs.csv", { "export", "--all", "--format", "csv", NULL } },
    { "runs.json", { "export", "--all", "--format", "json", NULL } },
    { "runs.sqlite", { "export", "--all", "--format", "sqlite", NULL } },
    { "review.html", { "report", "--all", "--format", "html", NULL } },
  };
  static const char old[] = "the old file\n";
  g_autofree char *src = store_with_run ("killed-writes-src.sqlite");
  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    for (int had_old = 0; had_old < 2; had_old++)
      {
        g_autofree char *dir_name = g_strdup_printf ("killed-writes-%u-%d", i, had_old);
        g_autofree char *dir = path_in (dir_name);
        g_autofree char *file = g_build_filename (dir, writers[i].name, NULL);
        g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
        if (had_old)
          g_assert_true (g_file_set_contents (file, old, -1, NULL));
        g_autoptr (GPtrArray) args = writer_args (writers[i].args, file, src);

        /* Killed half way: the old file as it was, its partial beside it. */
        g_autoptr (GSubprocess) killed = start_held ("write", NULL, (const char *const *) args->pdata);
        gint64 dead = g_ascii_strtoll (g_subprocess_get_identifier (killed), NULL, 10);
        stop_held (killed, SIGKILL);
        const char *const only_file[] = { writers[i].name, NULL };
        g_autofree char *left = others_in (dir, only_file);
        g_test_message ("%s after SIGKILL: %s", writers[i].name, left);
        g_assert_cmpstr (left, !=, "");
        if (had_old)
          {
            g_autofree char *now = NULL;
            g_assert_true (g_file_get_contents (file, &now, NULL, NULL));
            g_assert_cmpstr (now, ==, old);
          }
        else
          g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));

        /* What only looks like a partial of a writer that is gone. */
        g_autofree char *like = g_strdup_printf ("%s.%" G_GINT64_FORMAT "-1-AbCd12.partial", writers[i].name, dead);
        g_autofree char *as_link = g_build_filename (dir, like, NULL);
        g_autofree char *as_dir = g_strdup_printf ("%s-wal", as_link);
        g_autofree char *longer = g_strdup_printf ("%s.bak", as_link);
        g_autofree char *other = g_strdup_printf ("%s/other.csv.%" G_GINT64_FORMAT "-1-AbCd12.partial", dir, dead);
        g_autoptr (GFile) link = g_file_new_for_path (as_link);
        g_autoptr (GError) link_error = NULL;
        g_assert_true (g_file_make_symbolic_link (link, file, NULL, &link_error));
        g_assert_cmpint (g_mkdir (as_dir, 0700), ==, 0);
        g_assert_true (g_file_set_contents (longer, "not a partial\n", -1, NULL));
        g_assert_true (g_file_set_contents (other, "another file's\n", -1, NULL));
        g_autofree char *like_base = g_path_get_basename (as_link);
        g_autofree char *dir_base = g_path_get_basename (as_dir);
        g_autofree char *longer_base = g_path_get_basename (longer);
        g_autofree char *other_base = g_path_get_basename (other);

        /* A writer of the same file that still runs, held half way. */
        g_autoptr (GSubprocess) live = start_held ("write", NULL, (const char *const *) args->pdata);
        g_autofree char *with_live = others_in (dir, only_file);

        /* The next export: the killed writer's partial is gone, the live
         * one's and the look-alikes stay, the file is the new one whole. */
        g_ptr_array_add (args, NULL);
        ls_test_cli done = ls_test_loadscopev ((const char *const *) args->pdata);
        g_assert_cmpint (done.status, ==, 0);
        ls_test_cli_clear (&done);
        g_autofree char *now = NULL;
        g_assert_true (g_file_get_contents (file, &now, NULL, NULL));
        g_assert_cmpstr (now, !=, old);
        const char *const kept[] = { writers[i].name, like_base, dir_base, longer_base, other_base, NULL };
        g_autofree char *after = others_in (dir, kept);
        g_test_message ("%s beside a live writer (%s), after the next export: %s", writers[i].name, with_live, after);
        g_assert_cmpstr (after, !=, ""); /* the live writer's partial */
        g_auto (GStrv) after_names = g_strsplit (after, " ", -1);
        g_auto (GStrv) live_names = g_strsplit (with_live, " ", -1);
        g_auto (GStrv) left_names = g_strsplit (left, " ", -1);
        for (guint k = 0; after_names[k]; k++)
          {
            g_assert_true (g_strv_contains ((const char *const *) live_names, after_names[k]));
            g_assert_false (g_strv_contains ((const char *const *) left_names, after_names[k]));
          }
        for (guint k = 1; kept[k]; k++)
          {
            g_autofree char *p = g_build_filename (dir, kept[k], NULL);
            g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK));
          }

        /* Killed too, the live writer's partial goes with the next one. */
        stop_held (live, SIGKILL);
        done = ls_test_loadscopev ((const char *const *) args->pdata);
        g_assert_cmpint (done.status, ==, 0);
        ls_test_cli_clear (&done);
        g_autofree char *last = others_in (dir, kept);
        g_assert_cmpstr (last, ==, "");
      }
}

/* ------------------------------------------------------------ signals */

static void
own_group (gpointer data)
{
  (void) data;
  setpgid (0, 0);
}

/* A sweep in its own process group, as a shell job: the group gets the
 * terminal's SIGINT (`count` times, `gap_ms` apart) once a run is going. */
static int
sweep_and_interrupt (const char *db, int count, int gap_ms)
{
  const char *argv[] = { g_getenv ("LOADSCOPE"), "sweep", "--dataset", "synthetic", "--count", "400", "--size", "16x16",
                         "--batches", "60", "--sink", "sim", "--model-ms", "100", "--workers", "0,1", "--db", db,
                         NULL };
  GPid pid;
  g_autoptr (GError) error = NULL;
  int null_out = open ("/dev/null", O_WRONLY);
  g_assert_true (g_spawn_async_with_fds (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, own_group, NULL, &pid,
                                          -1, null_out, null_out, &error));
  g_assert_no_error (error);
  close (null_out);
  /* until the first run has recorded a few batches */
  for (int i = 0; i < 200; i++)
    {
      g_usleep (50000);
      if (g_file_test (db, G_FILE_TEST_EXISTS)
          && sql_int_polled (db, "SELECT count(*) FROM batch JOIN run ON run.id = batch.run_id WHERE run.status = 'running'")
                 >= 3)
        break;
    }
  for (int i = 0; i < count; i++)
    {
      g_assert_cmpint (kill (-pid, SIGINT), ==, 0);
      g_usleep ((gulong) gap_ms * 1000);
    }
  int status = 0;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  return status;
}

static void
test_group_sigint_records_the_run (void)
{
  g_autofree char *db = path_in ("sigint.sqlite");
  int status = sweep_and_interrupt (db, 1, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  /* The run was stopped cleanly and recorded with its figures, not killed. */
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run"), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run WHERE status = 'interrupted' AND summary IS NOT NULL "
                                "AND throughput_sps IS NOT NULL"), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM sweep WHERE status = 'interrupted'"), ==, 1);
}

static void
test_second_sigint_leaves_nothing_running (void)
{
  g_autofree char *db = path_in ("sigint2.sqlite");
  sweep_and_interrupt (db, 2, 5);
  /* Whatever the second stopped at once: after the next open, nothing is left running. */
  ls_test_cli r = run_cli ("history", "--db", db);
  ls_test_cli_clear (&r);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'"), ==, 0);
  g_assert_cmpint (sql_int (db, "PRAGMA quick_check = 1") , !=, -1);
}

/* ------------------------------------------------------------ store faults */

static gboolean
sh (const char *cmd)
{
  int status = -1;
  return g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL) && g_spawn_check_wait_status (status, NULL);
}

/* Read commands on a read-only mount and on a full disk, with a dead run
 * that a writer would repair: every one reads (a small tmpfs; root only). */
static void
test_reads_on_read_only_and_full_disk (void)
{
  g_autofree char *src = store_with_run ("ro-src.sqlite");
  g_autofree char *mnt = path_in ("mnt");
  g_autofree char *db = g_build_filename (mnt, "s.sqlite", NULL);
  g_assert_cmpint (g_mkdir_with_parents (mnt, 0700), ==, 0);
  g_autofree char *mount = g_strdup_printf ("mount -t tmpfs -o size=2m tmpfs %s", mnt);
  if (!sh (mount))
    {
      g_test_skip ("cannot mount a tmpfs here (not root)");
      return;
    }
  g_autofree char *cp = g_strdup_printf ("cp %s %s", src, db);
  g_assert_true (sh (cp));
  sql (db, "UPDATE run SET status = 'running', runner_pid = 2147483000, finished_at = NULL");
  g_autofree char *fill = g_strdup_printf ("sh -c 'dd if=/dev/zero of=%s/fill bs=64k; true'", mnt);
  g_autofree char *unfill = g_strdup_printf ("rm %s/fill", mnt);
  g_autofree char *ro = g_strdup_printf ("mount -o remount,ro %s", mnt);
  g_autofree char *umount = g_strdup_printf ("umount %s", mnt);
  const char *phases[] = { fill, unfill, ro };
  for (guint p = 0; p < G_N_ELEMENTS (phases); p++)
    {
      g_assert_true (sh (phases[p]));
      if (p == 1)
        continue;
      const char *const cmds[][9] = {
        { "history", "--db", db }, { "show", "1", "--db", db }, { "compare", "1", "1", "--db", db },
        { "export", "--all", "--format", "json", "-o", "-", "--db", db },
      };
      for (guint c = 0; c < G_N_ELEMENTS (cmds); c++)
        {
          ls_test_cli r = run_cliv (cmds[c]);
          if (r.status != 0)
            g_error ("%s on a %s: exit %d: %s", cmds[c][0], p == 0 ? "full disk" : "read-only mount", r.status, r.err);
          ls_test_cli_clear (&r);
        }
    }
  g_assert_true (sh (umount));
}

static void
test_export_refuses_its_own_store (void)
{
  g_autofree char *db = store_with_run ("self.sqlite");
  for (guint i = 0; i < 2; i++)
    {
      ls_test_cli r = run_cli ("export", "--all", "--format", i ? "sqlite" : "json", "-o", db, "--force", "--db", db);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, "is the store being exported"));
      ls_test_cli_clear (&r);
    }
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run"), ==, 1);
}

static void
test_csv_formulas_are_escaped (void)
{
  g_autofree char *db = store_with_run ("csv.sqlite");
  sql (db, "UPDATE run SET error = '=HYPERLINK(\"x\")', dataset = '@sum'; UPDATE machine SET hostname = '-2+3'");
  ls_test_cli r = run_cli ("export", "--all", "--format", "csv", "-o", "-", "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, ",\"'=HYPERLINK(\"\"x\"\")\","));
  g_assert_nonnull (strstr (r.out, ",\"'@sum\","));
  g_assert_nonnull (strstr (r.out, ",\"'-2+3\","));
  g_assert_null (strstr (r.out, ",=")); /* no cell starts a formula */
  g_assert_null (strstr (r.out, ",@"));
  ls_test_cli_clear (&r);
}

/* A sweep whose store fills up mid-way: no run is reported done that the
 * store does not hold; each says "not recorded" and the sweep ends failed
 * (a small tmpfs; root only). The store stays consistent. */
static void
test_disk_full_sweep_says_not_recorded (void)
{
  g_autofree char *mnt = path_in ("full-mnt");
  g_autofree char *db = g_build_filename (mnt, "s.sqlite", NULL);
  g_assert_cmpint (g_mkdir_with_parents (mnt, 0700), ==, 0);
  g_autofree char *mount = g_strdup_printf ("mount -t tmpfs -o size=1m tmpfs %s", mnt);
  if (!sh (mount))
    {
      g_test_skip ("cannot mount a tmpfs here (not root)");
      return;
    }
  ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--count", "32", "--size", "16x16", "--batches", "3",
                          "--sink", "sim", "--model-ms", "1", "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  /* About 100 KiB left: the store opens (its -shm, the sweep row), the
   * runs' batches and figures do not fit. */
  g_autofree char *fill = g_strdup_printf (
      "sh -c 'dd if=/dev/zero of=%s/fill bs=1k count=$(($(df -k --output=avail %s | tail -1) - 100)) 2>/dev/null'",
      mnt, mnt);
  g_assert_true (sh (fill));
  r = run_cli ("sweep", "--dataset", "synthetic", "--count", "64", "--size", "8x8", "--workers", "0", "--batch-size",
               "32,64", "--batches", "3000", "--sink", "none", "--db", db);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "not recorded in the store"));
  g_assert_nonnull (strstr (r.err, "disk is full"));
  g_assert_nonnull (strstr (r.err, "0 done, 2 failed"));
  ls_test_cli_clear (&r);

  g_autofree char *unfill = g_strdup_printf ("rm %s/fill", mnt);
  g_assert_true (sh (unfill));
  r = run_cli ("history", "--db", db); /* a writing open: repairs what the full disk left */
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run WHERE status = 'running'"), ==, 0);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM sweep WHERE status IN ('running', 'done')"), ==, 0);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM run WHERE status = 'done' AND summary IS NOT NULL"), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), ==, 1);
  g_autofree char *umount = g_strdup_printf ("umount %s", mnt);
  g_assert_true (sh (umount));
}

/* history, show, compare and export agree: a file that is not a store, a
 * folder and a missing file are bad input (2) for every one of them. */
static void
test_unreadable_store_is_exit_2_everywhere (void)
{
  g_autofree char *junk = path_in ("junk.sqlite");
  g_autofree char *folder = path_in ("a-folder.sqlite");
  g_autofree char *missing = path_in ("missing/none.sqlite");
  g_assert_true (g_file_set_contents (junk, "not an SQLite database, just text, long enough to look", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  const char *stores[] = { junk, folder, missing };
  for (guint i = 0; i < G_N_ELEMENTS (stores); i++)
    {
      const char *const cmds[][9] = {
        { "history", "--sweep", "1", "--db", stores[i] },
        { "history", "--db", stores[i] },
        { "show", "1", "--db", stores[i] },
        { "compare", "1", "2", "--db", stores[i] },
        { "export", "--all", "--format", "json", "-o", "-", "--db", stores[i] },
      };
      for (guint c = 0; c < G_N_ELEMENTS (cmds); c++)
        {
          /* history without --sweep on a missing store: "no runs recorded yet", 0. */
          if (i == 2 && c == 1)
            continue;
          ls_test_cli r = run_cliv (cmds[c]);
          g_test_message ("%s on %s: %d: %s", cmds[c][0], stores[i], r.status, r.err);
          if (r.status != 2)
            g_error ("%s --db %s: exit %d, expected 2: %s", cmds[c][0], stores[i], r.status, r.err);
          g_assert_nonnull (strstr (r.err, stores[i]));
          ls_test_cli_clear (&r);
        }
    }
}

/* The machine's fingerprint after its text was changed by hand (import
 * checks it: the first half of SHA-256 of what describes the machine). */
static void
refingerprint (const char *db)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_open (db, &h), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (h, "SELECT hostname, os, cpu_model, logical_cores, ram_bytes, container "
                                          "FROM machine",
                                       -1, &st, NULL),
                   ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  g_autofree char *sum = ls_machine_fingerprint (
      (const char *) sqlite3_column_text (st, 0), (const char *) sqlite3_column_text (st, 1),
      (const char *) sqlite3_column_text (st, 2), (gint64) sqlite3_column_int64 (st, 3),
      (gint64) sqlite3_column_int64 (st, 4), (const char *) sqlite3_column_text (st, 5));
  sqlite3_finalize (st);
  g_autofree char *q = g_strdup_printf ("UPDATE machine SET fingerprint = '%s'", sum);
  g_assert_cmpint (sqlite3_exec (h, q, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (h);
}

/* A bundle whose text holds terminal escapes, newlines and bad bytes:
 * imported (text is text), and printed escaped by history, show, compare. */
static void
test_control_characters_are_escaped_on_output (void)
{
  g_autofree char *src = store_with_run ("ctl-src.sqlite");
  g_autofree char *bundle = path_in ("ctl-bundle.sqlite");
  g_autofree char *db = path_in ("ctl-dst.sqlite");
  ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  sql (bundle, "UPDATE run SET dataset = 'data' || char(27) || '[2J' || char(10) || 'FAKE LINE', status = 'failed', "
               "error = 'boom' || char(7) || char(13) || 'x'; "
               "UPDATE machine SET hostname = 'h' || char(27) || ']0;title' || char(7), "
               "cpu_model = 'cpu' || char(155) || '31m'");
  refingerprint (bundle);
  r = run_cli ("import", bundle, "--db", db);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  const char *const cmds[][6] = {
    { "history", "--db", db }, { "show", "1", "--db", db }, { "compare", "1", "1", "--db", db },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cmds); c++)
    {
      r = run_cliv (cmds[c]);
      g_test_message ("%s", r.out);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_null (strchr (r.out, '\033'));
      g_assert_null (strchr (r.out, '\007'));
      g_assert_null (strchr (r.out, '\r'));
      g_assert_null (strstr (r.out, "\302\233")); /* U+009B, the one-byte CSI */
      g_assert_null (strstr (r.out, "\nFAKE LINE"));
      g_assert_nonnull (strstr (r.out, "\\x1b"));
      ls_test_cli_clear (&r);
    }
  r = run_cli ("show", "1", "--db", db);
  g_assert_nonnull (strstr (r.out, "data\\x1b[2J\\x0aFAKE LINE"));
  g_assert_nonnull (strstr (r.out, "boom\\x07\\x0dx"));
  g_assert_nonnull (strstr (r.out, "cpu\\u009b31m"));
  ls_test_cli_clear (&r);
  /* --json keeps the text, in JSON's escaping. */
  r = run_cli ("show", "1", "--json", "--db", db);
  g_assert_null (strchr (r.out, '\033'));
  g_assert_nonnull (strstr (r.out, "\\u001b[2J\\nFAKE LINE"));
  ls_test_cli_clear (&r);
}

/* Bundle runs with id 0 or below, NUL inside text (JSON and SQLite) and
 * text past its limit: refused naming the field and saying why. */
static void
test_bad_ids_nul_and_long_text_are_refused (void)
{
  g_autofree char *src = store_with_run ("ids-src.sqlite");
  g_autofree char *db = path_in ("ids-dst.sqlite");
  struct {
    const char *name, *sql, *message;
  } cases[] = {
    { "id0.sqlite", "UPDATE run SET id = 0", "run 0.id: 0 is not a positive integer" },
    { "idneg.sqlite", "UPDATE run SET id = -5", "run -5.id: -5 is not a positive integer" },
    { "nul.sqlite", "UPDATE run SET dataset = CAST ('a' || x'00' || 'b' AS TEXT)",
      "run 1.dataset: the text holds a NUL character (at byte 1)" },
    { "long.sqlite", "UPDATE machine SET hostname = printf ('%.300c', 'h')", "too long (1 to 255 bytes allowed)" },
    { "long-path.sqlite", "UPDATE run SET dataset = printf ('%.5000c', 'd')", "too long (1 to 4096 bytes allowed)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *bundle = path_in (cases[i].name);
      ls_test_cli r = run_cli ("export", "--all", "--format", "sqlite", "-o", bundle, "--db", src);
      g_assert_cmpint (r.status, ==, 0);
      ls_test_cli_clear (&r);
      /* The children follow the run's id (foreign keys are off here). */
      g_autofree char *q = g_strdup_printf ("%s; UPDATE batch SET run_id = (SELECT id FROM run); "
                                            "UPDATE sample SET run_id = (SELECT id FROM run); "
                                            "UPDATE worker SET run_id = (SELECT id FROM run)",
                                            cases[i].sql);
      sql (bundle, q);
      r = run_cli ("import", bundle, "--db", db);
      g_test_message ("%s: %s", cases[i].name, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, cases[i].message));
      ls_test_cli_clear (&r);
    }

  /* JSON: "a\u0000b" would be cut to "a" by the parser: refused before. */
  g_autofree char *json = path_in ("nul.json");
  ls_test_cli r = run_cli ("export", "--all", "--format", "json", "-o", json, "--db", src);
  g_assert_cmpint (r.status, ==, 0);
  ls_test_cli_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (json, &text, NULL, NULL));
  const char *dataset = "\"synthetic\""; /* the run's dataset (or format) */
  char *at = strstr (text, dataset);
  g_assert_nonnull (at);
  GString *bad = g_string_new_len (text, at - text);
  g_string_append (bad, "\"syn\\u0000thetic\"");
  g_string_append (bad, at + strlen (dataset));
  g_assert_true (g_file_set_contents (json, bad->str, (gssize) bad->len, NULL));
  g_string_free (bad, TRUE);
  r = run_cli ("import", json, "--db", db);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "NUL character"));
  ls_test_cli_clear (&r);
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS) && sql_int (db, "SELECT count(*) FROM run") != 0);
}

/* --batch-size 65536 of 1024x1024 images: a 13 TiB arena, refused before
 * anything is mapped, saying its size and the batch size that would fit. */
static void
test_arena_larger_than_memory_is_refused (void)
{
  ls_test_cli r = run_cli ("run", "--dataset", "synthetic", "--size", "1024x1024", "--batch-size", "65536", "--workers",
                          "8", "--batches", "2", "--no-db");
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "the shared arena would take"));
  g_assert_nonnull (strstr (r.err, "GiB (18 batch slots of 65536 samples"));
  g_assert_nonnull (strstr (r.err, "of this machine's"));
  g_assert_nonnull (strstr (r.err, " or less would fit"));
  ls_test_cli_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ls-hostile-store-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);
  g_test_add_func ("/store/hostile/import-is-capped", test_import_is_capped);
  g_test_add_func ("/store/hostile/deep-json-is-refused", test_deep_json_is_refused);
  g_test_add_func ("/store/hostile/deep-summary-in-bundle", test_deep_summary_in_bundle);
  g_test_add_func ("/store/hostile/float-knobs-refuse-nan-and-inf", test_float_knobs_refuse_nan_and_inf);
  g_test_add_func ("/store/hostile/knob-extremes-round-trip", test_knob_extremes_round_trip);
  g_test_add_func ("/store/hostile/options-past-the-store-are-refused", test_options_past_the_store_are_refused);
  g_test_add_func ("/store/hostile/killed-sqlite-export-leaves-old-or-new",
                   test_killed_sqlite_export_leaves_old_or_new);
  g_test_add_func ("/store/hostile/stopped-import-leaves-no-copy", test_stopped_import_leaves_no_copy);
  g_test_add_func ("/store/hostile/stopped-writes-leave-the-old-file", test_stopped_writes_leave_the_old_file);
  g_test_add_func ("/store/hostile/killed-writes-are-removed-by-the-next", test_killed_writes_are_removed_by_the_next);
  g_test_add_func ("/store/hostile/bundle-objects-other-than-tables-are-refused",
                   test_bundle_objects_other_than_tables_are_refused);
  g_test_add_func ("/store/hostile/group-sigint-records-the-run", test_group_sigint_records_the_run);
  g_test_add_func ("/store/hostile/second-sigint-leaves-nothing-running", test_second_sigint_leaves_nothing_running);
  g_test_add_func ("/store/hostile/reads-on-read-only-and-full-disk", test_reads_on_read_only_and_full_disk);
  g_test_add_func ("/store/hostile/export-refuses-its-own-store", test_export_refuses_its_own_store);
  g_test_add_func ("/store/hostile/csv-formulas-are-escaped", test_csv_formulas_are_escaped);
  g_test_add_func ("/store/hostile/disk-full-sweep-says-not-recorded", test_disk_full_sweep_says_not_recorded);
  g_test_add_func ("/store/hostile/unreadable-store-is-exit-2-everywhere", test_unreadable_store_is_exit_2_everywhere);
  g_test_add_func ("/store/hostile/control-characters-are-escaped-on-output",
                   test_control_characters_are_escaped_on_output);
  g_test_add_func ("/store/hostile/bad-ids-nul-and-long-text-are-refused", test_bad_ids_nul_and_long_text_are_refused);
  g_test_add_func ("/store/hostile/arena-larger-than-memory-is-refused", test_arena_larger_than_memory_is_refused);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
