#include "platform/cleanup.h"

#include <stdlib.h>
#include <windows.h>

#include "platform/interrupt.h"
#include "platform/text-win32.h"

static volatile LONG installed;

/* On a thread of the console's own. A listener registered later is asked
 * first and takes the stop; one registered earlier is asked after this, so
 * a counted stop is told apart here. */
static BOOL WINAPI
on_console (DWORD type)
{
  if ((type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT || type == CTRL_CLOSE_EVENT) && !ls_interrupt_takes_next_stop ())
    ls_cleanup_run_now ();
  return FALSE; /* the next handler, or the default: the process ends */
}

void
ls_cleanup_os_install (void)
{
  if (InterlockedCompareExchange (&installed, 1, 0) == 0)
    SetConsoleCtrlHandler (on_console, TRUE);
}

int
ls_cleanup_os_remove (const char *path, ls_cleanup_kind kind)
{
  wchar_t *w = ls_win_utf8_to_wide (path);
  if (!w)
    return -1;
  BOOL ok = kind == LS_CLEANUP_DIR ? RemoveDirectoryW (w) : DeleteFileW (w);
  free (w);
  return ok ? 0 : -1;
}
