#include "selftest-harness.h"

#include <ctype.h>

#include "platform/clock.h"

#ifdef _WIN32
#include <windows.h>
#endif

static int n_passed, n_failed;

char **
selftest_start (int argc, char **argv)
{
  argv = ls_process_utf8_argv (argc, argv);
#ifdef _WIN32
  SetErrorMode (SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
#endif
  return argv;
}

const char *
selftest_partner (int argc, char **argv, const char *subject, const char *role, const char *file,
                  const char *env_var)
{
  const char *path = argc > 1 ? argv[1] : getenv (env_var);
  if (!path || !*path)
    {
      /* The usage names the argument as the file's name in capitals. */
      char arg[64];
      size_t n = 0;
      for (; file[n] && n < sizeof arg - 1; n++)
        arg[n] = (char) toupper ((unsigned char) file[n]);
      arg[n] = '\0';
      fprintf (stderr, "usage: %s-selftest %s (or set %s)\n", subject, arg, env_var);
      printf ("FAIL - setup: no %s path\n0 passed, 1 failed\n", file);
      return NULL;
    }
  printf ("# %s self-test, %s %s\n", subject, role, path);
  fflush (stdout);
  return path;
}

void
check (int ok, const char *name, const char *fmt, ...)
{
  if (ok)
    {
      n_passed++;
      printf ("ok - %s\n", name);
    }
  else
    {
      char why[640];
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (why, sizeof why, fmt, ap);
      va_end (ap);
      n_failed++;
      printf ("FAIL - %s: %s\n", name, why);
    }
  fflush (stdout);
}

void
pass_with (const char *name, const char *fmt, ...)
{
  char detail[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (detail, sizeof detail, fmt, ap);
  va_end (ap);
  n_passed++;
  printf ("ok - %s (%s)\n", name, detail);
  fflush (stdout);
}

const char *
describe (const ls_exit_status *st)
{
  static char buf[128];
  ls_exit_status_describe (st, buf, sizeof buf);
  return buf;
}

double
ms_since (uint64_t t0)
{
  return (double) (ls_clock_ns () - t0) / 1e6;
}

int
selftest_end (uint64_t t0)
{
  printf ("# took %.1f s\n", ms_since (t0) / 1000.0);
  printf ("%d passed, %d failed\n", n_passed, n_failed);
  return n_failed ? 1 : 0;
}
