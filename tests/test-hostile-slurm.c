/* A Slurm run folder written by someone else: each case is a
 * folder that crashed, hung, flooded or forged `--slurm-collect` before.
 * Collect must refuse or report it, never block, never print a terminal
 * escape, and leave the home store with nothing but valid task stores.
 * No Slurm here: PATH holds no sacct/scontrol/squeue, so only the folder
 * speaks. An alarm turns a hang (a FIFO opened blocking) into a failure. */
#define _GNU_SOURCE /* symlink, mkfifo, alarm under -std=c11 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/slurm/slurm.h"
#include "app/store/store-query.h"
#include "app/store/store.h"
#include "test-sql.h"
#include "test-util.h"

/* Seconds a case may take before it counts as hung. */
#define HANG_S 60

static char *tmp_dir;

/* A fresh run folder (tasks/, logs/) with slurm.json holding manifest. */
static char *
folder (const char *name, const char *manifest)
{
  g_autofree char *dir = g_build_filename (tmp_dir, name, NULL);
  g_autofree char *tasks = g_build_filename (dir, "tasks", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *json = g_build_filename (dir, "slurm.json", NULL);
  g_assert_cmpint (g_mkdir_with_parents (tasks, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (logs, 0755), ==, 0);
  if (manifest)
    g_assert_true (g_file_set_contents (json, manifest, -1, NULL));
  return g_steal_pointer (&dir);
}

/* A valid manifest: C configurations, T tasks, no job (the script run by hand). */
static char *
manifest (guint configurations, guint tasks)
{
  GString *s = g_string_new ("{\"format\": \"loadscope-slurm\", \"version\": 1, ");
  g_string_append_printf (s, "\"configurations\": %u, \"tasks\": %u, \"labels\": [", configurations, tasks);
  for (guint c = 0; c < configurations; c++)
    g_string_append_printf (s, "%s\"workers=%u\"", c ? ", " : "", c);
  g_string_append (s, "], \"jobs\": []}");
  return g_string_free (s, FALSE);
}

static void
put (const char *dir, const char *rel, const char *text, gssize len)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
}

static void
fifo (const char *dir, const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_assert_cmpint (mkfifo (path, 0644), ==, 0);
}

/* ls_slurm_run_load's refusal, whose message must hold every word of says. */
static void
expect_refused (const char *dir, const char *const *says)
{
  g_autoptr (GError) error = NULL;
  alarm (HANG_S);
  g_autoptr (ls_slurm_run) run = ls_slurm_run_load (dir, &error);
  alarm (0);
  g_assert_null (run);
  g_assert_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR);
  for (const char *const *w = says; *w; w++)
    if (!strstr (error->message, *w))
      g_error ("'%s' not in the refusal: %s", *w, error->message);
}

/* The home store of this test case: a fresh file. */
static char *
home_store (const char *name)
{
  g_autofree char *file = g_strdup_printf ("%s.sqlite", name);
  char *path = g_build_filename (tmp_dir, file, NULL);
  g_unlink (path);
  return path;
}

/* What collect printed (its exit status in *rc). */
static char *
collect (const char *dir, const char *db, int *rc)
{
  g_autoptr (GError) error = NULL;
  alarm (HANG_S);
  g_autoptr (ls_slurm_run) run = ls_slurm_run_load (dir, &error);
  g_assert_no_error (error);
  FILE *out = tmpfile ();
  g_assert_nonnull (out);
  *rc = ls_slurm_collect (run, db, out);
  alarm (0);
  long n = ftell (out);
  g_assert_cmpint (n, >=, 0);
  char *text = g_malloc ((gsize) n + 1);
  rewind (out);
  g_assert_cmpuint (fread (text, 1, (size_t) n, out), ==, (size_t) n);
  text[n] = '\0';
  fclose (out);
  /* Nothing the terminal would act on: no ESC, BEL or CR from the folder. */
  g_assert_null (strchr (text, '\033'));
  g_assert_null (strchr (text, '\a'));
  g_assert_null (strchr (text, '\r'));
  return text;
}

static guint
runs_in (const char *db)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) store = ls_store_open_to_read (db, &error);
  g_assert_no_error (error);
  g_autoptr (JsonArray) rows = ls_store_history (store, 0, 0, &error);
  g_assert_no_error (error);
  return json_array_get_length (rows);
}

