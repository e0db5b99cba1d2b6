#define _POSIX_C_SOURCE 200809L
#include "platform/interrupt.h"

#include "platform/cleanup.h"

#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t *counter;
static ls_interrupt_flags mode;
static struct sigaction before_int, before_term;

static void
on_signal (int sig)
{
  if ((mode & LS_INTERRUPT_SECOND_ENDS) && counter && *counter > 0)
    {
      ls_cleanup_run_now ();
      signal (sig, SIG_DFL);
      raise (sig);
      return;
    }
  if (counter)
    (*counter)++;
}

int
ls_interrupt_listen (volatile sig_atomic_t *count, ls_interrupt_flags flags, ls_error *err)
{
  struct sigaction sa;
  (void) err;
  counter = count;
  mode = flags;
  /* sigaction, not signal(): System V's signal() resets the handler after
   * the first delivery, so a second Ctrl-C could not be told apart. */
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, &before_int);
  sigaction (SIGTERM, &sa, &before_term);
  return LS_OK;
}

int
ls_interrupt_takes_next_stop (void)
{
  return counter && !((mode & LS_INTERRUPT_SECOND_ENDS) && *counter > 0);
}

void
ls_interrupt_from_driver_only (void)
{
  setpgid (0, 0);
}

void
ls_interrupt_stop (void)
{
  sigaction (SIGINT, &before_int, NULL);
  sigaction (SIGTERM, &before_term, NULL);
  counter = NULL;
}
