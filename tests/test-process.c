/* platform/'s processes where the plain-C self-test (platform-selftest.c,
 * natively and under Wine) does not reach: POSIX's fork and its death
 * with the parent, a non-executable file, free() of a running child,
 * signal names, the Win32 command-line quoting (portable, so tested here),
 * process ancestry, the probe's pipe and the tree end's adopted orphans.
 * Exit codes, crashes, timeouts, arguments, environment, handles and
 * liveness are the self-test's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "platform/clock.h"
#include "platform/pipe.h"
#include "platform/process-identity.h"
#include "platform/process-private.h"
#include "platform/process-tree.h"
#include "test-util.h"
#include "tricky-args.h"

/* Spawns helper-child with the given arguments (after argv[0]). */
static ls_process *
spawn_helper (const char *const *args, const ls_handle *inherit, size_t n_inherit, const char *const *env_add)
{
  const char *argv[32] = { ls_test_helper_path () };
  size_t n = 1;
  ls_error err = { 0 };
  ls_process *proc = NULL;

  for (; args[n - 1]; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  ls_spawn_options opts = { .path = argv[0], .argv = argv, .inherit = inherit, .n_inherit = n_inherit, .env_add = env_add };
  if (ls_process_spawn (&opts, &proc, &err) != LS_OK)
    g_error ("spawn failed: %s", err.message);
  return proc;
}

static ls_exit_status
wait_ended (ls_process *proc)
{
  ls_exit_status st = { 0 };
  ls_error err = { 0 };
  g_assert_cmpint (ls_process_wait (proc, 10000, &st, &err), ==, LS_OK);
  return st;
}

static void
test_not_executable_is_an_error (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ls-proc-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "plain.txt", NULL);
  const char *argv[] = { path, NULL };
  ls_spawn_options opts = { .path = path, .argv = argv };
  ls_process *proc = NULL;
  ls_error err = { 0 };

  g_assert_true (g_file_set_contents (path, "not a program", -1, NULL));
  chmod (path, 0644);
  g_assert_cmpint (ls_process_spawn (&opts, &proc, &err), ==, LS_ERR_EXEC);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, "Permission denied"));
  g_unlink (path);
  g_rmdir (dir);
}

static int
child_returns_5 (void *arg)
{
  g_assert_cmpint (GPOINTER_TO_INT (arg), ==, 42);
  return 5;
}

static int
child_kills_itself (void *arg)
{
  (void) arg;
  raise (SIGKILL);
  return 0;
}

static void
test_fork_runs_function (void)
{
  ls_process *proc = NULL;
  ls_error err = { 0 };

  g_assert_cmpint (ls_process_fork (child_returns_5, GINT_TO_POINTER (42), &proc, &err), ==, LS_OK);
  g_assert_cmpint (ls_process_pid (proc), !=, getpid ());
  ls_exit_status st = wait_ended (proc);
  g_assert_cmpint (st.kind, ==, LS_EXIT_CODE);
  g_assert_cmpint (st.code, ==, 5);
  ls_process_free (proc);

  g_assert_cmpint (ls_process_fork (child_kills_itself, NULL, &proc, &err), ==, LS_OK);
  st = wait_ended (proc);
  g_assert_cmpint (st.kind, ==, LS_EXIT_SIGNAL);
  g_assert_cmpint (st.signal, ==, SIGKILL);
  ls_process_free (proc);
}

static void
test_free_kills_and_reaps (void)
{
  ls_process *proc = spawn_helper ((const char *[]){ "hang", NULL }, NULL, 0, NULL);
  pid_t pid = ls_process_pid (proc);

  ls_process_free (proc);
  /* Neither running nor a zombie: the pid is gone. */
  g_assert_cmpint (kill (pid, 0), ==, -1);
  g_assert_cmpint (errno, ==, ESRCH);
}

/* Parent-death: an intermediate process starts a grandchild, then dies.
 * The test process is a subreaper, so the orphan is reparented to it and
 * its end can be observed exactly. */

typedef struct {
  const char *pid_file;
  gboolean by_fork;
} intermediate_args;

