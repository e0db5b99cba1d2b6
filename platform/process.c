/* What processes have in common on both systems: naming how a child ended,
 * and quoting a Win32 command line (kept here so Linux tests cover it). */
#include "process-private.h"

#include <stdio.h>
#include <string.h>

const char *
ls_signal_name (int signal)
{
  /* Linux x86/arm numbering, which is what the tool reports on. */
  static const char *const names[] = {
    [1] = "SIGHUP",   [2] = "SIGINT",     [3] = "SIGQUIT",  [4] = "SIGILL",
    [5] = "SIGTRAP",  [6] = "SIGABRT",    [7] = "SIGBUS",   [8] = "SIGFPE",
    [9] = "SIGKILL",  [10] = "SIGUSR1",   [11] = "SIGSEGV", [12] = "SIGUSR2",
    [13] = "SIGPIPE", [14] = "SIGALRM",   [15] = "SIGTERM", [16] = "SIGSTKFLT",
    [17] = "SIGCHLD", [18] = "SIGCONT",   [19] = "SIGSTOP", [20] = "SIGTSTP",
    [21] = "SIGTTIN", [22] = "SIGTTOU",   [23] = "SIGURG",  [24] = "SIGXCPU",
    [25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
    [29] = "SIGIO",   [30] = "SIGPWR",    [31] = "SIGSYS",
  };
  if (signal > 0 && signal < (int) (sizeof names / sizeof names[0]) && names[signal])
    return names[signal];
  return "SIG?";
}

static const char *
exception_name (uint32_t code)
{
  switch (code)
    {
    case 0xC0000005u: return "access violation";
    case 0xC000001Du: return "illegal instruction";
    case 0xC0000094u: return "integer divide by zero";
    case 0xC00000FDu: return "stack overflow";
    case 0xC0000409u: return "stack buffer overrun";
    case 0xC000013Au: return "interrupted by Ctrl+C";
    case 0x40010004u: return "terminated by the debugger";
    default: return "unknown exception";
    }
}

void
ls_exit_status_describe (const ls_exit_status *status, char *buf, size_t len)
{
  switch (status->kind)
    {
    case LS_EXIT_CODE:
      snprintf (buf, len, "exited with code %d", status->code);
      break;
    case LS_EXIT_SIGNAL:
      snprintf (buf, len, "killed by signal %d (%s)", status->signal, ls_signal_name (status->signal));
      break;
    case LS_EXIT_EXCEPTION:
      snprintf (buf, len, "crashed with exception 0x%08X (%s)", (unsigned) status->exception,
                exception_name (status->exception));
      break;
    case LS_EXIT_RUNNING:
    default:
      snprintf (buf, len, "still running");
      break;
    }
}

/* The rules of CommandLineToArgvW / the MS C runtime: an argument needs
 * quotes if it is empty or holds space, tab or a quote; inside quotes, a run
 * of backslashes is doubled when a quote follows it (a literal one or the
 * closing one), and a quote is escaped with a backslash. */
int
ls_win32_command_line (const char *const *argv, char *buf, size_t len)
{
  size_t o = 0;

#define PUT(c)                                                                                     \
  do                                                                                               \
    {                                                                                              \
      if (o + 1 >= len)                                                                            \
        return -1;                                                                                 \
      buf[o++] = (c);                                                                              \
    }                                                                                              \
  while (0)

  if (len == 0)
    return -1;
  for (size_t i = 0; argv[i]; i++)
    {
      const char *a = argv[i];
      if (i > 0)
        PUT (' ');
      if (*a && !strpbrk (a, " \t\n\v\""))
        {
          for (; *a; a++)
            PUT (*a);
          continue;
        }
      PUT ('"');
      for (;;)
        {
          size_t backslashes = 0;
          while (*a == '\\')
            {
              backslashes++;
              a++;
            }
          if (*a == '\0')
            {
              for (size_t k = 0; k < backslashes * 2; k++)
                PUT ('\\');
              break;
            }
          if (*a == '"')
            {
              for (size_t k = 0; k < backslashes * 2 + 1; k++)
                PUT ('\\');
              PUT ('"');
            }
          else
            {
              for (size_t k = 0; k < backslashes; k++)
                PUT ('\\');
              PUT (*a);
            }
          a++;
        }
      PUT ('"');
    }
#undef PUT
  buf[o] = '\0';
  return (int) o;
}
