#include "test-cli-util.h"

#include <gio/gio.h>

ls_test_cli
ls_test_loadscope_env (const char *const *env, const char *const *args)
{
  const char *exe = g_getenv ("LOADSCOPE");
  g_assert_nonnull (exe);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) exe);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocessLauncher) launcher
      = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  for (guint i = 0; env && env[i]; i++)
    {
      g_auto (GStrv) kv = g_strsplit (env[i], "=", 2);
      g_subprocess_launcher_setenv (launcher, kv[0], kv[1] ? kv[1] : "", TRUE);
    }
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  ls_test_cli r = { 0 };
  g_subprocess_communicate_utf8 (p, NULL, NULL, &r.out, &r.err, &error);
  g_assert_no_error (error);
  r.status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
  if (g_subprocess_get_if_signaled (p))
    r.signal = g_subprocess_get_term_sig (p);
  if (r.signal)
    g_test_message ("loadscope %s ... killed by signal %d; stderr:\n%s", args[0] ? args[0] : "",
                    g_subprocess_get_term_sig (p), r.err);
  return r;
}

ls_test_cli
ls_test_loadscopev (const char *const *args)
{
  return ls_test_loadscope_env (NULL, args);
}

ls_test_cli
ls_test_loadscope_va (const char *first, va_list ap)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) a);
  g_ptr_array_add (args, NULL);
  return ls_test_loadscopev ((const char *const *) args->pdata);
}

ls_test_cli
ls_test_loadscope (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  ls_test_cli r = ls_test_loadscope_va (first, ap);
  va_end (ap);
  return r;
}

void
ls_test_cli_clear (ls_test_cli *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

GSubprocess *
ls_test_cli_start (GError **error, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list ap;
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  return g_subprocess_newv ((const char *const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
}