/* Forked grandchild: by the time ls_process_fork's child runs fn it has
 * asked to die with its parent; say so, then wait to be killed. */
static int
grandchild_hangs (void *arg)
{
  g_file_set_contents (arg, "ready", -1, NULL);
  for (;;)
    pause ();
  return 0;
}

static int
intermediate_main (void *data)
{
  intermediate_args *a = data;
  ls_process *grandchild = NULL;
  ls_error err = { 0 };
  char self[32], ready_file[4096];

  snprintf (ready_file, sizeof ready_file, "%s.ready", a->pid_file);
  if (a->by_fork)
    {
      if (ls_process_fork (grandchild_hangs, ready_file, &grandchild, &err) != LS_OK)
        return 10;
      while (!g_file_test (ready_file, G_FILE_TEST_EXISTS))
        ls_sleep_ms (2);
    }
  else
    {
      snprintf (self, sizeof self, "%d", (int) getpid ());
      const char *argv[] = { ls_test_helper_path (), "die-with-parent", self, ready_file, NULL };
      ls_spawn_options opts = { .path = argv[0], .argv = argv };
      if (ls_process_spawn (&opts, &grandchild, &err) != LS_OK)
        return 11;
      /* Only report once the grandchild has asked to die with us. */
      while (!g_file_test (ready_file, G_FILE_TEST_EXISTS))
        ls_sleep_ms (2);
    }
  char text[32];
  snprintf (text, sizeof text, "%d", (int) ls_process_pid (grandchild));
  if (!g_file_set_contents (a->pid_file, text, -1, NULL))
    return 12;
  for (;;)
    pause ();
  return 0;
}

static void
check_child_dies_with_parent (gboolean by_fork)
{
  g_autofree char *dir = g_dir_make_tmp ("ls-pdeath-XXXXXX", NULL);
  g_autofree char *pid_file = g_build_filename (dir, "grandchild.pid", NULL);
  g_autofree char *ready_file = g_strconcat (pid_file, ".ready", NULL);
  intermediate_args args = { pid_file, by_fork };
  ls_process *intermediate = NULL;
  ls_error err = { 0 };
  g_autofree char *text = NULL;
  int wstatus = 0;
  pid_t grandchild, r = 0;

  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
  g_assert_cmpint (ls_process_fork (intermediate_main, &args, &intermediate, &err), ==, LS_OK);
  for (int i = 0; i < 5000 && !g_file_get_contents (pid_file, &text, NULL, NULL); i++)
    ls_sleep_ms (2);
  g_assert_nonnull (text);
  grandchild = (pid_t) atoi (text);
  g_assert_cmpint (grandchild, >, 0);

  ls_process_kill (intermediate, &err);
  g_assert_cmpint (wait_ended (intermediate).signal, ==, SIGKILL);
  ls_process_free (intermediate);

  uint64_t t0 = ls_clock_ns ();
  while (ls_clock_ns () - t0 < 2000000000u && (r = waitpid (grandchild, &wstatus, WNOHANG)) == 0)
    ls_sleep_ms (5);
  g_assert_cmpint (r, ==, grandchild);
  g_assert_true (WIFSIGNALED (wstatus));
  g_assert_cmpint (WTERMSIG (wstatus), ==, SIGKILL);
  prctl (PR_SET_CHILD_SUBREAPER, 0);

  g_unlink (pid_file);
  g_unlink (ready_file);
  g_rmdir (dir);
}

static void
test_forked_child_dies_with_parent (void)
{
  check_child_dies_with_parent (TRUE);
}

