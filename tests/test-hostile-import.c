/* `loadscope import` of what is neither JSON nor SQLite: refused
 * from its first bytes. Before, /dev/zero was read to the 1 GiB cap (peak
 * RSS 1 GB) before the refusal. Checked by what the child read and its
 * peak memory (wait4's rusage), never by a time. */
#define _GNU_SOURCE /* wait4, mkfifo under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static char *tmp_dir;

/* Starts `loadscope import FILE --db DB`, its stderr into err_path. */
static pid_t
start_import (const char *file, const char *db, const char *err_path)
{
  const char *loadscope = g_getenv ("LOADSCOPE");
  g_assert_nonnull (loadscope);
  pid_t pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int fd = open (err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int null_out = open ("/dev/null", O_WRONLY); /* its summary is no TAP line */
      if (fd < 0 || dup2 (fd, 2) < 0 || null_out < 0 || dup2 (null_out, 1) < 0)
        _exit (127);
      execl (loadscope, loadscope, "import", file, "--db", db, (char *) NULL);
      _exit (127);
    }
  return pid;
}

/* Its exit status; *maxrss_kb its peak resident memory. */
static int
finish (pid_t pid, long *maxrss_kb)
{
  int status = 0;
  struct rusage ru;
  memset (&ru, 0, sizeof ru);
  while (wait4 (pid, &status, 0, &ru) < 0)
    g_assert_cmpint (errno, ==, EINTR);
  *maxrss_kb = ru.ru_maxrss;
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
assert_refused_as_neither (const char *err_path)
{
  g_autofree char *err = NULL;
  g_assert_true (g_file_get_contents (err_path, &err, NULL, NULL));
  if (!strstr (err, "neither an SQLite bundle nor JSON (it starts with byte 0x00)"))
    g_error ("not refused from its first bytes: %s", err);
}

static void
test_dev_zero (void)
{
  g_autofree char *db = g_build_filename (tmp_dir, "zero.sqlite", NULL);
  g_autofree char *err = g_build_filename (tmp_dir, "zero.err", NULL);
  long maxrss_kb = 0;
  int rc = finish (start_import ("/dev/zero", db, err), &maxrss_kb);
  g_assert_cmpint (rc, ==, 2);
  assert_refused_as_neither (err);
  /* 50 MB, as the issue asks; the sanitizers' own memory on top there. */
  g_test_message ("peak RSS of `import /dev/zero`: %ld KiB", maxrss_kb);
  g_assert_cmpint (maxrss_kb, <, SANITIZED ? 300 * 1024 : 50 * 1024);
}

/* Zeros through a FIFO: the writer counts what the import took before it
 * closed its end (one block and the pipe's buffer, not 16 MiB). */
static void
test_fifo_of_zeros (void)
{
  g_autofree char *fifo = g_build_filename (tmp_dir, "zeros.fifo", NULL);
  g_autofree char *db = g_build_filename (tmp_dir, "fifo.sqlite", NULL);
  g_autofree char *err = g_build_filename (tmp_dir, "fifo.err", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  pid_t pid = start_import (fifo, db, err);
  int fd = open (fifo, O_WRONLY); /* waits for the import to open it */
  g_assert_cmpint (fd, >=, 0);
  static char zeros[65536];
  gsize written = 0;
  while (written < (gsize) 16 << 20)
    {
      ssize_t n = write (fd, zeros, sizeof zeros);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_assert_cmpint (errno, ==, EPIPE);
          break;
        }
      written += (gsize) n;
    }
  close (fd);
  long maxrss_kb = 0;
  int rc = finish (pid, &maxrss_kb);
  g_assert_cmpint (rc, ==, 2);
  assert_refused_as_neither (err);
  g_test_message ("the import took %" G_GSIZE_FORMAT " bytes of zeros", written);
  g_assert_cmpuint (written, <=, 1 << 20);
}

static void
test_other_first_bytes (void)
{
  /* Blanks then an object is JSON; blanks alone are an empty file; text
   * that opens no object or array is neither. */
  static const struct {
    const char *text;
    const char *says;
  } cases[] = {
    { "  \n\t{\"runs\": []}", "not a Loadscope export" },
    { "\xef\xbb\xbf{\"runs\": []}", "not a Loadscope export" },
    { "   \n", "an empty file" },
    { "hello", "neither an SQLite bundle nor JSON (it starts with byte 0x68)" },
    { "run_id,status\n1,done\n", "a CSV file" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("first-%u.json", i);
      g_autofree char *file = g_build_filename (tmp_dir, name, NULL);
      g_autofree char *db = g_build_filename (tmp_dir, "first.sqlite", NULL);
      g_autofree char *err_path = g_build_filename (tmp_dir, "first.err", NULL);
      g_assert_true (g_file_set_contents (file, cases[i].text, -1, NULL));
      long maxrss_kb = 0;
      g_assert_cmpint (finish (start_import (file, db, err_path), &maxrss_kb), ==, 2);
      g_autofree char *err = NULL;
      g_assert_true (g_file_get_contents (err_path, &err, NULL, NULL));
      if (!strstr (err, cases[i].says))
        g_error ("'%s' not in: %s", cases[i].says, err);
    }
}

/* Runs $LOADSCOPE with args up to NULL; its exit status. */
static int
loadscope (const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  int status = -1;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* A JSON export of one run holding 30 MB of batches (its first batch
 * copied, numbered on) imports within 3x the file's size: the text is
 * held once and parsed row by row. json-glib's tree of the whole file took
 * about 9x. */
static void
test_large_json_within_3x (void)
{
  g_autofree char *src = g_build_filename (tmp_dir, "large-src.sqlite", NULL);
  g_autofree char *one = g_build_filename (tmp_dir, "large-one.json", NULL);
  g_autofree char *big = g_build_filename (tmp_dir, "large.json", NULL);
  g_autofree char *db = g_build_filename (tmp_dir, "large.sqlite", NULL);
  g_autofree char *err = g_build_filename (tmp_dir, "large.err", NULL);
  g_assert_cmpint (loadscope ("run", "--dataset", "synthetic", "--count", "32", "--size", "16x16", "--batches", "3",
                              "--sink", "sim", "--model-ms", "1", "--db", src, NULL), ==, 0);
  g_assert_cmpint (loadscope ("export", "--all", "--format", "json", "-o", one, "--db", src, NULL), ==, 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (one, &text, NULL, NULL));
  /* The first batch: a flat object after "batches":[ */
  char *open = strstr (text, "\"batches\":[");
  g_assert_nonnull (open);
  open += strlen ("\"batches\":[");
  char *close = strchr (open, '}');
  g_assert_nonnull (close);
  g_autofree char *row = g_strndup (open, (gsize) (close + 1 - open));
  char *seq = strstr (row, "\"seq\":0,"), *batch = strstr (row, "\"batch\":0,");
  g_assert_true (seq && batch && seq < batch);
  seq += strlen ("\"seq\":");
  batch += strlen ("\"batch\":");
  char *rest = strstr (open, "]"); /* the end of the run's batches */
  g_assert_nonnull (rest);
  g_autofree char *head = g_strndup (text, (gsize) (open - text));
  g_autofree char *row_head = g_strndup (row, (gsize) (seq - row));
  g_autofree char *row_mid = g_strndup (seq + 1, (gsize) (batch - seq - 1));
  const char *row_tail = batch + 1;
  /* As many batches as the run may hold: its max_batches raised. */
  GString *out = g_string_sized_new (32 << 20);
  guint rows = (guint) ((30u << 20) / (strlen (row) + 1));
  g_autofree char *max = g_strdup_printf ("\"max_batches\":%u,", rows);
  g_autofree char *fixed_head = NULL;
  {
    char *at = strstr (head, "\"max_batches\":");
    g_assert_nonnull (at);
    char *end = strchr (at, ',');
    g_assert_nonnull (end);
    fixed_head = g_strdup_printf ("%.*s%s%s", (int) (at - head), head, max, end + 1);
  }
  g_string_append (out, fixed_head);
  for (guint i = 0; i < rows; i++)
    g_string_append_printf (out, "%s%s%u%s%u%s", i ? "," : "", row_head, i, row_mid, i, row_tail);
  g_string_append (out, rest);
  g_assert_true (g_file_set_contents (big, out->str, (gssize) out->len, NULL));
  gsize size = out->len;
  g_string_free (out, TRUE);

  long maxrss_kb = 0;
  int rc = finish (start_import (big, db, err), &maxrss_kb);
  g_autofree char *said = NULL;
  g_file_get_contents (err, &said, NULL, NULL);
  g_test_message ("%u batches, %" G_GSIZE_FORMAT " bytes: exit %d, peak RSS %ld KiB (%.2fx): %s", rows, size, rc,
                  maxrss_kb, (double) maxrss_kb * 1024 / (double) size, said ? said : "");
  g_assert_cmpint (rc, ==, 0);
  if (!SANITIZED) /* the sanitizers' shadow and quarantine are theirs */
    g_assert_cmpint ((gint64) maxrss_kb * 1024, <=, 3 * (gint64) size);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  signal (SIGPIPE, SIG_IGN);
  tmp_dir = g_dir_make_tmp ("ls-hostile-import-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/import/hostile/dev-zero", test_dev_zero);
  g_test_add_func ("/import/hostile/fifo-of-zeros", test_fifo_of_zeros);
  g_test_add_func ("/import/hostile/first-bytes", test_other_first_bytes);
  g_test_add_func ("/import/hostile/large-json-within-3x", test_large_json_within_3x);
  int rc = ls_test_run_checked_shm_only ();
  ls_test_remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