static void
assert_has (const char *text, const char *what)
{
  if (!strstr (text, what))
    g_error ("'%s' not in:\n%s", what, text);
}

/* ---- the manifest ---- */

static void
test_deep_manifest (void)
{
  /* 200,000 '[': json-glib recursed once per level and overflowed the stack. */
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (s, '[');
  g_autofree char *dir = folder ("deep", s->str);
  g_string_free (s, TRUE);
  const char *says[] = { "slurm.json", "nested more than 64", NULL };
  expect_refused (dir, says);
}

static void
test_manifest_not_regular (void)
{
  /* A FIFO blocked the open; a link to /dev/zero read until memory ran out. */
  g_autofree char *a = folder ("manifest-fifo", NULL);
  fifo (a, "slurm.json");
  const char *fifo_says[] = { "slurm.json", "a FIFO", NULL };
  expect_refused (a, fifo_says);

  g_autofree char *b = folder ("manifest-zero", NULL);
  g_autofree char *json = g_build_filename (b, "slurm.json", NULL);
  g_assert_cmpint (symlink ("/dev/zero", json), ==, 0);
  const char *link_says[] = { "slurm.json", "a symbolic link", NULL };
  expect_refused (b, link_says);
}

static void
test_too_many_tasks (void)
{
  /* 1,000,000 tasks that never ran printed 177 MB of "never started". */
  g_autofree char *text = manifest (1, 1000000);
  g_autofree char *dir = folder ("million", text);
  const char *says[] = { "\"tasks\"", "1000000", "100000", NULL };
  expect_refused (dir, says);
}

static void
test_bad_types (void)
{
  /* Labels that are not strings gave Json-CRITICAL and "(null)". */
  g_autofree char *a = folder ("labels", "{\"format\": \"loadscope-slurm\", \"configurations\": 2, \"tasks\": 2, "
                                         "\"labels\": [1, {\"x\": 2}], \"jobs\": []}");
  const char *label_says[] = { "labels[0]", "not a string", NULL };
  expect_refused (a, label_says);

  static const struct {
    const char *json;
    const char *says;
  } cases[] = {
    { "{\"format\": \"loadscope-slurm\", \"configurations\": \"2\", \"tasks\": 2, \"labels\": [], \"jobs\": []}",
      "\"configurations\" missing or not an integer" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1.5, \"labels\": [\"a\"], \"jobs\": []}",
      "\"tasks\" missing or not an integer" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": -1, \"labels\": [\"a\"], \"jobs\": []}",
      "\"tasks\": -1" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1, \"labels\": \"a\", \"jobs\": []}",
      "\"labels\" missing or not an array" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1, \"labels\": [\"a\"], \"jobs\": [7]}",
      "jobs[0] is not an object" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1, \"labels\": [\"a\"], "
      "\"jobs\": [{\"id\": \"1; rm -rf ~\", \"first\": 0, \"last\": 0}]}",
      "jobs[0].\"id\" is not a Slurm job id" },
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1, \"labels\": [\"a\"], "
      "\"jobs\": [{\"id\": \"5\", \"first\": 0, \"last\": 4000000000}]}",
      "jobs[0].\"last\"" },
    /* "1" would find sweep 1 of the home store and end it. */
    { "{\"format\": \"loadscope-slurm\", \"configurations\": 1, \"tasks\": 1, \"labels\": [\"a\"], \"jobs\": [], "
      "\"sweep_uuid\": \"1\"}",
      "\"sweep_uuid\" is not a uuid" },
    { "{\"format\": 7, \"configurations\": 1, \"tasks\": 1, \"labels\": [\"a\"], \"jobs\": []}",
      "no format" },
    { "[]", "no format" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("types-%u", i);
      g_autofree char *dir = folder (name, cases[i].json);
      const char *says[] = { "slurm.json", cases[i].says, NULL };
      expect_refused (dir, says);
    }
}

/* ---- the tasks' files ---- */

static void
test_fifos (void)
{
  /* task-0.exit and task-1.log FIFOs: collect waited for a writer forever. */
  g_autofree char *text = manifest (2, 2);
  g_autofree char *dir = folder ("fifos", text);
  fifo (dir, "tasks/task-0.exit");
  fifo (dir, "logs/task-0.log");
  fifo (dir, "logs/task-1.log");
  put (dir, "tasks/task-1.exit", "4\n", -1);
  fifo (dir, "tasks/task-1.sqlite");
  g_autofree char *db = home_store ("fifos");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 1);
  assert_has (out, "task-0.exit: a FIFO");
  assert_has (out, "task-0.log: a FIFO");
  assert_has (out, "task 1 (workers=1): failed [Slurm: exited with status 4], exit status 4");
  assert_has (out, "task-1.sqlite: the task's store is not a regular file");
  g_assert_cmpuint (runs_in (db), ==, 0);
}