static void
test_signal_names (void)
{
  g_assert_cmpstr (ls_signal_name (SIGKILL), ==, "SIGKILL");
  g_assert_cmpstr (ls_signal_name (SIGSEGV), ==, "SIGSEGV");
  g_assert_cmpstr (ls_signal_name (SIGTERM), ==, "SIGTERM");
  g_assert_cmpstr (ls_signal_name (SIGABRT), ==, "SIGABRT");
  g_assert_cmpstr (ls_signal_name (SIGBUS), ==, "SIGBUS");
  g_assert_cmpstr (ls_signal_name (0), ==, "SIG?");
  g_assert_cmpstr (ls_signal_name (99), ==, "SIG?");
  g_assert_cmpstr (ls_signal_name (-1), ==, "SIG?");

  char text[128];
  ls_exit_status ex = { .kind = LS_EXIT_EXCEPTION, .exception = 0xC0000005u };
  ls_exit_status_describe (&ex, text, sizeof text);
  g_assert_cmpstr (text, ==, "crashed with exception 0xC0000005 (access violation)");
  ls_exit_status running = { .kind = LS_EXIT_RUNNING };
  ls_exit_status_describe (&running, text, sizeof text);
  g_assert_cmpstr (text, ==, "still running");
}

/* Splits a command line the way CommandLineToArgvW does (arguments after
 * the first), to check ls_win32_command_line round-trips. */
static GPtrArray *
split_win32_command_line (const char *line)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  const char *p = line;

  for (;;)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p)
        break;
      GString *arg = g_string_new (NULL);
      gboolean quoted = FALSE;
      while (*p && (quoted || (*p != ' ' && *p != '\t')))
        {
          size_t backslashes = 0;
          while (*p == '\\')
            {
              backslashes++;
              p++;
            }
          if (*p == '"')
            {
              for (size_t k = 0; k < backslashes / 2; k++)
                g_string_append_c (arg, '\\');
              if (backslashes % 2)
                g_string_append_c (arg, '"');
              else if (quoted && p[1] == '"')
                {
                  g_string_append_c (arg, '"');
                  p++;
                }
              else
                quoted = !quoted;
              p++;
            }
          else
            {
              for (size_t k = 0; k < backslashes; k++)
                g_string_append_c (arg, '\\');
              if (*p && (quoted || (*p != ' ' && *p != '\t')))
                g_string_append_c (arg, *p++);
            }
        }
      g_ptr_array_add (out, g_string_free (arg, FALSE));
    }
  return out;
}

static void
test_win32_command_line_quoting (void)
{
  static const struct {
    const char *argv[4];
    const char *line;
  } cases[] = {
    { { "a", "b", "c" }, "a b c" },
    { { "prog", "with space" }, "prog \"with space\"" },
    { { "prog", "" }, "prog \"\"" },
    { { "prog", "quote\"inside" }, "prog \"quote\\\"inside\"" },
    { { "prog", "end slash\\" }, "prog \"end slash\\\\\"" },
    { { "prog", "a\\\\b" }, "prog a\\\\b" },
    { { "prog", "a\\\"b" }, "prog \"a\\\\\\\"b\"" },
    { { "C:\\Program Files\\x.exe", "--flag" }, "\"C:\\Program Files\\x.exe\" --flag" },
  };
  char buf[512];

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpint (ls_win32_command_line (cases[i].argv, buf, sizeof buf), ==, (int) strlen (cases[i].line));
      g_assert_cmpstr (buf, ==, cases[i].line);
    }

  /* Every tricky argument survives a round trip. */
  const char *argv[32] = { "prog" };
  size_t n = 1;
  for (size_t i = 0; ls_tricky_args[i]; i++)
    argv[n++] = ls_tricky_args[i];
  argv[n] = NULL;
  g_assert_cmpint (ls_win32_command_line (argv, buf, sizeof buf), >, 0);
  g_autoptr (GPtrArray) back = split_win32_command_line (buf);
  g_assert_cmpuint (back->len, ==, n);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpstr (back->pdata[i], ==, argv[i]);

  /* Too small a buffer is refused, not overrun. */
  g_assert_cmpint (ls_win32_command_line (argv, buf, 8), ==, -1);
}

/* ls_process_parent_pid / ls_process_is_descendant: a child is below us,
 * pid 1 and we ourselves are not below it. */
