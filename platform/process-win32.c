/* Child processes on Win32: CreateProcessW with an explicit list of
 * inherited handles, every child in one kill-on-close job object. */
#include "process-private.h"
#include "text-win32.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <shellapi.h>

struct ls_process {
  HANDLE process;
  DWORD pid;
  int ended; /* status holds how it ended */
  ls_exit_status status;
};

/* ------------------------------------------------------------------ text */

/* The quoted command line as UTF-16. */
static wchar_t *
build_command_line (const char *const *argv, ls_error *err)
{
  size_t len = 1024;
  for (;;)
    {
      char *buf = malloc (len);
      if (!buf)
        {
          ls_error_set (err, LS_ERR_NOMEM, "building the command line: out of memory");
          return NULL;
        }
      int n = ls_win32_command_line (argv, buf, len);
      if (n >= 0)
        {
          wchar_t *w = ls_win_utf8_to_wide (buf);
          if (!w)
            ls_error_set_os (err, "building the command line: converting it to UTF-16");
          free (buf);
          return w;
        }
      free (buf);
      if (len >= 1024 * 1024)
        {
          ls_error_set (err, LS_ERR_INVALID, "building the command line: the arguments are too long");
          return NULL;
        }
      len *= 2;
    }
}

/* ----------------------------------------------------------- environment */

/* Length of the name in "NAME=value". Entries such as "=C:=C:\dir" keep
 * their leading '=' in the name. */
static size_t
env_name_len (const wchar_t *entry)
{
  const wchar_t *eq = wcschr (entry + (entry[0] == L'=' ? 1 : 0), L'=');
  return eq ? (size_t) (eq - entry) : wcslen (entry);
}

static int
env_name_equal (const wchar_t *a, const wchar_t *b)
{
  size_t na = env_name_len (a), nb = env_name_len (b);
  return na == nb && CompareStringOrdinal (a, (int) na, b, (int) nb, TRUE) == CSTR_EQUAL;
}

static int
env_compare (const void *pa, const void *pb)
{
  const wchar_t *a = *(const wchar_t *const *) pa, *b = *(const wchar_t *const *) pb;
  /* Windows wants the block sorted by name, case-insensitively. */
  return CompareStringOrdinal (a, (int) env_name_len (a), b, (int) env_name_len (b), TRUE) - CSTR_EQUAL;
}

/* A copy of this process's environment with env_add merged in (an added
 * NAME replaces an existing one, whatever its case), as a sorted
 * CREATE_UNICODE_ENVIRONMENT block. */
static wchar_t *
build_environment (const char *const *env_add, ls_error *err)
{
  wchar_t *current = GetEnvironmentStringsW ();
  wchar_t **added = NULL, **entries = NULL, *block = NULL;
  size_t n_added = 0, n_current = 0, n = 0, total = 1;

  if (!current)
    {
      ls_error_set_os (err, "GetEnvironmentStringsW");
      return NULL;
    }
  while (env_add[n_added])
    n_added++;
  for (const wchar_t *p = current; *p; p += wcslen (p) + 1)
    n_current++;

  added = calloc (n_added + 1, sizeof *added);
  entries = calloc (n_added + n_current + 1, sizeof *entries);
  if (!added || !entries)
    {
      ls_error_set (err, LS_ERR_NOMEM, "building the environment: out of memory");
      goto out;
    }
  for (size_t i = 0; i < n_added; i++)
    {
      if (!strchr (env_add[i], '=') || env_add[i][0] == '=')
        {
          ls_error_set (err, LS_ERR_INVALID, "environment entry '%s' is not NAME=value", env_add[i]);
          goto out;
        }
      added[i] = ls_win_utf8_to_wide (env_add[i]);
      if (!added[i])
        {
          ls_error_set_os (err, "environment entry '%s': converting it to UTF-16", env_add[i]);
          goto out;
        }
    }
  for (wchar_t *p = current; *p; p += wcslen (p) + 1)
    {
      int replaced = 0;
      for (size_t i = 0; i < n_added && !replaced; i++)
        replaced = env_name_equal (p, added[i]);
      if (!replaced)
        entries[n++] = p;
    }
  for (size_t i = 0; i < n_added; i++)
    {
      int later = 0; /* the last of several entries with one name wins */
      for (size_t j = i + 1; j < n_added && !later; j++)
        later = env_name_equal (added[i], added[j]);
      if (!later)
        entries[n++] = added[i];
    }
  qsort (entries, n, sizeof *entries, env_compare);

  for (size_t i = 0; i < n; i++)
    total += wcslen (entries[i]) + 1;
  block = malloc ((total + 1) * sizeof *block); /* + 1: an empty block is two NULs */
  if (!block)
    {
      ls_error_set (err, LS_ERR_NOMEM, "building the environment: out of memory");
      goto out;
    }
  {
    wchar_t *o = block;
    for (size_t i = 0; i < n; i++)
      {
        size_t len = wcslen (entries[i]) + 1;
        memcpy (o, entries[i], len * sizeof *o);
        o += len;
      }
    o[0] = L'\0';
    o[1] = L'\0';
  }

out:
  if (added)
    for (size_t i = 0; i < n_added; i++)
      free (added[i]);
  free (added);
  free (entries);
  FreeEnvironmentStringsW (current);
  return block;
}

