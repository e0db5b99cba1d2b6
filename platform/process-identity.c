#include "platform/process-identity.h"

#include "platform/process.h"

bool
ls_process_is_same (int64_t pid, uint64_t start)
{
  if (!ls_process_is_alive (pid, NULL))
    return false;
  if (start == 0)
    return true;
  /* Where the OS cannot say now, leave it alone: it may be ours. */
  uint64_t now = ls_process_start_time (pid);
  return now == 0 || now == start;
}
