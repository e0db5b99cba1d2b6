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

bool
ls_process_is_descendant (int64_t pid, int64_t ancestor, uint64_t ancestor_start)
{
  if (pid <= 1 || ancestor <= 0 || pid == ancestor)
    return false;
  uint64_t start = ls_process_start_time (pid);
  if (ancestor_start && (start == 0 || start < ancestor_start))
    return false;
  int64_t p = pid;
  for (int level = 0; level < 16; level++)
    {
      p = ls_process_parent_pid (p);
      if (p <= 0)
        return false;
      if (p == ancestor)
        return true;
    }
  return false;
}