/* ------------------------------------------------------------ job object */

static INIT_ONCE job_once = INIT_ONCE_STATIC_INIT;
static HANDLE job;
static DWORD job_error;
static const char *job_call;

static BOOL CALLBACK
job_init (PINIT_ONCE once, PVOID param, PVOID *context)
{
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;

  /* NULL security attributes: the handle is not inheritable, so only this
   * process holds the job, and when it ends (however it ends) the kernel
   * closes the handle and kills every child. */
  job = CreateJobObjectW (NULL, NULL);
  if (!job)
    {
      job_error = GetLastError ();
      job_call = "CreateJobObject";
      return TRUE;
    }
  memset (&limits, 0, sizeof limits);
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!SetInformationJobObject (job, JobObjectExtendedLimitInformation, &limits, sizeof limits))
    {
      job_error = GetLastError ();
      job_call = "SetInformationJobObject(KILL_ON_JOB_CLOSE)";
      CloseHandle (job);
      job = NULL;
    }
  return TRUE;
}

static HANDLE
get_job (ls_error *err)
{
  InitOnceExecuteOnce (&job_once, job_init, NULL, NULL);
  if (!job)
    ls_error_set_os_code (err, (int) job_error, "%s", job_call);
  return job;
}

/* ----------------------------------------------------------------- spawn */

/* Handles get HANDLE_FLAG_INHERIT only for the moment of CreateProcess, and
 * under this lock, so that no other spawn (ours or anyone's that inherits
 * every inheritable handle) picks them up by accident. */
static SRWLOCK spawn_lock = SRWLOCK_INIT;

#define MAX_INHERIT 64

static int
add_handle (HANDLE *list, DWORD *old_flags, size_t *n, HANDLE h)
{
  for (size_t i = 0; i < *n; i++)
    if (list[i] == h)
      return 1; /* the list must not repeat a handle */
  if (*n >= MAX_INHERIT)
    return 0;
  if (!GetHandleInformation (h, &old_flags[*n]))
    return -1;
  list[(*n)++] = h;
  return 1;
}

