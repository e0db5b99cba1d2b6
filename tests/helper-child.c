#define _GNU_SOURCE /* getsid */
/* A child process that misbehaves on demand, so the tests of platform/ (and
 * later the worker pool) exercise crashes, hangs, exit codes, inherited
 * handles and shared memory for real. Plain C: it is built for Windows too.
 *
 *   helper-child exit N               exit with code N
 *   helper-child crash                die of SIGSEGV (Windows: an access violation)
 *   helper-child hang                 sleep forever
 *   helper-child sleep MS             sleep, then exit 0
 *   helper-child echo HANDLE          echo every channel message until closed
 *   helper-child shm-fill H|name SIZE BYTE     fill an arena with BYTE
 *   helper-child shm-crash HANDLE SIZE         map an arena, then crash
 *   helper-child has-handle HANDLE    exit 0 if the handle is open here, 3 if not
 *   helper-child die-with-parent PPID [FILE]  ask to die with the parent, write
 *                                     "ready" to FILE, then hang
 *   helper-child check-args ARGS...   exit 0 if ARGS are tests/tricky-args.h
 *   helper-child env NAME VALUE       exit 0 if NAME is set to VALUE
 *   helper-child std-same             exit 0 if stdout is stderr, 6 if not
 *   helper-child session-leader       exit 0 if it leads its own session
 *                                     (POSIX), 5 if not; Windows: 0
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/channel.h"
#include "platform/clock.h"
#include "platform/handle.h"
#include "platform/process.h"
#include "platform/shm.h"
#include "tricky-args.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* Whether standard output and standard error are one file (a spawn's
 * stdout_to_stderr). */
static int
std_same (void)
{
#ifdef _WIN32
  HANDLE out = GetStdHandle (STD_OUTPUT_HANDLE), err = GetStdHandle (STD_ERROR_HANDLE);
  if (out == err)
    return 0;
  BY_HANDLE_FILE_INFORMATION a, b;
  if (GetFileInformationByHandle (out, &a) && GetFileInformationByHandle (err, &b)
      && a.dwVolumeSerialNumber == b.dwVolumeSerialNumber && a.nFileIndexHigh == b.nFileIndexHigh
      && a.nFileIndexLow == b.nFileIndexLow)
    return 0;
  return 6;
#else
  struct stat a, b;
  if (fstat (1, &a) != 0 || fstat (2, &b) != 0)
    return 6;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 0 : 6;
#endif
}

static int
fail (const char *what, const ls_error *err)
{
  fprintf (stderr, "helper-child: %s: %s\n", what, err ? err->message : "bad arguments");
  return 100;
}

/* Ends like a crash. POSIX: SIGSEGV with its default action, raised rather
 * than provoked so the sanitizers' handlers stay out of it. Windows: a real
 * access violation, whose exception code the parent must name. */
static void
crash (void)
{
#ifdef _WIN32
  volatile int *volatile p = NULL;
  *p = 42;
#else
  signal (SIGSEGV, SIG_DFL);
  raise (SIGSEGV);
#endif
}

static void
hang (void)
{
  for (;;)
    ls_sleep_ms (1000);
}

static int
open_arena (const char *spec, size_t size, ls_shm **shm, ls_error *err)
{
  ls_handle h;
  if (ls_handle_parse (spec, &h) == 0)
    return ls_shm_open_handle (h, size, shm, err);
  return ls_shm_open_name (spec, size, shm, err);
}

static int
cmd_echo (const char *handle_text)
{
  ls_error err = { 0 };
  ls_handle h;
  ls_channel *ch = NULL;
  char buf[LS_CHANNEL_MSG_MAX];

  if (ls_handle_parse (handle_text, &h) != 0)
    return fail ("echo", NULL);
  if (ls_channel_from_handle (h, &ch, &err) != LS_OK)
    return fail ("echo", &err);
  for (;;)
    {
      int n = ls_channel_recv (ch, buf, sizeof buf, -1, &err);
      if (n == LS_ERR_CLOSED)
        break;
      if (n < 0)
        return fail ("echo recv", &err);
      if (ls_channel_send (ch, buf, (size_t) n, &err) != LS_OK)
        return fail ("echo send", &err);
    }
  ls_channel_close (ch);
  return 0;
}

