/* Win32 has no sessions to leave, no subreaper and no PR_SET_PDEATHSIG:
 * ls_process_spawn puts every child into a job object that kills its
 * members (a child's children included, unless they broke away) when the
 * parent's handle to it closes, which is what ends a tree here. */
#include "process-tree.h"

#include <windows.h>

int
ls_process_tree_adopt_orphans (ls_error *err)
{
  return ls_error_set (err, LS_ERR_UNSUPPORTED,
                       "Windows has no child subreaper: a tree is held by the job object its root was started in");
}

int
ls_process_tree_end (int64_t leader, const char *marker, uint64_t since, int *left)
{
  (void) marker;
  (void) since;
  int ended = 0;
  if (left)
    *left = 0;
  if (leader <= 0 || leader > (int64_t) UINT32_MAX)
    return 0;
  HANDLE h = OpenProcess (PROCESS_TERMINATE, FALSE, (DWORD) leader);
  if (!h)
    return 0;
  if (TerminateProcess (h, 1))
    ended++;
  CloseHandle (h);
  return ended;
}
