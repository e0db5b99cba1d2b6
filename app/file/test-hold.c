#include "app/file/test-hold.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

void
ls_test_hold (const char *point, const char *what)
{
  const char *want = g_getenv ("LS_TEST_HOLD");
  if (!want || strcmp (want, point) != 0)
    return;
  /* untranslated: a test hook's line, which the tests wait for */
  fprintf (stderr, "loadscope: holding at %s: %s\n", point, what ? what : "");
  fflush (stderr);
  /* Until the test's signal ends the process (a test that forgot it ends
   * in 10 minutes). */
  for (int i = 0; i < 6000; i++)
    g_usleep (100000);
}