static int
has_handle (const char *text)
{
  ls_handle h;
  if (ls_handle_parse (text, &h) != 0)
    return fail ("has-handle", NULL);
#ifdef _WIN32
  DWORD flags;
  return GetHandleInformation ((HANDLE) h, &flags) ? 0 : 3;
#else
  return fcntl ((int) h, F_GETFD) >= 0 ? 0 : 3;
#endif
}

static int
check_args (int argc, char **argv)
{
  int i = 0;
  for (; ls_tricky_args[i]; i++)
    {
      if (i >= argc)
        {
          fprintf (stderr, "helper-child: check-args: got %d arguments, want more\n", argc);
          return 4;
        }
      if (strcmp (argv[i], ls_tricky_args[i]) != 0)
        {
          fprintf (stderr, "helper-child: check-args: argument %d is [%s], want [%s]\n", i, argv[i],
                   ls_tricky_args[i]);
          return 4;
        }
    }
  if (i != argc)
    {
      fprintf (stderr, "helper-child: check-args: got %d arguments, want %d\n", argc, i);
      return 4;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  ls_error err = { 0 };
  argv = ls_process_utf8_argv (argc, argv);
  const char *cmd = argc > 1 ? argv[1] : "";

  if (strcmp (cmd, "exit") == 0 && argc == 3)
    return atoi (argv[2]);
  if (strcmp (cmd, "crash") == 0)
    {
      crash ();
      return 0;
    }
  if (strcmp (cmd, "hang") == 0)
    hang ();
  if (strcmp (cmd, "sleep") == 0 && argc == 3)
    {
      ls_sleep_ms ((uint32_t) atoi (argv[2]));
      return 0;
    }
  if (strcmp (cmd, "echo") == 0 && argc == 3)
    return cmd_echo (argv[2]);
  if (strcmp (cmd, "shm-fill") == 0 && argc == 5)
    {
      ls_shm *shm = NULL;
      if (open_arena (argv[2], (size_t) strtoull (argv[3], NULL, 10), &shm, &err) != LS_OK)
        return fail ("shm-fill", &err);
      memset (ls_shm_data (shm), atoi (argv[4]), ls_shm_size (shm));
      ls_shm_close (shm);
      return 0;
    }
  if (strcmp (cmd, "shm-crash") == 0 && argc == 4)
    {
      ls_shm *shm = NULL;
      if (open_arena (argv[2], (size_t) strtoull (argv[3], NULL, 10), &shm, &err) != LS_OK)
        return fail ("shm-crash", &err);
      ((volatile char *) ls_shm_data (shm))[0] = 1;
      crash ();
      return 0;
    }
  if (strcmp (cmd, "has-handle") == 0 && argc == 3)
    return has_handle (argv[2]);
  if (strcmp (cmd, "die-with-parent") == 0 && (argc == 3 || argc == 4))
    {
      if (ls_process_die_with_parent ((ls_pid) strtoul (argv[2], NULL, 10), &err) != LS_OK)
        return fail ("die-with-parent", &err);
      if (argc == 4)
        {
          FILE *f = fopen (argv[3], "w");
          if (!f)
            return 101;
          fputs ("ready\n", f);
          fclose (f);
        }
      hang ();
    }
  if (strcmp (cmd, "std-same") == 0)
    return std_same ();
  if (strcmp (cmd, "session-leader") == 0)
#ifdef _WIN32
    return 0;
#else
    return getsid (0) == getpid () ? 0 : 5;
#endif
  if (strcmp (cmd, "check-args") == 0)
    return check_args (argc - 2, argv + 2);
  if (strcmp (cmd, "env") == 0 && argc == 4)
    {
      const char *v = getenv (argv[2]);
      return v && strcmp (v, argv[3]) == 0 ? 0 : 5;
    }

  fprintf (stderr, "helper-child: unknown command '%s' (see the comment at the top of tests/helper-child.c)\n", cmd);
  return 99;
}