static void
test_log_links_to_dev_zero (void)
{
  /* The log read until allocation failed (2.1 GB), then "it never started"
   * though the task had exited 3. */
  g_autofree char *text = manifest (1, 1);
  g_autofree char *dir = folder ("zero", text);
  g_autofree char *log = g_build_filename (dir, "logs", "task-0.log", NULL);
  g_assert_cmpint (symlink ("/dev/zero", log), ==, 0);
  put (dir, "tasks/task-0.exit", "3\n", -1);
  g_autofree char *db = home_store ("zero");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 1);
  assert_has (out, "task 0 (workers=0): failed [Slurm: exited with status 3], exit status 3");
  assert_has (out, "its log is not read: ");
  assert_has (out, "task-0.log: a symbolic link");
  g_assert_null (strstr (out, "never started"));
}

static void
test_long_log_tail (void)
{
  /* 8 MB of log: only its tail is read and shown, the last 8 lines. */
  g_autofree char *text = manifest (1, 1);
  g_autofree char *dir = folder ("long-log", text);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < 400000; i++)
    g_string_append_printf (s, "line %u of a long log\n", i);
  put (dir, "logs/task-0.log", s->str, (gssize) s->len);
  g_string_free (s, TRUE);
  put (dir, "tasks/task-0.exit", "1", -1);
  g_autofree char *db = home_store ("long-log");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  assert_has (out, "    | line 399999 of a long log\n");
  assert_has (out, "    | line 399992 of a long log\n");
  g_assert_null (strstr (out, "line 399991 of"));
}

static void
test_log_escapes (void)
{
  /* ESC]0;...BEL retitled the terminal, ESC[2J cleared it. */
  g_autofree char *text = manifest (1, 1);
  g_autofree char *dir = folder ("escapes", text);
  static const char log[] = "starting\n\033]0;owned\a\033[2J\r\nbytes \xff\xfe and a NUL \0 here\n";
  GString *text_log = g_string_new_len (log, sizeof log - 1);
  for (guint i = 0; i < 5000; i++)
    g_string_append_c (text_log, 'y'); /* a line too long for the screen: cut */
  g_string_append_c (text_log, '\n');
  put (dir, "logs/task-0.log", text_log->str, (gssize) text_log->len);
  g_string_free (text_log, TRUE);
  put (dir, "tasks/task-0.exit", "2\n", -1);
  g_autofree char *db = home_store ("escapes");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  assert_has (out, "yyyy ... (3976 bytes more)\n");
  assert_has (out, "    | \\x1b]0;owned\\x07\\x1b[2J\\x0d\n");
  assert_has (out, "and a NUL \\x00 here");
  assert_has (out, "bytes \xef\xbf\xbd\xef\xbf\xbd and");
}

static void
test_escaped_labels_and_states (void)
{
  /* A label, a cached Slurm state and node from the folder: escaped too. */
  g_autofree char *dir = folder ("labels-escaped", "{\"format\": \"loadscope-slurm\", \"configurations\": 1, "
                                                    "\"tasks\": 1, \"labels\": [\"w=1\\u001b[2J\"], \"jobs\": []}");
  put (dir, "states.tsv", "0\tFAILED\033]0;x\a\tnode\0331\t9\n", -1);
  g_autofree char *db = home_store ("labels-escaped");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  assert_has (out, "task 0 (w=1\\x1b[2J): failed [Slurm: FAILED\\x1b]0;x\\x07]");
  assert_has (out, "on node\\x1b1");
}

