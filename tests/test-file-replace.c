/* Files at their final name whole or not at all (app/file/file-replace.h)
 * and the table of paths a stop removes (platform/cleanup.h), in-process:
 * a partial named by its writer, removed when not committed; the partials
 * of writers that are gone removed by the next writer, a running writer's
 * and look-alikes kept; armed paths removed files first, then folders.
 * Built for Windows too (scripts/windows/test-app-wine.sh); the stops
 * themselves are test-hostile-store's (signals, SIGKILL). */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/file/file-replace.h"
#include "platform/cleanup.h"
#include "platform/process-identity.h"
#include "platform/process.h"
#include "test-util.h"

/* A pid no process has: above any Linux pid_max, odd so never a Windows
 * process id. */
#define GONE_PID "4194305"

static const char *scratch;

static char *
fresh_dir (const char *name)
{
  char *dir = g_build_filename (scratch, name, NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  return dir;
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names in dir, sorted, joined by spaces. */
static char *
names_in (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (d));)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
touch (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, "x", 1, NULL));
}

static void
test_replace_whole (void)
{
  g_autofree char *dir = fresh_dir ("whole");
  g_autofree char *file = g_build_filename (dir, "runs.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (ls_file_replace (file, "old\n", 4, &error));
  g_assert_no_error (error);
  g_assert_true (ls_file_replace (file, "new file\n", 9, &error));
  g_assert_no_error (error);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "new file\n");
  g_autofree char *names = names_in (dir);
  g_assert_cmpstr (names, ==, "runs.csv");
  /* a folder that does not exist: said, nothing made */
  g_autofree char *nowhere = g_build_filename (dir, "no-such-folder", "f.csv", NULL);
  g_assert_false (ls_file_replace (nowhere, "x", 1, &error));
  g_assert_nonnull (strstr (error->message, "its folder does not exist"));
}

/* The partial is named by its writer, and goes when not committed. */
static void
test_partial_named_by_its_writer (void)
{
  g_autofree char *dir = fresh_dir ("named");
  g_autofree char *file = g_build_filename (dir, "runs.json", NULL);
  g_assert_true (g_file_set_contents (file, "old", -1, NULL));
  g_autoptr (GError) error = NULL;
  ls_partial_file *p = ls_partial_file_new (file, &error);
  g_assert_no_error (error);
  g_assert_true (ls_partial_file_write (p, "half", 4, &error));
  g_autofree char *base = g_path_get_basename (ls_partial_file_path (p));
  gint64 pid = 0;
  guint64 start = 0;
  g_assert_true (ls_partial_file_owner ("runs.json", base, &pid, &start));
  g_assert_cmpint (pid, ==, (gint64) ls_process_self_pid ());
  g_assert_cmpuint (start, ==, ls_process_start_time (pid));
  g_assert_true (g_file_test (ls_partial_file_path (p), G_FILE_TEST_EXISTS));
  ls_partial_file_free (p);
  g_autofree char *names = names_in (dir);
  g_assert_cmpstr (names, ==, "runs.json");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "old");
}

static void
test_owner_of_names (void)
{
  static const struct {
    const char *name;
    gboolean ours;
    gint64 pid;
    guint64 start;
  } cases[] = {
    { "f.csv.12-345-AbC9zZ.partial", TRUE, 12, 345 },
    { "f.csv.12-0-AbC9zZ.partial-journal", TRUE, 12, 0 },
    { "f.csv.12-345-AbC9zZ.partial-wal", TRUE, 12, 345 },
    { "f.csv.12-345-AbC9zZ.partial-shm", TRUE, 12, 345 },
    { "f.csv.12-345-AbC9zZ.partial.bak", FALSE, 0, 0 },
    { "f.csv.12-345-AbC9zZ.partial-other", FALSE, 0, 0 },
    { "f.csv.12-345-AbC9z.partial", FALSE, 0, 0 },
    { "f.csv.12-345-AbC9z-.partial", FALSE, 0, 0 },
    { "f.csv.12345-AbC9zZ.partial", FALSE, 0, 0 },
    { "f.csv.0-345-AbC9zZ.partial", FALSE, 0, 0 },
    { "f.csv.-12-345-AbC9zZ.partial", FALSE, 0, 0 },
    { "f.csv.99999999999999999999999-1-AbC9zZ.partial", FALSE, 0, 0 },
    { "g.csv.12-345-AbC9zZ.partial", FALSE, 0, 0 },
    { "f.csvx12-345-AbC9zZ.partial", FALSE, 0, 0 },
    { "f.csv", FALSE, 0, 0 },
    { "f.csv.AbC9zZ.partial", FALSE, 0, 0 }, /* before the writer was named */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gint64 pid = 0;
      guint64 start = 0;
      gboolean ours = ls_partial_file_owner ("f.csv", cases[i].name, &pid, &start);
      g_test_message ("%s: %s", cases[i].name, ours ? "ours" : "not ours");
      g_assert_cmpint (ours, ==, cases[i].ours);
      if (ours)
        {
          g_assert_cmpint (pid, ==, cases[i].pid);
          g_assert_cmpuint (start, ==, cases[i].start);
        }
    }
}

