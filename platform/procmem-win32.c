/* Working set, private bytes and CPU time of a process (psapi). */
#include "procmem.h"

#include <string.h>

#include <windows.h>
#include <psapi.h>

/* Opens pid for reading its counters. A pid that names no process is
 * LS_ERR_NOT_FOUND; so is one that has ended when must_run is set (the
 * process object outlives its process while anyone, such as our own
 * ls_process, holds a handle to it, but it has no memory left to read;
 * its CPU times stay readable). */
static int
open_process (ls_pid pid, int must_run, const char *what, HANDLE *out, ls_error *err)
{
  HANDLE h;

  if (pid == GetCurrentProcessId ())
    {
      *out = GetCurrentProcess (); /* pseudo handle: nothing to close */
      return LS_OK;
    }
  h = OpenProcess (PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);
  if (!h)
    {
      DWORD code = GetLastError ();
      /* ERROR_INVALID_PARAMETER is what OpenProcess says for a pid that does not exist. */
      int rc = code == ERROR_INVALID_PARAMETER ? LS_ERR_NOT_FOUND : LS_ERR_OS;
      ls_error_set_os_code (err, (int) code, "%s: OpenProcess %lu", what, (unsigned long) pid);
      if (err)
        err->code = rc;
      return rc;
    }
  DWORD exit_code = 0;
  if (must_run && GetExitCodeProcess (h, &exit_code) && exit_code != STILL_ACTIVE)
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_NOT_FOUND, "%s: process %lu has ended", what, (unsigned long) pid);
    }
  *out = h;
  return LS_OK;
}

static void
close_process (HANDLE h)
{
  if (h != GetCurrentProcess ())
    CloseHandle (h);
}

int
ls_procmem_read (ls_pid pid, ls_procmem *out, ls_error *err)
{
  PROCESS_MEMORY_COUNTERS_EX pmc;
  HANDLE h;
  int rc;

  if (!out)
    return ls_error_set (err, LS_ERR_INVALID, "ls_procmem_read: no output");
  memset (out, 0, sizeof *out);
  rc = open_process (pid, 1, "ls_procmem_read", &h, err);
  if (rc != LS_OK)
    return rc;
  memset (&pmc, 0, sizeof pmc);
  pmc.cb = sizeof pmc;
  if (!GetProcessMemoryInfo (h, (PROCESS_MEMORY_COUNTERS *) &pmc, sizeof pmc))
    {
      DWORD code = GetLastError ();
      close_process (h);
      return ls_error_set_os_code (err, (int) code, "GetProcessMemoryInfo %lu", (unsigned long) pid);
    }
  close_process (h);
  out->working_set_bytes = (uint64_t) pmc.WorkingSetSize;
  /* PrivateUsage is the process's commit charge, which PagefileUsage also
   * reports on every Windows since XP; Wine fills in only the latter. */
  out->private_bytes = (uint64_t) (pmc.PrivateUsage ? pmc.PrivateUsage : pmc.PagefileUsage);
  out->valid = LS_PROCMEM_WORKING_SET | LS_PROCMEM_PRIVATE;
  return LS_OK;
}

static uint64_t
filetime_ns (const FILETIME *ft)
{
  uint64_t ticks = ((uint64_t) ft->dwHighDateTime << 32) | ft->dwLowDateTime;
  return ticks * 100u; /* 100 ns units */
}

int
ls_proccpu_read (ls_pid pid, uint64_t *user_ns, uint64_t *system_ns, ls_error *err)
{
  FILETIME created, exited, kernel, user;
  HANDLE h;
  int rc;

  rc = open_process (pid, 0, "ls_proccpu_read", &h, err);
  if (rc != LS_OK)
    return rc;
  if (!GetProcessTimes (h, &created, &exited, &kernel, &user))
    {
      DWORD code = GetLastError ();
      close_process (h);
      return ls_error_set_os_code (err, (int) code, "GetProcessTimes %lu", (unsigned long) pid);
    }
  close_process (h);
  if (user_ns)
    *user_ns = filetime_ns (&user);
  if (system_ns)
    *system_ns = filetime_ns (&kernel);
  return LS_OK;
}

int
ls_procfaults_self (uint64_t *faults, ls_error *err)
{
  PROCESS_MEMORY_COUNTERS pmc;

  *faults = 0;
  if (!GetProcessMemoryInfo (GetCurrentProcess (), &pmc, sizeof pmc))
    return ls_error_set_os (err, "GetProcessMemoryInfo (own page faults)");
  *faults = (uint64_t) pmc.PageFaultCount;
  return LS_OK;
}
