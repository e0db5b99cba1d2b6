#include "app/cli/cli-args.h"

/* Every parsed copy, reachable until exit: commands keep pointers into them. */
static GPtrArray *kept_args;

static void
keep (char **strv)
{
  if (!kept_args)
    kept_args = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (kept_args, strv);
}

gboolean
ls_cli_parse_args (GOptionContext *context, int *argc, char ***argv, GError **error)
{
  /* parse_strv frees the strings it removes, so it gets copies of its own. */
  char **copy = g_new0 (char *, (gsize) *argc + 1);
  for (int i = 0; i < *argc; i++)
    copy[i] = g_strdup ((*argv)[i]);
  keep (copy);
  gboolean ok = g_option_context_parse_strv (context, &copy, error);
  kept_args->pdata[kept_args->len - 1] = copy; /* parse_strv may move the array */
  *argv = copy;
  *argc = (int) g_strv_length (copy);
  return ok;
}

char **
ls_cli_utf8_argv (int *argc, char **argv)
{
#ifdef G_OS_WIN32
  char **wide = g_win32_get_command_line ();
  keep (wide);
  *argc = (int) g_strv_length (wide);
  return wide;
#else
  return argv;
#endif
}