/* The next writer removes what writers that are gone left (a pid no
 * process has; this process's pid with another start time, as after the
 * pid was reused), keeps a running writer's (this test's parent) and
 * whatever only looks like a partial. */
static void
test_stale_partials_go_with_the_next_writer (void)
{
  g_autofree char *dir = fresh_dir ("stale");
  g_autofree char *file = g_build_filename (dir, "runs.sqlite", NULL);
  g_autofree char *reused = g_strdup_printf ("runs.sqlite.%" G_GINT64_FORMAT "-%" G_GUINT64_FORMAT "-AbCd12.partial",
                                             (gint64) ls_process_self_pid (),
                                             ls_process_start_time ((int64_t) ls_process_self_pid ()) + 1);
  touch (dir, "runs.sqlite." GONE_PID "-1-AbCd12.partial");
  touch (dir, "runs.sqlite." GONE_PID "-1-AbCd12.partial-journal");
  touch (dir, reused);
  /* kept */
  int64_t parent = ls_process_parent_pid ((int64_t) ls_process_self_pid ());
  g_autofree char *live = NULL;
  if (parent > 0 && ls_process_is_same (parent, ls_process_start_time (parent)))
    {
      live = g_strdup_printf ("runs.sqlite.%" G_GINT64_FORMAT "-%" G_GUINT64_FORMAT "-AbCd12.partial", (gint64) parent,
                              ls_process_start_time (parent));
      touch (dir, live);
    }
  else
    g_test_message ("this system names no parent: the running writer's partial is not tried");
  touch (dir, "runs.sqlite." GONE_PID "-1-AbCd12.partial.bak");
  touch (dir, "other.sqlite." GONE_PID "-1-AbCd12.partial");
  g_autofree char *as_dir = g_build_filename (dir, "runs.sqlite." GONE_PID "-1-AbCd13.partial", NULL);
  g_assert_cmpint (g_mkdir (as_dir, 0700), ==, 0);

  g_autoptr (GError) error = NULL;
  g_assert_true (ls_file_replace (file, "new", 3, &error));
  g_assert_no_error (error);
  g_autoptr (GPtrArray) want = g_ptr_array_new ();
  g_ptr_array_add (want, "other.sqlite." GONE_PID "-1-AbCd12.partial");
  g_ptr_array_add (want, "runs.sqlite");
  g_ptr_array_add (want, "runs.sqlite." GONE_PID "-1-AbCd12.partial.bak");
  g_ptr_array_add (want, "runs.sqlite." GONE_PID "-1-AbCd13.partial");
  if (live)
    g_ptr_array_add (want, live);
  g_ptr_array_sort (want, by_name);
  g_ptr_array_add (want, NULL);
  g_autofree char *want_names = g_strjoinv (" ", (char **) want->pdata);
  g_autofree char *names = names_in (dir);
  g_assert_cmpstr (names, ==, want_names);
}

/* Armed paths: a stop's removal takes the files, then the folders (empty
 * ones only); a disarmed path stays. */