static void
test_exit_files (void)
{
  /* 99999999999999999999 became "exited with status -1". */
  static const char *const bad[] = { "99999999999999999999", "-1", "256", "3x", "0x10", " ", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *name = g_strdup_printf ("exit-%u", i);
      g_autofree char *text = manifest (1, 1);
      g_autofree char *dir = folder (name, text);
      put (dir, "tasks/task-0.exit", bad[i], -1);
      g_autofree char *db = home_store (name);
      int rc = 0;
      g_autofree char *out = collect (dir, db, &rc);
      g_assert_cmpint (rc, ==, 1);
      g_assert_null (strstr (out, "exited with status"));
      g_assert_null (strstr (out, "exit status -"));
      /* Blank: as if not written yet; anything else: named and refused. */
      assert_has (out, strspn (bad[i], " ") == strlen (bad[i]) ? "never started" : "no exit status: ");
      if (strspn (bad[i], " ") != strlen (bad[i]))
        assert_has (out, "task-0.exit: ");
    }
  /* Too long to be an exit status: not read at all. */
  g_autofree char *text = manifest (1, 1);
  g_autofree char *dir = folder ("exit-long", text);
  g_autofree char *big = g_strnfill (1 << 20, '7');
  put (dir, "tasks/task-0.exit", big, -1);
  g_autofree char *db = home_store ("exit-long");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  assert_has (out, "task-0.exit: 1048576 bytes, more than the 16 read here");

  int code = -1;
  g_assert_true (ls_slurm_exit_status_parse ("0\n", &code) && code == 0);
  g_assert_true (ls_slurm_exit_status_parse ("255", &code) && code == 255);
  g_assert_false (ls_slurm_exit_status_parse ("256", &code));
  g_assert_false (ls_slurm_exit_status_parse ("+1", &code));
  g_assert_false (ls_slurm_exit_status_parse ("1 2", &code));
}

static void
test_many_tasks_reported_briefly (void)
{
  /* The most a folder may claim, none of them run: a short report. */
  g_autofree char *text = manifest (1, LS_SLURM_MAX_TASKS);
  g_autofree char *dir = folder ("many", text);
  g_autofree char *db = home_store ("many");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 1);
  g_assert_cmpuint (strlen (out), <, 64 * 1024);
  assert_has (out, "... and 99950 more tasks that did not end well");
}

static void
test_store_links (void)
{
  /* A task store that is a link (to another of the user's stores, to
   * /dev/zero) is not imported; the home store gains nothing from it. */
  g_autofree char *text = manifest (2, 2);
  g_autofree char *dir = folder ("store-links", text);
  g_autofree char *other = home_store ("someone-elses");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (ls_store) s = ls_store_open (other, &error);
    g_assert_no_error (error);
  }
  g_autofree char *t0 = g_build_filename (dir, "tasks", "task-0.sqlite", NULL);
  g_autofree char *t1 = g_build_filename (dir, "tasks", "task-1.sqlite", NULL);
  g_autofree char *seed = g_build_filename (dir, "seed.sqlite", NULL);
  g_assert_cmpint (symlink (other, t0), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", t1), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", seed), ==, 0);
  g_autofree char *db = home_store ("store-links");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 1);
  assert_has (out, "task-0.sqlite: the task's store is not a regular file");
  assert_has (out, "task-1.sqlite: the task's store is not a regular file");
  assert_has (out, "seed.sqlite: seed.sqlite is not a regular file");
  assert_has (out, "from 0 task stores");
  g_assert_cmpuint (runs_in (db), ==, 0);
}

static void
test_tasks_link (void)
{
  /* tasks/ a link to a folder elsewhere: nothing in it is imported. */
  g_autofree char *text = manifest (1, 1);
  g_autofree char *dir = folder ("tasks-link", text);
  g_autofree char *tasks = g_build_filename (dir, "tasks", NULL);
  g_autofree char *elsewhere = g_build_filename (tmp_dir, "elsewhere", NULL);
  g_assert_cmpint (g_mkdir_with_parents (elsewhere, 0755), ==, 0);
  g_autofree char *store = g_build_filename (elsewhere, "task-0.sqlite", NULL);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (ls_store) s = ls_store_open (store, &error);
    g_assert_no_error (error);
  }
  g_assert_cmpint (g_rmdir (tasks), ==, 0);
  g_assert_cmpint (symlink (elsewhere, tasks), ==, 0);
  g_autofree char *db = home_store ("tasks-link");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 1);
  assert_has (out, "tasks is a link, not the run folder's own folder; its stores are not imported");
  assert_has (out, "from 0 task stores");
}

