#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "clock.h"
#include "process-tree.h"

extern char **environ;

struct ls_process {
  pid_t pid;
  int pidfd; /* -1 where pidfd_open is unavailable */
  int reaped;
  ls_exit_status status;
};

static ls_process *
process_new (pid_t pid)
{
  ls_process *p = calloc (1, sizeof *p);
  if (!p)
    return NULL;
  p->pid = pid;
  p->pidfd = -1;
#if defined(__linux__) && defined(SYS_pidfd_open)
  /* A pidfd becomes readable when the child ends: waiting with a timeout
   * is then one poll() instead of a sleep loop. */
  p->pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  if (p->pidfd >= 0)
    fcntl (p->pidfd, F_SETFD, FD_CLOEXEC);
#endif
  return p;
}

/* env_add entries override same-named variables of the parent's environment. */
static char **
merged_environment (const char *const *env_add)
{
  size_t n_env = 0, n_add = 0, o = 0;
  while (environ[n_env])
    n_env++;
  while (env_add[n_add])
    n_add++;
  char **envp = calloc (n_env + n_add + 1, sizeof *envp);
  if (!envp)
    return NULL;
  for (size_t i = 0; i < n_env; i++)
    {
      const char *eq = strchr (environ[i], '=');
      size_t name_len = eq ? (size_t) (eq - environ[i]) : strlen (environ[i]);
      int overridden = 0;
      for (size_t k = 0; k < n_add && !overridden; k++)
        overridden = strncmp (env_add[k], environ[i], name_len) == 0 && env_add[k][name_len] == '=';
      if (!overridden)
        envp[o++] = environ[i];
    }
  for (size_t k = 0; k < n_add; k++)
    envp[o++] = (char *) env_add[k];
  envp[o] = NULL;
  return envp;
}

/* fork + exec for a tree leader, as posix_spawn cannot ask for death with
 * the parent. Between fork and exec only async-signal-safe calls; an exec
 * failure comes back through a close-on-exec pipe, so it is an error here
 * and never a child exiting 127. Returns 0 or an errno. */
