#include "app/cli/cli-args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <locale.h>
#include <math.h>

#include "app/core/i18n.h"
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
#ifndef G_OS_WIN32
  /* GOption converts text options from the locale's charset: in the C
   * locale (no LANG, as under cron, ssh or a test runner) that is ASCII,
   * and --script-args "--name é" was refused. Arguments are read as UTF-8
   * there, as Python does in the C locale (PEP 538); only the character
   * type changes, never how numbers are written. */
  if (!g_get_charset (NULL))
    {
      const char *was = setlocale (LC_CTYPE, NULL);
      if (was && (strcmp (was, "C") == 0 || strcmp (was, "POSIX") == 0))
        setlocale (LC_CTYPE, "C.UTF-8");
    }
#endif
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

/* Options are read as text and checked here: GOption's own numbers cannot
 * tell "not given" from a value, so -1 passed as "not given". */
gboolean
ls_cli_double_in (const char *option, const char *text, double min, gboolean above_min, double max,
                  const char *hint, double *out, GError **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end == text || *end || isnan (v))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s %s: not a number"), option, text);
      return FALSE;
    }
  if (v > max || (above_min ? v <= min : v < min))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s %s: must be %s %g and at most %g%s%s%s"), option,
                   text, above_min ? _("above") : _("at least"), min, max, hint ? " (" : "", hint ? hint : "",
                   hint ? ")" : "");
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
ls_cli_int_in (const char *option, const char *text, gint64 min, gint64 max, gint64 *out, GError **error)
{
  gint64 v = 0;
  g_autoptr (GError) why = NULL;
  if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &v, &why))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s %s: not a whole number"), option, text);
      return FALSE;
    }
  if (v < min || v > max)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s %s: must be between %lld and %lld"), option, text, (long long) min,
                   (long long) max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

int
ls_cli_usage_error (const char *command, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *message = g_strdup_vprintf (format, ap);
  va_end (ap);
  fprintf (stderr, _("loadscope %s: %s\n"), command, message);
  return 2;
}