static void
test_cleanup_removes_armed_paths (void)
{
  g_autofree char *dir = fresh_dir ("armed");
  g_autofree char *inner = g_build_filename (dir, "copy", NULL);
  g_assert_cmpint (g_mkdir (inner, 0700), ==, 0);
  g_autofree char *a = g_build_filename (inner, "a.partial", NULL);
  g_autofree char *b = g_build_filename (dir, "b.partial", NULL);
  g_autofree char *kept = g_build_filename (dir, "kept.partial", NULL);
  g_assert_true (g_file_set_contents (a, "a", -1, NULL));
  g_assert_true (g_file_set_contents (b, "b", -1, NULL));
  g_assert_true (g_file_set_contents (kept, "k", -1, NULL));
  /* the folder armed first: removed after its file all the same */
  int s_inner = ls_cleanup_arm (inner, LS_CLEANUP_DIR);
  int s_a = ls_cleanup_arm (a, LS_CLEANUP_FILE);
  int s_b = ls_cleanup_arm (b, LS_CLEANUP_FILE);
  int s_kept = ls_cleanup_arm (kept, LS_CLEANUP_FILE);
  int s_dir = ls_cleanup_arm (dir, LS_CLEANUP_DIR); /* not empty at the end: stays */
  g_assert_cmpint (s_inner, >=, 0);
  g_assert_cmpint (s_a, >=, 0);
  g_assert_cmpint (s_b, >=, 0);
  g_assert_cmpint (s_kept, >=, 0);
  g_assert_cmpint (s_dir, >=, 0);
  ls_cleanup_disarm (s_kept);
  ls_cleanup_run_now ();
  g_assert_false (g_file_test (a, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (b, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (inner, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (kept, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  /* run once: the slots are free again, a second run removes nothing */
  g_assert_true (g_file_set_contents (b, "b again", -1, NULL));
  ls_cleanup_run_now ();
  g_assert_true (g_file_test (b, G_FILE_TEST_EXISTS));
}

/* A path too long, an empty one, or a full table: not armed (-1). */
static void
test_cleanup_limits (void)
{
  g_assert_cmpint (ls_cleanup_arm ("", LS_CLEANUP_FILE), ==, -1);
  g_assert_cmpint (ls_cleanup_arm (NULL, LS_CLEANUP_FILE), ==, -1);
  g_autofree char *too_long = g_strnfill (LS_CLEANUP_PATH_MAX, 'x');
  g_assert_cmpint (ls_cleanup_arm (too_long, LS_CLEANUP_FILE), ==, -1);
  int slots[LS_CLEANUP_SLOTS];
  for (int i = 0; i < LS_CLEANUP_SLOTS; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/never-made-%d", scratch, i);
      slots[i] = ls_cleanup_arm (path, LS_CLEANUP_FILE);
      g_assert_cmpint (slots[i], >=, 0);
    }
  g_assert_cmpint (ls_cleanup_arm ("one-more", LS_CLEANUP_FILE), ==, -1);
  ls_cleanup_disarm (slots[3]);
  int again = ls_cleanup_arm ("one-more", LS_CLEANUP_FILE);
  g_assert_cmpint (again, ==, slots[3]);
  ls_cleanup_disarm (again);
  for (int i = 0; i < LS_CLEANUP_SLOTS; i++)
    if (i != 3)
      ls_cleanup_disarm (slots[i]);
  ls_cleanup_disarm (-1); /* nothing */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  scratch = ls_test_tmp_dir_make ("ls-file-replace-XXXXXX");
  g_test_add_func ("/file/replace/whole", test_replace_whole);
  g_test_add_func ("/file/replace/partial-named-by-its-writer", test_partial_named_by_its_writer);
  g_test_add_func ("/file/replace/owner-of-names", test_owner_of_names);
  g_test_add_func ("/file/replace/stale-partials-go-with-the-next-writer", test_stale_partials_go_with_the_next_writer);
  g_test_add_func ("/platform/cleanup/removes-armed-paths", test_cleanup_removes_armed_paths);
  g_test_add_func ("/platform/cleanup/limits", test_cleanup_limits);
  int status = ls_test_run_checked ();
  ls_test_tmp_dir_remove ();
  return status;
}
