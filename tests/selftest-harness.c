#include "selftest-harness.h"

#include "platform/clock.h"

static int n_passed, n_failed;

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
selftest_end (void)
{
  printf ("%d passed, %d failed\n", n_passed, n_failed);
  return n_failed ? 1 : 0;
}
