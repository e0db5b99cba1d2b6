#include "platform/interrupt.h"

#include <windows.h>

#include "platform/process.h"

static volatile sig_atomic_t *counter;
static ls_interrupt_flags mode;

/* On a thread of the console's own: counts, or (the second stop, when
 * asked) lets the console's default handler end the process. */
static BOOL WINAPI
on_console (DWORD type)
{
  if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT && type != CTRL_CLOSE_EVENT)
    return FALSE;
  if (!counter)
    return FALSE;
  if ((mode & LS_INTERRUPT_SECOND_ENDS) && *counter > 0)
    return FALSE;
  (*counter)++;
  return TRUE;
}

int
ls_interrupt_listen (volatile sig_atomic_t *count, ls_interrupt_flags flags, ls_error *err)
{
  counter = count;
  mode = flags;
  SetConsoleCtrlHandler (on_console, TRUE);
  /* a stop from a sweep or the window: the process's named event */
  return ls_process_interrupt_listen (count, err);
}

int
ls_interrupt_takes_next_stop (void)
{
  return counter && !((mode & LS_INTERRUPT_SECOND_ENDS) && *counter > 0);
}

void
ls_interrupt_from_driver_only (void)
{
}

void
ls_interrupt_stop (void)
{
  SetConsoleCtrlHandler (on_console, FALSE);
  counter = NULL;
}