static void
test_descendant (void)
{
  ls_pid self = ls_process_self_pid ();
  ls_process *proc = spawn_helper ((const char *[]){ "hang", NULL }, NULL, 0, NULL);
  ls_pid pid = ls_process_pid (proc);
  g_assert_cmpint (ls_process_parent_pid (pid), ==, self);
  g_assert_true (ls_process_is_descendant (pid, self, ls_process_start_time (self)));
  g_assert_false (ls_process_is_descendant (1, self, 0));
  g_assert_false (ls_process_is_descendant (self, pid, 0));
  g_assert_false (ls_process_is_descendant (pid, pid, 0));
  g_assert_cmpint (ls_process_parent_pid (0), ==, 0);
  ls_process_free (proc);
}

/* The pipe: bytes, nothing yet (a timeout, not a block), end of file. */
static void
test_pipe (void)
{
  ls_handle rd, wr;
  ls_error err = { 0 };
  char buf[16];
  g_assert_cmpint (ls_pipe_open (&rd, &wr, &err), ==, LS_OK);
  g_assert_cmpint (ls_pipe_read (rd, buf, sizeof buf, 0, &err), ==, LS_ERR_TIMEOUT);
  g_assert_cmpint (write ((int) wr, "abc", 3), ==, 3);
  g_assert_cmpint (ls_pipe_read (rd, buf, sizeof buf, 1000, &err), ==, 3);
  g_assert_cmpint (memcmp (buf, "abc", 3), ==, 0);
  ls_pipe_close (wr);
  g_assert_cmpint (ls_pipe_read (rd, buf, sizeof buf, 1000, &err), ==, 0);
  ls_pipe_close (rd);
}

/* A child that forks a grandchild which leaves with setsid(), then exits:
 * as child subreaper we adopt the grandchild, and the tree's end kills
 * and reaps it. */
static int
leave_session (void *arg)
{
  int fd = GPOINTER_TO_INT (arg);
  pid_t g = fork ();
  if (g == 0)
    {
      setsid ();
      for (;;)
        pause ();
    }
  return write (fd, &g, sizeof g) == (ssize_t) sizeof g ? 0 : 1;
}

static void
test_tree_end_adopts_orphans (void)
{
  ls_error err = { 0 };
  g_assert_cmpint (ls_process_tree_adopt_orphans (&err), ==, LS_OK);
  uint64_t since = ls_process_start_time (ls_process_self_pid ());
  int fds[2];
  g_assert_cmpint (pipe (fds), ==, 0);
  ls_process *child = NULL;
  g_assert_cmpint (ls_process_fork (leave_session, GINT_TO_POINTER (fds[1]), &child, &err), ==, LS_OK);
  ls_exit_status st = wait_ended (child);
  g_assert_cmpint (st.kind, ==, LS_EXIT_CODE);
  g_assert_cmpint (st.code, ==, 0);
  pid_t g = 0;
  g_assert_cmpint (read (fds[0], &g, sizeof g), ==, (ssize_t) sizeof g);
  close (fds[0]);
  close (fds[1]);
  /* Adopted: its parent is now us, not init. */
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  while (ls_process_parent_pid (g) != ls_process_self_pid () && g_get_monotonic_time () < deadline)
    g_usleep (10000);
  g_assert_cmpint (ls_process_parent_pid (g), ==, ls_process_self_pid ());
  int left = -1;
  g_assert_cmpint (ls_process_tree_end (0, NULL, since, &left), >=, 1);
  g_assert_cmpint (left, ==, 0);
  g_assert_cmpint (kill (g, 0), ==, -1); /* killed and reaped */
  ls_process_free (child);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/process/not-executable-is-an-error", test_not_executable_is_an_error);
  g_test_add_func ("/platform/process/fork-runs-function", test_fork_runs_function);
  g_test_add_func ("/platform/process/free-kills-and-reaps", test_free_kills_and_reaps);
  g_test_add_func ("/platform/process/forked-child-dies-with-parent", test_forked_child_dies_with_parent);
  g_test_add_func ("/platform/process/signal-names", test_signal_names);
  g_test_add_func ("/platform/process/win32-command-line-quoting", test_win32_command_line_quoting);
  g_test_add_func ("/platform/process/descendant", test_descendant);
  g_test_add_func ("/platform/process/pipe", test_pipe);
  g_test_add_func ("/platform/process/tree-end-adopts-orphans", test_tree_end_adopts_orphans);
  return ls_test_run_checked ();
}