int
ls_process_spawn (const ls_spawn_options *options, ls_process **out, ls_error *err)
{
  HANDLE list[MAX_INHERIT];
  DWORD old_flags[MAX_INHERIT];
  size_t n_list = 0, n_marked = 0;
  wchar_t *wpath = NULL, *cmdline = NULL, *env = NULL;
  LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
  STARTUPINFOEXW si;
  PROCESS_INFORMATION pi;
  ls_process *proc = NULL;
  HANDLE std[3];
  int rc = LS_OK;
  BOOL ok;
  DWORD create_error = 0;

  *out = NULL;
  if (!options || !options->path || !options->argv || !options->argv[0])
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_spawn: no path or argv");
  if (options->n_inherit > 0 && !options->inherit)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_spawn: n_inherit without handles");
  if (!get_job (err))
    {
      ls_error_prefix (err, "spawning %s", options->path);
      return err ? err->code : LS_ERR_OS;
    }

  wpath = ls_win_utf8_to_wide (options->path);
  if (!wpath)
    {
      rc = ls_error_set_os (err, "spawning %s: converting the path to UTF-16", options->path);
      if (err)
        err->code = rc = LS_ERR_EXEC;
      goto out;
    }
  cmdline = build_command_line (options->argv, err);
  if (!cmdline)
    {
      rc = err ? err->code : LS_ERR_INVALID;
      ls_error_prefix (err, "spawning %s", options->path);
      goto out;
    }
  if (options->env_add && options->env_add[0])
    {
      env = build_environment (options->env_add, err);
      if (!env)
        {
          rc = err ? err->code : LS_ERR_INVALID;
          ls_error_prefix (err, "spawning %s", options->path);
          goto out;
        }
    }

  /* The handles the caller names, with the same values in the child... */
  for (size_t i = 0; i < options->n_inherit; i++)
    {
      HANDLE h = (HANDLE) options->inherit[i];
      int added = add_handle (list, old_flags, &n_list, h);
      if (added <= 0)
        {
          if (added < 0)
            rc = ls_error_set_os (err, "spawning %s: handle %" PRIdPTR " cannot be inherited", options->path,
                                  options->inherit[i]);
          else
            rc = ls_error_set (err, LS_ERR_INVALID, "spawning %s: more than %d handles to inherit", options->path,
                               MAX_INHERIT);
          if (err)
            err->code = rc = LS_ERR_INVALID;
          goto out;
        }
    }
  /* ...and, as a POSIX child keeps fds 0-2, the standard handles, so its
   * output goes where ours does. One that is no real handle (no console,
   * closed) is passed as NULL. */
  std[0] = GetStdHandle (STD_INPUT_HANDLE);
  std[1] = GetStdHandle (options->stdout_to_stderr ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);
  std[2] = GetStdHandle (STD_ERROR_HANDLE);
  for (int i = 0; i < 3; i++)
    if (std[i] == INVALID_HANDLE_VALUE || !std[i] || add_handle (list, old_flags, &n_list, std[i]) <= 0)
      std[i] = NULL; /* the list holds each handle once: stdout may be stderr */

  memset (&si, 0, sizeof si);
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = std[0];
  si.StartupInfo.hStdOutput = std[1];
  si.StartupInfo.hStdError = std[2];
  if (n_list > 0)
    {
      SIZE_T size = 0;
      InitializeProcThreadAttributeList (NULL, 1, 0, &size);
      attrs = malloc (size);
      if (!attrs)
        {
          rc = ls_error_set (err, LS_ERR_NOMEM, "spawning %s: out of memory", options->path);
          goto out;
        }
      if (!InitializeProcThreadAttributeList (attrs, 1, 0, &size))
        {
          free (attrs);
          attrs = NULL;
          rc = ls_error_set_os (err, "spawning %s: InitializeProcThreadAttributeList", options->path);
          goto out;
        }
      if (!UpdateProcThreadAttribute (attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list, n_list * sizeof list[0],
                                      NULL, NULL))
        {
          rc = ls_error_set_os (err, "spawning %s: UpdateProcThreadAttribute(HANDLE_LIST)", options->path);
          goto out;
        }
      si.lpAttributeList = attrs;
    }

  AcquireSRWLockExclusive (&spawn_lock);
  for (; n_marked < n_list; n_marked++)
    if (!SetHandleInformation (list[n_marked], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT))
      break;
  if (n_marked < n_list)
    {
      create_error = GetLastError ();
      ok = FALSE;
    }
  else
    {
      ok = CreateProcessW (wpath, cmdline, NULL, NULL, n_list > 0,
                           CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT
                               | (options->tree_leader ? CREATE_NEW_PROCESS_GROUP : 0),
                           env, NULL,
                           &si.StartupInfo, &pi);
      if (!ok)
        create_error = GetLastError ();
    }
  for (size_t i = 0; i < n_marked; i++)
    SetHandleInformation (list[i], HANDLE_FLAG_INHERIT, old_flags[i] & HANDLE_FLAG_INHERIT);
  ReleaseSRWLockExclusive (&spawn_lock);

  if (!ok)
    {
      if (n_marked < n_list)
        rc = ls_error_set_os_code (err, (int) create_error, "spawning %s: SetHandleInformation(INHERIT) on %p",
                                   options->path, (void *) list[n_marked]);
      else
        rc = ls_error_set_os_code (err, (int) create_error, "CreateProcess %s", options->path);
      if (err)
        err->code = rc = LS_ERR_EXEC;
      goto out;
    }

  if (!AssignProcessToJobObject (job, pi.hProcess))
    {
      rc = ls_error_set_os (err, "spawning %s: AssignProcessToJobObject", options->path);
      goto kill;
    }
  if (ResumeThread (pi.hThread) == (DWORD) -1)
    {
      rc = ls_error_set_os (err, "spawning %s: ResumeThread", options->path);
      goto kill;
    }
  CloseHandle (pi.hThread);

  proc = calloc (1, sizeof *proc);
  if (!proc)
    {
      rc = ls_error_set (err, LS_ERR_NOMEM, "spawning %s: out of memory", options->path);
      TerminateProcess (pi.hProcess, 1);
      WaitForSingleObject (pi.hProcess, INFINITE);
      CloseHandle (pi.hProcess);
      goto out;
    }
  proc->process = pi.hProcess;
  proc->pid = pi.dwProcessId;
  proc->status.kind = LS_EXIT_RUNNING;
  *out = proc;
  goto out;

kill:
  TerminateProcess (pi.hProcess, 1);
  WaitForSingleObject (pi.hProcess, INFINITE);
  CloseHandle (pi.hThread);
  CloseHandle (pi.hProcess);
  if (err)
    err->code = rc = LS_ERR_EXEC;

out:
  if (attrs)
    {
      DeleteProcThreadAttributeList (attrs);
      free (attrs);
    }
  free (env);
  free (cmdline);
  free (wpath);
  return rc;
}

