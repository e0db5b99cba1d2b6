/* The little file-system access the datasets need: list a folder, tell a
 * folder from a file, read a whole file. Paths are UTF-8 on every system. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum {
  LS_FS_MISSING = 0,
  LS_FS_FILE,
  LS_FS_DIR,
  LS_FS_OTHER,
} ls_fs_kind;

/* What is at path (symbolic links followed). LS_FS_MISSING when nothing. */
ls_fs_kind ls_fs_kind_of (const char *path, uint64_t *size);

typedef struct ls_dir_entry {
  char *name;     /* file name only */
  ls_fs_kind kind;
} ls_dir_entry;

/* The entries of a folder except "." and "..", sorted by name (byte order,
 * as Python's sorted() on str). Free with ls_fs_entries_free. */
int ls_fs_list_dir (const char *path, ls_dir_entry **entries, size_t *count, ls_error *err);
void ls_fs_entries_free (ls_dir_entry *entries, size_t count);

/* Reads a whole file into *buf (grown with realloc as needed; *cap is its
 * size) and returns its length in *len. */
int ls_fs_read_file (const char *path, uint8_t **buf, size_t *cap, size_t *len, ls_error *err);

/* How ls_fs_read_regular reads. */
enum {
  LS_FS_READ_NOFOLLOW = 1, /* refuse a symbolic link (a reparse point) as the file itself */
  LS_FS_READ_TAIL = 2,     /* a longer file gives its last max bytes (else it is refused) */
};

/* Reads at most max bytes of a regular file, for input another user may
 * have planted (a shared run folder): a FIFO, a device or a folder is
 * refused before a byte is read and never blocks the open; a file longer
 * than max is refused, or with LS_FS_READ_TAIL read from size - max on.
 * *buf: malloc'ed, NUL-terminated, *len bytes; *size (may be NULL): the
 * whole file's size. LS_ERR_NOT_FOUND when nothing is at path,
 * LS_ERR_INVALID (the message says why) for what is refused. */
int ls_fs_read_regular (const char *path, unsigned flags, size_t max, char **buf, size_t *len, uint64_t *size,
                        ls_error *err);

/* What is at path itself: a symbolic link (a reparse point on Windows) is
 * LS_FS_OTHER, not what it points at. */
ls_fs_kind ls_fs_kind_of_link (const char *path, uint64_t *size);

/* Asks the system to drop a file's pages from its cache, so the next read
 * comes from the storage (posix_fadvise POSIX_FADV_DONTNEED; no root
 * needed; pages still mapped or dirty stay). LS_ERR_UNSUPPORTED where the
 * system has no such call for an unprivileged program (Windows). */
int ls_fs_drop_cache (const char *path, ls_error *err);

/* The running executable's own path (symbolic links resolved on Linux),
 * malloc'ed; NULL when the system cannot say. Used to find what ships
 * beside it: the worker executable, the settings schema. */
char *ls_fs_self_exe (void);

/* Whether two paths name the same existing file (hard links and other
 * spellings included): device and inode on POSIX; volume serial number and
 * file index on Windows, where stat() has no inode. False when either is
 * missing. */
bool ls_fs_same_file (const char *a, const char *b);

/* Joins a folder and a name with the system's separator. malloc'ed. */
char *ls_fs_join (const char *dir, const char *name);

/* Makes a rename or a new file in the folder durable: the folder's entry
 * synced to the disk (POSIX fsync of the folder). Windows: nothing to do
 * (NTFS journals its metadata), LS_OK. */
int ls_fs_sync_dir (const char *dir, ls_error *err);
