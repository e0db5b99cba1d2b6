#include "platform/process-identity.h"

#include <windows.h>

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