static int
spawn_tree_leader (const ls_spawn_options *o, char **envp, pid_t *out_pid)
{
  int report[2];
  if (pipe2 (report, O_CLOEXEC) != 0)
    return errno;
  pid_t parent = getpid ();
  pid_t pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      close (report[0]);
      close (report[1]);
      return e;
    }
  if (pid == 0)
    {
      ls_process_tree_child_setup (parent);
      sigset_t none;
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      struct sigaction dfl;
      memset (&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
          sigaction (sig, &dfl, NULL); /* the C library's own refuse, harmlessly */
      for (size_t i = 0; i < o->n_inherit; i++)
        fcntl ((int) o->inherit[i], F_SETFD, 0);
      if (o->stdout_to_stderr)
        dup2 (2, 1);
      execve (o->path, (char *const *) o->argv, envp);
      int e = errno;
      if (write (report[1], &e, sizeof e) < 0)
        _exit (127);
      _exit (127);
    }
  close (report[1]);
  int e = 0;
  ssize_t n;
  do
    n = read (report[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  close (report[0]);
  if (n == (ssize_t) sizeof e)
    {
      waitpid (pid, NULL, 0);
      return e ? e : ENOEXEC;
    }
  *out_pid = pid;
  return 0;
}

int
ls_process_spawn (const ls_spawn_options *options, ls_process **out, ls_error *err)
{
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  sigset_t none, all;
  char **envp = environ;
  pid_t pid = -1;
  int rc;

  *out = NULL;
  if (!options || !options->path || !options->argv || !options->argv[0])
    return ls_error_set (err, LS_ERR_INVALID, "spawn: no executable or argv given");

  if (options->env_add)
    {
      envp = merged_environment (options->env_add);
      if (!envp)
        return ls_error_set (err, LS_ERR_NOMEM, "spawn %s: out of memory", options->path);
    }

  posix_spawn_file_actions_init (&actions);
  for (size_t i = 0; i < options->n_inherit; i++)
    {
      /* dup2 onto itself clears FD_CLOEXEC in the child only (glibc >= 2.29,
       * POSIX 2024), so the parent's descriptors stay close-on-exec. */
      int fd = (int) options->inherit[i];
      posix_spawn_file_actions_adddup2 (&actions, fd, fd);
    }
  if (options->stdout_to_stderr)
    posix_spawn_file_actions_adddup2 (&actions, 2, 1);

  /* The child starts with default signal dispositions and an empty mask,
   * whatever the parent did with SIGPIPE or SIGCHLD. */
  posix_spawnattr_init (&attr);
  sigemptyset (&none);
  sigfillset (&all);
  sigdelset (&all, SIGKILL);
  sigdelset (&all, SIGSTOP);
  posix_spawnattr_setsigmask (&attr, &none);
  posix_spawnattr_setsigdefault (&attr, &all);
  posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  /* glibc's posix_spawn reports exec failures (ENOENT, EACCES, ENOEXEC) as
   * its return value, so a bad path never becomes a child exiting 127. */
  if (options->tree_leader)
    rc = spawn_tree_leader (options, envp, &pid);
  else
    rc = posix_spawn (&pid, options->path, &actions, &attr, (char *const *) options->argv, envp);

  posix_spawnattr_destroy (&attr);
  posix_spawn_file_actions_destroy (&actions);
  if (envp != environ)
    free (envp);

  if (rc != 0)
    {
      char reason[160];
      ls_os_strerror (rc, reason, sizeof reason);
      ls_error_set (err, LS_ERR_EXEC, "cannot start %s: %s", options->path, reason);
      if (err)
        err->os_code = rc;
      return LS_ERR_EXEC;
    }

  *out = process_new (pid);
  if (!*out)
    {
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return ls_error_set (err, LS_ERR_NOMEM, "spawn %s: out of memory", options->path);
    }
  return LS_OK;
}

int
ls_process_fork (int (*fn) (void *arg), void *arg, ls_process **out, ls_error *err)
{
  pid_t parent = getpid ();
  pid_t pid;

  *out = NULL;
  /* Buffered output would otherwise be written twice, once by each process. */
  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    return ls_error_set_os (err, "fork");
  if (pid == 0)
    {
#ifdef __linux__
      prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
      if (getppid () != parent)
        _exit (70); /* the parent died before we could watch it */
      _exit (fn (arg));
    }
  *out = process_new (pid);
  if (!*out)
    {
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return ls_error_set (err, LS_ERR_NOMEM, "fork: out of memory");
    }
  return LS_OK;
}

static void
record_status (ls_process *proc, int wstatus)
{
  proc->reaped = 1;
  if (WIFEXITED (wstatus))
    {
      proc->status.kind = LS_EXIT_CODE;
      proc->status.code = WEXITSTATUS (wstatus);
    }
  else if (WIFSIGNALED (wstatus))
    {
      proc->status.kind = LS_EXIT_SIGNAL;
      proc->status.signal = WTERMSIG (wstatus);
    }
}

/* Returns 1 when reaped, 0 when still running, negative on error. */
static int
try_reap (ls_process *proc, ls_error *err)
{
  int wstatus = 0;
  pid_t r;

  do
    r = waitpid (proc->pid, &wstatus, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return ls_error_set_os (err, "waitpid %d", (int) proc->pid);
  if (r == 0)
    return 0;
  record_status (proc, wstatus);
  return 1;
}

int
ls_process_wait (ls_process *proc, int64_t timeout_ms, ls_exit_status *status, ls_error *err)
{
  uint64_t deadline = timeout_ms < 0 ? 0 : ls_clock_ns () + (uint64_t) timeout_ms * 1000000u;
  uint32_t nap_ms = 1;

  while (!proc->reaped)
    {
      int r = try_reap (proc, err);
      if (r < 0)
        return r;
      if (r == 1)
        break;

      int64_t left_ms = -1;
      if (timeout_ms >= 0)
        {
          uint64_t now = ls_clock_ns ();
          if (now >= deadline)
            return ls_error_set (err, LS_ERR_TIMEOUT, "process %d still running after %lld ms",
                                 (int) proc->pid, (long long) timeout_ms);
          left_ms = (int64_t) ((deadline - now + 999999u) / 1000000u);
        }
      if (proc->pidfd >= 0)
        {
          struct pollfd pfd = { .fd = proc->pidfd, .events = POLLIN };
          int timeout = left_ms < 0 || left_ms > 1000 ? 1000 : (int) left_ms;
          poll (&pfd, 1, timeout);
        }
      else
        {
          uint32_t nap = nap_ms;
          if (left_ms >= 0 && (int64_t) nap > left_ms)
            nap = (uint32_t) left_ms;
          ls_sleep_ms (nap);
          nap_ms = nap_ms < 20 ? nap_ms * 2 : 20;
        }
    }
  if (status)
    *status = proc->status;
  return LS_OK;
}

int
ls_process_kill (ls_process *proc, ls_error *err)
{
  if (proc->reaped)
    return LS_OK;
  if (kill (proc->pid, SIGKILL) != 0 && errno != ESRCH)
    return ls_error_set_os (err, "kill %d", (int) proc->pid);
  return LS_OK;
}

int
ls_process_interrupt (ls_pid pid, ls_error *err)
{
  if (kill (pid, SIGINT) != 0)
    return ls_error_set_os (err, "kill(%d, SIGINT)", (int) pid);
  return LS_OK;
}

int
ls_process_interrupt_listen (volatile sig_atomic_t *flag, ls_error *err)
{
  (void) flag;
  (void) err;
  return LS_OK;
}

ls_pid
ls_process_pid (const ls_process *proc)
{
  return proc->pid;
}

void
ls_process_free (ls_process *proc)
{
  if (!proc)
    return;
  if (!proc->reaped)
    {
      kill (proc->pid, SIGKILL);
      ls_process_wait (proc, -1, NULL, NULL);
    }
  if (proc->pidfd >= 0)
    close (proc->pidfd);
  free (proc);
}

ls_pid
ls_process_self_pid (void)
{
  return getpid ();
}

bool
ls_process_is_alive (int64_t pid, const char *program)
{
  char path[64];
  char cmdline[4096];
  ssize_t len;
  int fd;

  if (pid <= 0 || pid != (int64_t) (pid_t) pid)
    return false;
  /* EPERM too: a process we may not signal is not ours. */
  if (kill ((pid_t) pid, 0) != 0)
    return false;
  if (!program)
    return true;
  snprintf (path, sizeof path, "/proc/%" PRId64 "/cmdline", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return true; /* cannot tell (no /proc): leave it alone */
  do
    len = read (fd, cmdline, sizeof cmdline - 1);
  while (len < 0 && errno == EINTR);
  close (fd);
  if (len < 0)
    return true;
  /* Arguments are NUL-separated (the last one NUL-terminated): join them
   * with spaces. A longer command line is cut at 4 KiB. */
  cmdline[len] = '\0';
  for (ssize_t i = 0; i + 1 < len; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = ' ';
  return strstr (cmdline, program) != NULL;
}

int
ls_process_die_with_parent (ls_pid expected_parent, ls_error *err)
{
#ifdef __linux__
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0)
    return ls_error_set_os (err, "prctl(PR_SET_PDEATHSIG)");
#endif
  /* The parent may have died before the request took effect. */
  if (expected_parent != 0 && getppid () != expected_parent)
    _exit (70);
  return LS_OK;
}

char **
ls_process_utf8_argv (int argc, char **argv)
{
  (void) argc;
  return argv;
}

int
ls_process_kill_group (int64_t pid, ls_error *err)
{
  if (pid <= 1 || pid > INT32_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_kill_group: no process group %" PRId64, pid);
  if (kill ((pid_t) -pid, SIGKILL) != 0 && errno != ESRCH)
    return ls_error_set_os (err, "kill(-%" PRId64 ", SIGKILL)", pid);
  return LS_OK;
}
