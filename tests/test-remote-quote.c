/* app/remote/ without a target machine: what TARGET texts are accepted,
 * and that arguments reach a POSIX shell intact through the quoting ssh
 * needs (its arguments joined into one line for `sh -c`) and through an
 * exec: prefix, with nothing in them run. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/remote/remote.h"
#include "tricky-args.h"

#ifndef G_OS_WIN32
static const char *const hostile[] = {
  "a b'c$(touch X);d", "`touch X`", "$HOME", "'", "''", "x;touch X", "a\nb", "--", "-n", "*", "\\", "ü€", NULL,
};
#endif

static void
test_parse (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ls_remote_target) s = ls_remote_target_parse ("ssh:user@gpu1", &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->kind, ==, LS_REMOTE_SSH);
  g_assert_cmpstr (s->host, ==, "user@gpu1");

  /* ssh never prompts, gives up on a host that does not answer, and ends
   * a connection that stops answering. */
  g_autoptr (GPtrArray) argv = ls_remote_argv (s, (const char *const[]) { "true", NULL });
  g_autofree char *joined = g_strjoinv (" ", (char **) argv->pdata);
  g_assert_nonnull (strstr (joined, "-o BatchMode=yes"));
  g_assert_nonnull (strstr (joined, "-o ConnectTimeout=20"));
  g_assert_nonnull (strstr (joined, "-o ServerAliveInterval=15 -o ServerAliveCountMax=4"));

  g_autoptr (ls_remote_target) e = ls_remote_target_parse ("exec:docker exec -i 'my trainer'", &error);
  g_assert_no_error (error);
  g_assert_cmpint (e->kind, ==, LS_REMOTE_EXEC);
  g_assert_cmpuint (g_strv_length (e->prefix), ==, 4);
  g_assert_cmpstr (e->prefix[3], ==, "my trainer");
#ifdef G_OS_WIN32
  /* A Windows path keeps its backslashes. */
  g_autoptr (ls_remote_target) w = ls_remote_target_parse ("exec:C:\\tools\\enter.exe -i \"D:\\my data\"", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (w->prefix), ==, 3);
  g_assert_cmpstr (w->prefix[0], ==, "C:\\tools\\enter.exe");
  g_assert_cmpstr (w->prefix[2], ==, "D:\\my data");
#endif

  const char *bad[] = { "gpu1", "ssh:", "ssh:-oProxyCommand=x", "ssh:a b", "exec:", "exec:'open", "", NULL };
  for (guint i = 0; bad[i]; i++)
    {
      g_autoptr (GError) why = NULL;
      g_autoptr (ls_remote_target) t = ls_remote_target_parse (bad[i], &why);
      g_assert_null (t);
      g_assert_error (why, LS_REMOTE_ERROR, LS_REMOTE_ERROR_TARGET);
      /* The message names what was given. */
      g_assert_nonnull (strstr (why->message, bad[i]));
    }
}

#ifndef G_OS_WIN32
/* Runs argv in dir, returns its stdout. */
static char *
run_in (const char *dir, const char *const *argv)
{
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&out);
}

/* Every argument comes out as it went in, one per NUL-ended record. */
static void
check_args (const char *out, const char *const *expected)
{
  const char *p = out;
  for (guint i = 0; expected[i]; i++)
    {
      g_assert_cmpstr (p, ==, expected[i]);
      p += strlen (p) + 1;
    }
  g_assert_cmpint (*p, ==, '\0');
}

static void
test_through_shells (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ls-remote-quote-XXXXXX", NULL);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  for (guint i = 0; ls_tricky_args[i]; i++)
    g_ptr_array_add (all, (char *) ls_tricky_args[i]);
  for (guint i = 0; hostile[i]; i++)
    g_ptr_array_add (all, (char *) hostile[i]);
  g_ptr_array_add (all, NULL);
  const char *script = "for a in \"$@\"; do printf '%s\\0' \"$a\"; done";

  /* ssh: what the remote shell gets is the quoted words joined by spaces. */
  g_autoptr (ls_remote_target) s = ls_remote_target_parse ("ssh:host", NULL);
  g_autoptr (GPtrArray) sargv = ls_remote_sh_argv (s, script, (const char *const *) all->pdata);
  guint i = 0;
  while (strcmp (sargv->pdata[i], "--") != 0)
    i++;
  g_autoptr (GString) line = g_string_new (NULL);
  for (i++; sargv->pdata[i]; i++)
    g_string_append_printf (line, "%s%s", line->len ? " " : "", (const char *) sargv->pdata[i]);
  const char *sh[] = { "sh", "-c", line->str, NULL };
  g_autofree char *out = run_in (dir, sh);
  check_args (out, (const char *const *) all->pdata);

  /* exec: the prefix, then the argv as it is. */
  g_autoptr (ls_remote_target) e = ls_remote_target_parse ("exec:env LS_X='a b'", NULL);
  g_autoptr (GPtrArray) eargv = ls_remote_sh_argv (e, script, (const char *const *) all->pdata);
  g_assert_cmpstr (eargv->pdata[1], ==, "LS_X=a b");
  g_autofree char *out2 = run_in (dir, (const char *const *) eargv->pdata);
  check_args (out2, (const char *const *) all->pdata);

  /* Nothing ran: no X in the folder the shells ran in. */
  g_autofree char *x = g_build_filename (dir, "X", NULL);
  g_assert_false (g_file_test (x, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

#endif

static void
test_quote (void)
{
  g_autofree char *q = ls_remote_quote ("it's");
  g_assert_cmpstr (q, ==, "'it'\\''s'");
  g_autofree char *empty = ls_remote_quote ("");
  g_assert_cmpstr (empty, ==, "''");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/remote/parse", test_parse);
  g_test_add_func ("/remote/quote", test_quote);
#ifndef G_OS_WIN32
  /* (a POSIX shell here: the target's side) */
  g_test_add_func ("/remote/through-shells", test_through_shells);
#endif
  return g_test_run ();
}