static void
test_foreign_sweep (void)
{
  /* A manifest naming a sweep of the home store that collect did not
   * create (one that failed here, one a process of this machine runs):
   * its status and reason stay as recorded. */
  for (int ended = 0; ended <= 1; ended++)
    {
      g_autofree char *name = g_strdup_printf ("foreign-sweep-%d", ended);
      g_autofree char *db = home_store (name);
      {
        g_autoptr (GError) error = NULL;
        g_autoptr (ls_store) s = ls_store_open (db, &error);
        g_assert_no_error (error);
        gint64 machine = ls_store_this_machine (s, NULL, NULL, &error);
        g_assert_no_error (error);
        gint64 sweep = ls_store_sweep_begin (s, machine, "{}", 2, 1, &error);
        g_assert_no_error (error);
        if (ended)
          g_assert_true (ls_store_sweep_end (s, sweep, "failed", "its reason", &error));
      }
      g_autofree char *uuid = ls_test_sql_text (db, "SELECT uuid FROM sweep");
      g_autofree char *before = ls_test_sql_text (db, "SELECT status || ' / ' || ifnull (error, '-') FROM sweep");
      g_autofree char *text = g_strdup_printf ("{\"format\": \"loadscope-slurm\", \"version\": 1, \"configurations\": 2, "
                                               "\"tasks\": 2, \"labels\": [\"a\", \"b\"], \"jobs\": [], "
                                               "\"sweep_uuid\": \"%s\"}",
                                               uuid);
      g_autofree char *dir = folder (name, text);
      int rc = 0;
      g_autofree char *out = collect (dir, db, &rc);
      g_test_message ("%s", out);
      g_autofree char *after = ls_test_sql_text (db, "SELECT status || ' / ' || ifnull (error, '-') FROM sweep");
      g_assert_cmpstr (after, ==, before);
    }
}

/* A store at path with this machine and one sweep whose uuid is uuid (a
 * forged task store or seed: anyone can write one). */
static void
store_with_sweep (const char *path, const char *uuid)
{
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (ls_store) s = ls_store_open (path, &error);
    g_assert_no_error (error);
    gint64 machine = ls_store_this_machine (s, NULL, NULL, &error);
    g_assert_no_error (error);
    ls_store_sweep_begin (s, machine, "{}", 2, 1, &error);
    g_assert_no_error (error);
  }
  g_autofree char *sql = g_strdup_printf ("UPDATE sweep SET uuid = '%s', owner_pid = NULL, owner_start = NULL", uuid);
  ls_test_sql_exec (path, sql);
}

/* A home store with one sweep of its own, ended: its uuid. */
static char *
home_with_sweep (const char *db)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_store) s = ls_store_open (db, &error);
  g_assert_no_error (error);
  gint64 machine = ls_store_this_machine (s, NULL, NULL, &error);
  gint64 sweep = ls_store_sweep_begin (s, machine, "{}", 3, 1, &error);
  g_assert_no_error (error);
  g_assert_true (ls_store_sweep_end (s, sweep, "failed", "its reason", &error));
  return ls_test_sql_text (db, "SELECT uuid FROM sweep");
}

static char *
manifest_for (const char *uuid, const char *job)
{
  return g_strdup_printf ("{\"format\": \"loadscope-slurm\", \"version\": 1, \"configurations\": 2, "
                          "\"tasks\": 2, \"labels\": [\"workers=0\", \"workers=1\"], \"jobs\": [%s], "
                          "\"sweep_uuid\": \"%s\"}",
                          job ? job : "", uuid);
}

static void
test_forged_manifest_names_a_home_sweep (void)
{
  /* The manifest names a sweep of the home store that was never
   * submitted to Slurm from it, and the folder's stores carry that sweep:
   * refused before anything is merged, naming slurm.json and why. */
  g_autofree char *db = home_store ("forged-home-sweep");
  g_autofree char *uuid = home_with_sweep (db);
  g_autofree char *text = manifest_for (uuid, NULL);
  g_autofree char *dir = folder ("forged-home-sweep", text);
  g_autofree char *seed = g_build_filename (dir, "seed.sqlite", NULL);
  g_autofree char *task = g_build_filename (dir, "tasks", "task-0.sqlite", NULL);
  store_with_sweep (seed, uuid);
  store_with_sweep (task, uuid);
  g_autofree char *before = ls_test_sql_text (db, "SELECT status || ' / ' || ifnull (error, '-') || ' / ' || "
                                                  "configurations FROM sweep");
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_test_message ("%s", out);
  g_assert_cmpint (rc, ==, 2);
  assert_has (out, "slurm.json: its sweep_uuid ");
  assert_has (out, "is sweep 1 of this store, which was not submitted to Slurm from it");
  assert_has (out, "nothing is collected");
  g_autofree char *after = ls_test_sql_text (db, "SELECT status || ' / ' || ifnull (error, '-') || ' / ' || "
                                                 "configurations FROM sweep");
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM slurm_submission"), ==, 0);
}

