/* Win32 has no sessions to leave, no subreaper and no PR_SET_PDEATHSIG:
 * ls_process_spawn puts every child into a job object that kills its
 * members (a child's children included, unless they broke away) when the
 * parent's handle to it closes. Ending a tree while this process goes on
 * walks the parent links of a process snapshot instead. */
#include "process-tree.h"

#include <stdlib.h>
#include <windows.h>
#include <tlhelp32.h>

#include "process-identity.h"

int
ls_process_tree_adopt_orphans (ls_error *err)
{
  return ls_error_set (err, LS_ERR_UNSUPPORTED,
                       "Windows has no child subreaper: a tree is held by the job object its root was started in");
}

/* The processes whose parent chain leads to one of `roots` (n of them,
 * room for cap), started no earlier than `since` where it is given (so a
 * reused pid is not taken for a child); appended to roots. */
static size_t
add_descendants (DWORD *roots, size_t n, size_t cap, uint64_t since)
{
  HANDLE snap = CreateToolhelp32Snapshot (TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE)
    return n;
  /* pid and parent of every process (a machine may run thousands) */
  DWORD (*all)[2] = NULL;
  size_t n_all = 0, cap_all = 0;
  PROCESSENTRY32 e;
  e.dwSize = sizeof e;
  for (BOOL more = Process32First (snap, &e); more; more = Process32Next (snap, &e))
    {
      if (n_all == cap_all)
        {
          size_t grown = cap_all ? cap_all * 2 : 1024;
          void *bigger = realloc (all, grown * sizeof *all);
          if (!bigger)
            break;
          all = bigger;
          cap_all = grown;
        }
      all[n_all][0] = e.th32ProcessID;
      all[n_all][1] = e.th32ParentProcessID;
      n_all++;
    }
  CloseHandle (snap);
  for (bool grew = true; grew && n < cap;)
    {
      grew = false;
      for (size_t i = 0; i < n_all && n < cap; i++)
        {
          bool known = false, child = false;
          for (size_t k = 0; k < n; k++)
            {
              known |= roots[k] == all[i][0];
              child |= roots[k] == all[i][1];
            }
          if (known || !child || all[i][0] == 0)
            continue;
          if (since && ls_process_start_time (all[i][0]) < since)
            continue;
          roots[n++] = all[i][0];
          grew = true;
        }
    }
  free (all);
  return n;
}

int
ls_process_tree_end (int64_t leader, const char *marker, uint64_t since, int *left)
{
  (void) marker;
  int ended = 0;
  if (left)
    *left = 0;
  if (leader <= 0 || leader > (int64_t) UINT32_MAX)
    return 0;
  /* The leader and what it started, found before any of them ends (an
   * orphan keeps its dead parent's pid). The job object would end them
   * too, but only when this process exits. */
  DWORD tree[256] = { (DWORD) leader };
  size_t n = add_descendants (tree, 1, 256, since);
  for (size_t i = 0; i < n; i++)
    {
      HANDLE h = OpenProcess (PROCESS_TERMINATE | SYNCHRONIZE, FALSE, tree[i]);
      if (!h)
        continue;
      if (TerminateProcess (h, 1))
        {
          ended++;
          if (i > 0 && WaitForSingleObject (h, 2000) != WAIT_OBJECT_0 && left)
            (*left)++;
        }
      CloseHandle (h);
    }
  return ended;
}