/* ------------------------------------------------------------ wait, kill */

static void
record_exit (ls_process *proc)
{
  DWORD code = 0;

  GetExitCodeProcess (proc->process, &code);
  memset (&proc->status, 0, sizeof proc->status);
  /* An NTSTATUS error (severity bits 11) is how a process that died of an
   * unhandled exception ends; anything else is a plain exit code. */
  if ((code & 0xC0000000u) == 0xC0000000u)
    {
      proc->status.kind = LS_EXIT_EXCEPTION;
      proc->status.exception = (uint32_t) code;
    }
  else
    {
      proc->status.kind = LS_EXIT_CODE;
      proc->status.code = (int) code;
    }
  proc->ended = 1;
}

int
ls_process_wait (ls_process *proc, int64_t timeout_ms, ls_exit_status *status, ls_error *err)
{
  if (!proc)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_wait: no process");
  if (!proc->ended)
    {
      int64_t left = timeout_ms;
      DWORD r;
      for (;;)
        {
          /* INFINITE is 0xFFFFFFFF: longer finite waits go in slices. */
          DWORD slice = left < 0 ? INFINITE : left >= (int64_t) INFINITE ? INFINITE - 1 : (DWORD) left;
          r = WaitForSingleObject (proc->process, slice);
          if (r != WAIT_TIMEOUT || left < 0 || (left -= slice) <= 0)
            break;
        }
      if (r == WAIT_TIMEOUT)
        {
          if (status)
            memset (status, 0, sizeof *status); /* LS_EXIT_RUNNING */
          return ls_error_set (err, LS_ERR_TIMEOUT, "process %lu still running after %lld ms",
                               (unsigned long) proc->pid, (long long) timeout_ms);
        }
      if (r != WAIT_OBJECT_0)
        return ls_error_set_os (err, "WaitForSingleObject(process %lu)", (unsigned long) proc->pid);
      record_exit (proc);
    }
  if (status)
    *status = proc->status;
  return LS_OK;
}

int
ls_process_kill (ls_process *proc, ls_error *err)
{
  if (!proc)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_kill: no process");
  if (proc->ended)
    return LS_OK;
  if (!TerminateProcess (proc->process, 1))
    {
      DWORD code = GetLastError ();
      /* Terminating a process that has already ended fails with access denied. */
      if (WaitForSingleObject (proc->process, 0) == WAIT_OBJECT_0)
        return LS_OK;
      return ls_error_set_os_code (err, (int) code, "TerminateProcess(process %lu)", (unsigned long) proc->pid);
    }
  return LS_OK;
}

static void
interrupt_event_name (ls_pid pid, wchar_t *name, size_t len)
{
  _snwprintf (name, len, L"Local\\loadscope-interrupt-%lu", (unsigned long) pid);
  name[len - 1] = 0;
}

int
ls_process_interrupt (ls_pid pid, ls_error *err)
{
  wchar_t name[64];
  interrupt_event_name (pid, name, sizeof name / sizeof name[0]);
  HANDLE ev = OpenEventW (EVENT_MODIFY_STATE, FALSE, name);
  if (!ev)
    {
      DWORD code = GetLastError ();
      if (code == ERROR_FILE_NOT_FOUND)
        return ls_error_set (err, LS_ERR_NOT_FOUND, "process %lu does not listen for an interrupt", (unsigned long) pid);
      return ls_error_set_os_code (err, (int) code, "OpenEvent(interrupt of process %lu)", (unsigned long) pid);
    }
  BOOL ok = SetEvent (ev);
  DWORD code = GetLastError ();
  CloseHandle (ev);
  if (!ok)
    return ls_error_set_os_code (err, (int) code, "SetEvent(interrupt of process %lu)", (unsigned long) pid);
  return LS_OK;
}

typedef struct {
  HANDLE event;
  volatile sig_atomic_t *flag;
} interrupt_watch;

static DWORD WINAPI
interrupt_watch_main (void *arg)
{
  interrupt_watch *w = arg;
  if (WaitForSingleObject (w->event, INFINITE) == WAIT_OBJECT_0)
    *w->flag = 1;
  return 0;
}