static void
test_forged_manifest_jobs_and_knobs (void)
{
  /* A sweep this store submitted: the folder's manifest rewritten with
   * other job ids, or other knobs, is refused; the one submitted is not. */
  g_autofree char *db = home_store ("forged-jobs");
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *text = manifest_for (uuid, "{\"id\": \"111\", \"first\": 0, \"last\": 1}");
  g_autofree char *dir = folder ("forged-jobs", text);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (ls_slurm_run) run = ls_slurm_run_load (dir, &error);
    g_assert_no_error (error);
    g_assert_true (ls_slurm_record_submission (run, db, &error));
    g_assert_no_error (error);
  }
  g_autofree char *json = g_build_filename (dir, "slurm.json", NULL);
  g_autofree char *other_jobs = manifest_for (uuid, "{\"id\": \"222\", \"first\": 0, \"last\": 1}");
  g_assert_true (g_file_set_contents (json, other_jobs, -1, NULL));
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 2);
  assert_has (out, "slurm.json: its jobs (222:0-1) are not those this store submitted for sweep");
  assert_has (out, "(111:0-1, from ");

  g_autofree char *other_knobs = g_strdup (text);
  char *at = strstr (other_knobs, "workers=1");
  g_assert_nonnull (at);
  at[8] = '9';
  g_assert_true (g_file_set_contents (json, other_knobs, -1, NULL));
  g_clear_pointer (&out, g_free);
  out = collect (dir, db, &rc);
  g_assert_cmpint (rc, ==, 2);
  assert_has (out, "its configurations' knobs (labels) are not those this store submitted");

  /* As submitted: collected (the tasks never ran: 1, not 2). */
  g_assert_true (g_file_set_contents (json, text, -1, NULL));
  g_clear_pointer (&out, g_free);
  out = collect (dir, db, &rc);
  g_test_message ("%s", out);
  g_assert_cmpint (rc, ==, 1);
  g_assert_null (strstr (out, "nothing is collected"));
}

static void
test_task_store_of_another_sweep (void)
{
  /* A fresh manifest, but the task's store carries a sweep of the home
   * store: that store is refused alone, the home sweep keeps what it had. */
  g_autofree char *db = home_store ("other-sweep");
  g_autofree char *victim = home_with_sweep (db);
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *text = manifest_for (uuid, NULL);
  g_autofree char *dir = folder ("other-sweep", text);
  g_autofree char *task = g_build_filename (dir, "tasks", "task-0.sqlite", NULL);
  store_with_sweep (task, victim);
  int rc = 0;
  g_autofree char *out = collect (dir, db, &rc);
  g_test_message ("%s", out);
  g_assert_cmpint (rc, ==, 1);
  g_autofree char *says = g_strdup_printf ("sweep %s is not the one this file belongs to (%s)", victim, uuid);
  assert_has (out, "task 0: its store could not be merged");
  assert_has (out, says);

  /* The first collect of a folder submitted elsewhere records it; the
   * next collect of the same folder is not refused. */
  g_autofree char *seed = g_build_filename (dir, "seed.sqlite", NULL);
  g_unlink (task);
  store_with_sweep (seed, uuid);
  g_clear_pointer (&out, g_free);
  out = collect (dir, db, &rc);
  g_assert_null (strstr (out, "nothing is collected"));
  g_autofree char *find = g_strdup_printf ("SELECT count(*) FROM sweep WHERE uuid = '%s'", uuid);
  g_assert_cmpint (ls_test_sql_int (db, find), ==, 1);
  g_assert_cmpint (ls_test_sql_int (db, "SELECT count(*) FROM slurm_submission"), ==, 1);
}

/* Collect asks sacct once for many jobs, not once a job: a stand-in
 * sacct on PATH logs each call and answers for every job it is given. */
