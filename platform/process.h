/* Child processes: fork a function (POSIX only), spawn an executable with
 * chosen inherited handles, wait with a timeout, kill, and name how a child
 * ended. Children do not outlive their parent: on Linux a child asks for
 * PR_SET_PDEATHSIG, on Win32 every child is put into a job object that
 * kills its members when the parent's handle to it closes. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "handle.h"

#ifdef _WIN32
typedef unsigned long ls_pid; /* DWORD */
#else
typedef int ls_pid;           /* pid_t */
#endif

typedef struct ls_process ls_process;

typedef enum {
  LS_EXIT_RUNNING = 0, /* not ended yet */
  LS_EXIT_CODE,        /* returned or called exit(code) */
  LS_EXIT_SIGNAL,      /* POSIX: killed by a signal */
  LS_EXIT_EXCEPTION,   /* Win32: ended by an exception such as 0xC0000005 */
} ls_exit_kind;

typedef struct ls_exit_status {
  ls_exit_kind kind;
  int code;   /* exit code (LS_EXIT_CODE) */
  int signal; /* signal number (LS_EXIT_SIGNAL) */
  uint32_t exception; /* NTSTATUS (LS_EXIT_EXCEPTION) */
} ls_exit_status;

typedef struct ls_spawn_options {
  const char *path;          /* executable to run */
  const char *const *argv;   /* argv[0] first, NULL-terminated */
  const ls_handle *inherit;  /* handles the child keeps, with the same values */
  size_t n_inherit;
  /* Optional "NAME=value" strings added to the parent's environment, NULL-terminated. */
  const char *const *env_add;
  /* A program whose whole tree the caller ends (process-tree.h): POSIX, a
   * session of its own that dies with this process
   * (ls_process_tree_child_setup); Win32, a process group of its own (the
   * job object already ties it to this process). */
  bool tree_leader;
  /* The child's standard output goes to this process's standard error
   * (its prints stay off an output that is an event stream). */
  bool stdout_to_stderr;
} ls_spawn_options;

/* Starts an executable. A missing or non-executable path, or any other exec
 * failure, is returned as LS_ERR_EXEC naming the path and the reason; it
 * never shows up as a child that exits 127. */
int ls_process_spawn (const ls_spawn_options *options, ls_process **out, ls_error *err);

#ifndef _WIN32
/* Forks a child that runs fn(arg) and exits with its return value. The child
 * dies with its parent (PR_SET_PDEATHSIG where available). POSIX only. */
int ls_process_fork (int (*fn) (void *arg), void *arg, ls_process **out, ls_error *err);
#endif

/* Waits up to timeout_ms (-1 = forever, 0 = poll). Returns LS_OK with *status
 * filled when the child ended, LS_ERR_TIMEOUT when it is still running. The
 * child is reaped once; later calls return the same status. */
int ls_process_wait (ls_process *proc, int64_t timeout_ms, ls_exit_status *status, ls_error *err);

/* Ends the child at once (SIGKILL / TerminateProcess). Not an error if it
 * already ended. */
int ls_process_kill (ls_process *proc, ls_error *err);

ls_pid ls_process_pid (const ls_process *proc);

/* Frees the handle. A child still running is killed and reaped first, so
 * nothing is left behind. */
void ls_process_free (ls_process *proc);

ls_pid ls_process_self_pid (void);

/* Whether process `pid` (not necessarily our child) is running and, when
 * `program` is not NULL, runs a program whose name contains it: on Linux
 * its command line (/proc/<pid>/cmdline, arguments joined by spaces), on
 * Win32 its executable's full path. false: pid <= 0 or too large for a pid,
 * no such process, one we may not signal or open (another user's), one that
 * has ended (Win32: exit code other than STILL_ACTIVE), or a different
 * program. true: running, and the program matches or its name cannot be
 * read (then the caller cannot tell, and should leave it alone). */
bool ls_process_is_alive (int64_t pid, const char *program);

/* Kills, at once, the process group led by pid (POSIX: SIGKILL to -pid;
 * what a started program left behind goes with it). Win32 has no process
 * groups: the process itself is terminated (children live in a job object
 * where that matters). A group that is gone already is not an error. */
int ls_process_kill_group (int64_t pid, ls_error *err);

/* A polite stop asked by another process, so that the run ends as
 * interrupted (recorded with its figures) instead of being killed.
 * ls_process_interrupt asks process `pid`: POSIX sends it SIGINT; Win32 has
 * no signal one process can send another (Ctrl-C events only reach processes
 * sharing a console), so it sets the event "Local\loadscope-interrupt-<pid>"
 * that the process made with ls_process_interrupt_listen, and returns
 * LS_ERR_NOT_FOUND when the process listens to none.
 * ls_process_interrupt_listen makes this process answer by setting *flag to
 * 1: POSIX does nothing here (the caller's SIGINT handler sets the flag);
 * Win32 creates the event and a thread that waits on it. */
int ls_process_interrupt (ls_pid pid, ls_error *err);
int ls_process_interrupt_listen (volatile sig_atomic_t *flag, ls_error *err);

/* For a spawned child: exit when the parent dies. On Linux this asks for
 * PR_SET_PDEATHSIG(SIGKILL) and exits at once if the parent is already gone
 * (expected_parent is the parent's pid as the parent saw it, 0 to skip the
 * check). On Win32 the job object does this and the call does nothing. */
int ls_process_die_with_parent (ls_pid expected_parent, ls_error *err);

/* "exited with code 3", "killed by signal 9 (SIGKILL)",
 * "crashed with exception 0xC0000005 (access violation)", "still running". */
void ls_exit_status_describe (const ls_exit_status *status, char *buf, size_t len);

/* "SIGKILL", "SIGSEGV", ... or "SIG?" for an unknown number. */
const char *ls_signal_name (int signal);

/* The process's arguments as UTF-8. On Win32 main()'s argv is in the ANSI
 * code page, so this rebuilds it from GetCommandLineW(); on POSIX it returns
 * argv as given. The result lives until the process exits. */
char **ls_process_utf8_argv (int argc, char **argv);