int
ls_process_interrupt_listen (volatile sig_atomic_t *flag, ls_error *err)
{
  static interrupt_watch watch; /* lives as long as the process */
  wchar_t name[64];
  if (watch.event)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_interrupt_listen: already listening");
  interrupt_event_name (GetCurrentProcessId (), name, sizeof name / sizeof name[0]);
  /* Manual reset: once asked, it stays asked. Not inherited. */
  HANDLE ev = CreateEventW (NULL, TRUE, FALSE, name);
  if (!ev)
    return ls_error_set_os (err, "CreateEvent(interrupt)");
  watch.event = ev;
  watch.flag = flag;
  HANDLE thread = CreateThread (NULL, 64 * 1024, interrupt_watch_main, &watch, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
  if (!thread)
    {
      int rc = ls_error_set_os (err, "CreateThread(interrupt watch)");
      CloseHandle (ev);
      watch.event = NULL;
      return rc;
    }
  CloseHandle (thread);
  return LS_OK;
}

ls_pid
ls_process_pid (const ls_process *proc)
{
  return proc ? proc->pid : 0;
}

void
ls_process_free (ls_process *proc)
{
  if (!proc)
    return;
  if (!proc->ended && WaitForSingleObject (proc->process, 0) != WAIT_OBJECT_0)
    {
      TerminateProcess (proc->process, 1);
      WaitForSingleObject (proc->process, INFINITE);
    }
  CloseHandle (proc->process);
  free (proc);
}

ls_pid
ls_process_self_pid (void)
{
  return GetCurrentProcessId ();
}

bool
ls_process_is_alive (int64_t pid, const char *program)
{
  HANDLE h;
  DWORD code = 0;
  bool alive;

  if (pid <= 0 || pid > (int64_t) MAXDWORD)
    return false;
  /* Fails for a pid that is not there, and for one we may not open
   * (another user's): not ours either way. */
  h = OpenProcess (PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);
  if (!h)
    return false;
  /* A process that exited with code 259 reads as running: rare, and the
   * program check below still has to match. */
  alive = GetExitCodeProcess (h, &code) && code == STILL_ACTIVE;
  if (alive && program)
    {
      wchar_t image[MAX_PATH * 4];
      DWORD n = (DWORD) (sizeof image / sizeof image[0]);
      if (QueryFullProcessImageNameW (h, 0, image, &n))
        {
          char *utf8 = ls_win_wide_to_utf8 (image);
          if (utf8)
            {
              alive = strstr (utf8, program) != NULL;
              free (utf8);
            }
        }
      /* The name cannot be read: cannot tell, leave it alone. */
    }
  CloseHandle (h);
  return alive;
}

int
ls_process_die_with_parent (ls_pid expected_parent, ls_error *err)
{
  /* The parent's job object (kill on close) already ends us with it. */
  return LS_OK;
}

/* ------------------------------------------------------------------ argv */

char **
ls_process_utf8_argv (int argc, char **argv)
{
  static char **utf8_argv; /* lives as long as the process, on purpose */
  wchar_t **wargv;
  int n = 0;

  if (utf8_argv)
    return utf8_argv;
  wargv = CommandLineToArgvW (GetCommandLineW (), &n);
  if (!wargv)
    return argv;
  if (n != argc)
    {
      /* The C runtime split the line differently: keep its argv, which
       * matches argc. */
      LocalFree (wargv);
      return argv;
    }
  char **result = calloc ((size_t) n + 1, sizeof *result);
  if (!result)
    {
      LocalFree (wargv);
      return argv;
    }
  for (int i = 0; i < n; i++)
    {
      result[i] = ls_win_wide_to_utf8 (wargv[i]);
      if (!result[i])
        {
          for (int j = 0; j < i; j++)
            free (result[j]);
          free (result);
          LocalFree (wargv);
          return argv;
        }
    }
  LocalFree (wargv);
  utf8_argv = result;
  return utf8_argv;
}

int
ls_process_kill_group (int64_t pid, ls_error *err)
{
  if (pid <= 0 || pid > UINT32_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "ls_process_kill_group: no process %" PRId64, pid);
  HANDLE h = OpenProcess (PROCESS_TERMINATE, FALSE, (DWORD) pid);
  if (!h)
    return LS_OK; /* gone already (or never ours to end) */
  BOOL ok = TerminateProcess (h, 1);
  DWORD code = GetLastError ();
  CloseHandle (h);
  if (!ok && code != ERROR_ACCESS_DENIED)
    return ls_error_set_os_code (err, (int) code, "TerminateProcess(process %" PRId64 ")", pid);
  return LS_OK;
}