static void
test_sacct_batched (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *bin = g_build_filename (tmp_dir, "fake-slurm", NULL);
      g_autofree char *log = g_build_filename (tmp_dir, "fake-slurm", "calls.log", NULL);
      g_autofree char *sacct = g_build_filename (bin, "sacct", NULL);
      g_assert_cmpint (g_mkdir_with_parents (bin, 0755), ==, 0);
      g_autofree char *script = g_strdup_printf (
          "#!/bin/sh\n"
          "echo \"$*\" >> '%s'\n"
          "while [ $# -gt 0 ]; do if [ \"$1\" = -j ]; then ids=$2; fi; shift; done\n"
          "IFS=,\n"
          "for id in $ids; do echo \"${id}_$((id - 101))|COMPLETED|0:0|node-a\"; done\n",
          log);
      g_assert_true (g_file_set_contents (sacct, script, -1, NULL));
      g_assert_cmpint (g_chmod (sacct, 0755), ==, 0);
      g_setenv ("PATH", bin, TRUE);
      GString *jobs = g_string_new (NULL);
      for (guint j = 0; j < 300; j++)
        g_string_append_printf (jobs, "%s{\"id\": \"%u\", \"first\": %u, \"last\": %u}", j ? ", " : "", 101 + j, j, j);
      g_autofree char *text = g_strdup_printf ("{\"format\": \"loadscope-slurm\", \"version\": 1, \"configurations\": 1, "
                                               "\"tasks\": 300, \"labels\": [\"a\"], \"jobs\": [%s]}",
                                               jobs->str);
      g_string_free (jobs, TRUE);
      g_autofree char *dir = folder ("sacct-batched", text);
      g_autoptr (GError) error = NULL;
      g_autoptr (ls_slurm_run) run = ls_slurm_run_load (dir, &error);
      g_assert_no_error (error);
      ls_slurm_run_refresh (run);
      for (guint t = 0; t < 300; t++)
        {
          g_assert_cmpint (ls_slurm_run_task (run, t)->state, ==, LS_TASK_DONE);
          g_assert_cmpstr (ls_slurm_run_task (run, t)->node, ==, "node-a");
        }
      g_autofree char *calls = NULL;
      g_assert_true (g_file_get_contents (log, &calls, NULL, NULL));
      guint n = 0;
      for (const char *p = calls; (p = strchr (p, '\n')); p++)
        n++;
      /* 300 jobs: two calls of at most 256, not 300 */
      g_assert_cmpuint (n, ==, 2);
      return;
    }
  g_test_trap_subprocess (NULL, 60000000, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ls-hostile-slurm-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* No Slurm: only the folder answers. */
  g_autofree char *empty = g_build_filename (tmp_dir, "no-slurm", NULL);
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  g_setenv ("PATH", empty, TRUE);
  g_test_add_func ("/slurm/hostile/deep-manifest", test_deep_manifest);
  g_test_add_func ("/slurm/hostile/manifest-not-regular", test_manifest_not_regular);
  g_test_add_func ("/slurm/hostile/too-many-tasks", test_too_many_tasks);
  g_test_add_func ("/slurm/hostile/bad-types", test_bad_types);
  g_test_add_func ("/slurm/hostile/fifos", test_fifos);
  g_test_add_func ("/slurm/hostile/log-dev-zero", test_log_links_to_dev_zero);
  g_test_add_func ("/slurm/hostile/long-log", test_long_log_tail);
  g_test_add_func ("/slurm/hostile/log-escapes", test_log_escapes);
  g_test_add_func ("/slurm/hostile/labels-states-escaped", test_escaped_labels_and_states);
  g_test_add_func ("/slurm/hostile/exit-files", test_exit_files);
  g_test_add_func ("/slurm/hostile/many-tasks", test_many_tasks_reported_briefly);
  g_test_add_func ("/slurm/hostile/store-links", test_store_links);
  g_test_add_func ("/slurm/hostile/tasks-link", test_tasks_link);
  g_test_add_func ("/slurm/hostile/foreign-sweep", test_foreign_sweep);
  g_test_add_func ("/slurm/hostile/sacct-batched", test_sacct_batched);
  g_test_add_func ("/slurm/hostile/forged-manifest-names-a-home-sweep", test_forged_manifest_names_a_home_sweep);
  g_test_add_func ("/slurm/hostile/forged-manifest-jobs-and-knobs", test_forged_manifest_jobs_and_knobs);
  g_test_add_func ("/slurm/hostile/task-store-of-another-sweep", test_task_store_of_another_sweep);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
