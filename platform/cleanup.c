/* The table of armed paths (cleanup.h): slots a signal handler may read at
 * any moment. A slot is claimed (FILLING), its path copied, then ARMED; the
 * handler reads only ARMED slots. */
#include "platform/cleanup.h"

#include <stdatomic.h>
#include <string.h>

enum { SLOT_FREE, SLOT_FILLING, SLOT_ARMED };

static atomic_int state[LS_CLEANUP_SLOTS];
static char paths[LS_CLEANUP_SLOTS][LS_CLEANUP_PATH_MAX];
static ls_cleanup_kind kinds[LS_CLEANUP_SLOTS];

int
ls_cleanup_arm (const char *path, ls_cleanup_kind kind)
{
  size_t len = path ? strlen (path) : 0;
  if (len == 0 || len >= LS_CLEANUP_PATH_MAX)
    return -1;
  for (int i = 0; i < LS_CLEANUP_SLOTS; i++)
    {
      int expected = SLOT_FREE;
      if (!atomic_compare_exchange_strong (&state[i], &expected, SLOT_FILLING))
        continue;
      memcpy (paths[i], path, len + 1);
      kinds[i] = kind;
      atomic_store (&state[i], SLOT_ARMED);
      ls_cleanup_os_install ();
      return i;
    }
  return -1;
}

void
ls_cleanup_disarm (int slot)
{
  if (slot >= 0 && slot < LS_CLEANUP_SLOTS)
    atomic_store (&state[slot], SLOT_FREE);
}

void
ls_cleanup_run_now (void)
{
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < LS_CLEANUP_SLOTS; i++)
      {
        ls_cleanup_kind want = pass == 0 ? LS_CLEANUP_FILE : LS_CLEANUP_DIR;
        int expected = SLOT_ARMED;
        if (kinds[i] != want || atomic_load (&state[i]) != SLOT_ARMED)
          continue;
        /* Claimed, so that a second stop on another thread does not
         * remove a path a later arm reused. */
        if (!atomic_compare_exchange_strong (&state[i], &expected, SLOT_FILLING))
          continue;
        ls_cleanup_os_remove (paths[i], kinds[i]);
        atomic_store (&state[i], SLOT_FREE);
      }
}
