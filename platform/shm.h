/* Shared memory arenas between a parent and its children.
 *
 * Linux: a memfd, so nothing ever appears in /dev/shm and the memory goes away
 * with the last process that maps it, whatever way the processes end. Other
 * POSIX: shm_open and shm_unlink at once, for the same reason. Win32: a
 * page-file backed section, freed by the kernel with its last handle.
 *
 * A child gets the arena by an inherited handle (spawn: pass
 * ls_shm_handle() in ls_spawn_options.inherit; fork: it is inherited) or by
 * name (ls_shm_name(), valid while the creator lives). */
#pragma once

#include <stddef.h>

#include "error.h"
#include "handle.h"

typedef struct ls_shm ls_shm;

int ls_shm_create (size_t size, ls_shm **out, ls_error *err);

/* Memory of this process alone, behind the same interface (no name, no
 * handle: no other process can map it), for an arena no other process
 * writes. Where the OS gives large pages for the asking (Linux's
 * transparent huge pages), it asks: the first touch then takes a few
 * faults instead of one per 4 KiB page. */
int ls_shm_create_private (size_t size, ls_shm **out, ls_error *err);

/* Shared with the children this process forks after it (Linux: an
 * anonymous MAP_SHARED mapping, which may get transparent huge pages
 * where memory files do not); no name, no handle, so a spawned child
 * cannot map it. Win32 (no fork): the same as ls_shm_create. */
int ls_shm_create_inherited (size_t size, ls_shm **out, ls_error *err);

/* Maps an arena created by another process. size must match. */
int ls_shm_open_name (const char *name, size_t size, ls_shm **out, ls_error *err);
/* Takes ownership of an inherited handle: ls_shm_close closes it. */
int ls_shm_open_handle (ls_handle handle, size_t size, ls_shm **out, ls_error *err);

void *ls_shm_data (const ls_shm *shm);
size_t ls_shm_size (const ls_shm *shm);
const char *ls_shm_name (const ls_shm *shm);

/* The handle a spawned child should inherit (made inheritable by spawn). */
ls_handle ls_shm_handle (const ls_shm *shm);

/* Faults every page in for writing, in this process's page table, without
 * changing a byte (Linux: MADV_POPULATE_WRITE, else touching each page
 * with an atomic no-op write; Win32: reading each page), so later writes
 * take no page faults. A forked child does not inherit the page-table
 * entries of a shared mapping: each process populates its own. On failure
 * nothing is lost but the speed; err says why. */
int ls_shm_populate (ls_shm *shm, ls_error *err);
/* The same for bytes [offset, offset + len) of it (clamped to its size). */
int ls_shm_populate_range (ls_shm *shm, size_t offset, size_t len, ls_error *err);

/* Bytes per page of the mapping as the OS backs it now (call after
 * ls_shm_populate): the huge page size where hugetlb pages or transparent
 * huge pages back at least half of it, else the base page. 0: unknown. */
size_t ls_shm_page_bytes (const ls_shm *shm);

/* Unmaps and closes. The memory is freed when the last process closes it. */
void ls_shm_close (ls_shm *shm);
