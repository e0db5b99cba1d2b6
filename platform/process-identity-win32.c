#include "platform/process-identity.h"

#include <windows.h>

#include <tlhelp32.h>

uint64_t
ls_process_start_time (int64_t pid)
{
  FILETIME created, exited, kernel, user;
  uint64_t start = 0;

  if (pid <= 0 || pid > UINT32_MAX)
    return 0;
  HANDLE h = OpenProcess (PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);
  if (!h)
    return 0;
  if (GetProcessTimes (h, &created, &exited, &kernel, &user))
    start = (uint64_t) created.dwHighDateTime << 32 | created.dwLowDateTime;
  CloseHandle (h);
  return start;
}

int64_t
ls_process_parent_pid (int64_t pid)
{
  int64_t parent = 0;
  if (pid <= 0 || pid > UINT32_MAX)
    return 0;
  HANDLE snap = CreateToolhelp32Snapshot (TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE)
    return 0;
  PROCESSENTRY32 e;
  e.dwSize = sizeof e;
  for (BOOL ok = Process32First (snap, &e); ok; ok = Process32Next (snap, &e))
    if (e.th32ProcessID == (DWORD) pid)
      {
        parent = e.th32ParentProcessID;
        break;
      }
  CloseHandle (snap);
  return parent;
}
