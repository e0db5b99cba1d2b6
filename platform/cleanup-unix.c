#define _POSIX_C_SOURCE 200809L
#include "platform/cleanup.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static const int stops[] = { SIGINT, SIGTERM, SIGHUP };

static void
on_stop (int sig)
{
  ls_cleanup_run_now ();
  /* Ended as the stop would have ended it: the parent sees the signal. */
  signal (sig, SIG_DFL);
  raise (sig);
}

void
ls_cleanup_os_install (void)
{
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
    {
      struct sigaction now;
      /* Only where the stop ends the process: a listener (interrupt.h)
       * counts it and the command ends cleanly; an ignored one stays so. */
      if (sigaction (stops[i], NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL)
        continue;
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = on_stop;
      sigemptyset (&sa.sa_mask);
      for (size_t j = 0; j < sizeof stops / sizeof stops[0]; j++)
        sigaddset (&sa.sa_mask, stops[j]);
      sigaction (stops[i], &sa, NULL);
    }
}

int
ls_cleanup_os_remove (const char *path, ls_cleanup_kind kind)
{
  return kind == LS_CLEANUP_DIR ? rmdir (path) : unlink (path);
}
