/* Shared memory arenas on Win32: page-file backed sections, named
 * "Local\loadscope-<pid>-<counter>", freed by the kernel with their last
 * handle or view. */
#include "shm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

struct ls_shm {
  HANDLE mapping;
  void *data;
  size_t size;
  char name[64]; /* empty when opened by handle */
  int is_private; /* VirtualAlloc'ed, no mapping */
};

static volatile LONG shm_counter;

static wchar_t *
ascii_to_wide (const char *s, wchar_t *w, size_t cap)
{
  size_t i = 0;
  for (; s[i] && i + 1 < cap; i++)
    w[i] = (wchar_t) (unsigned char) s[i];
  w[i] = L'\0';
  return w;
}

/* Maps the whole section and checks it holds at least size bytes. */
static int
map_view (ls_shm *shm, const char *what, ls_error *err)
{
  MEMORY_BASIC_INFORMATION info;

  shm->data = MapViewOfFile (shm->mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, 0);
  if (!shm->data)
    return ls_error_set_os (err, "MapViewOfFile(%s)", what);
  if (VirtualQuery (shm->data, &info, sizeof info) == 0)
    return ls_error_set_os (err, "VirtualQuery(%s)", what);
  /* The view is the section rounded up to whole pages. */
  if (info.RegionSize < shm->size)
    return ls_error_set (err, LS_ERR_INVALID, "arena %s is %llu bytes, expected %llu", what,
                         (unsigned long long) info.RegionSize, (unsigned long long) shm->size);
  return LS_OK;
}

static void
free_shm (ls_shm *shm)
{
  if (!shm)
    return;
  if (shm->data && shm->is_private)
    VirtualFree (shm->data, 0, MEM_RELEASE);
  else if (shm->data)
    UnmapViewOfFile (shm->data);
  if (shm->mapping)
    CloseHandle (shm->mapping);
  free (shm);
}

int
ls_shm_create (size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;
  wchar_t wname[64];
  int rc;

  *out = NULL;
  if (size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_shm_create: size 0");
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "ls_shm_create: out of memory");
  shm->size = size;
  /* A name is taken when a process that had our pid left an arena behind
   * in a child that still runs: try the next counter. */
  for (int attempt = 0;; attempt++)
    {
      snprintf (shm->name, sizeof shm->name, "Local\\loadscope-%lu-%ld", (unsigned long) GetCurrentProcessId (),
                (long) InterlockedIncrement (&shm_counter));
      ascii_to_wide (shm->name, wname, sizeof wname / sizeof wname[0]);
      shm->mapping = CreateFileMappingW (INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE,
                                         (DWORD) ((uint64_t) size >> 32), (DWORD) ((uint64_t) size & 0xFFFFFFFFu), wname);
      DWORD code = GetLastError ();
      if (!shm->mapping)
        {
          rc = ls_error_set_os_code (err, (int) code, "CreateFileMapping(%s, %llu bytes)", shm->name,
                                     (unsigned long long) size);
          if (code == ERROR_NOT_ENOUGH_MEMORY || code == ERROR_COMMITMENT_LIMIT)
            rc = LS_ERR_NOMEM;
          if (err)
            err->code = rc;
          free_shm (shm);
          return rc;
        }
      if (code != ERROR_ALREADY_EXISTS)
        break;
      CloseHandle (shm->mapping);
      shm->mapping = NULL;
      if (attempt >= 100)
        {
          free_shm (shm);
          return ls_error_set (err, LS_ERR_OS, "CreateFileMapping: every name tried is taken");
        }
    }
  rc = map_view (shm, shm->name, err);
  if (rc != LS_OK)
    {
      free_shm (shm);
      return rc;
    }
  *out = shm;
  return LS_OK;
}

int
ls_shm_create_private (size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;

  *out = NULL;
  if (size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_shm_create_private: size 0");
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "ls_shm_create_private: out of memory");
  /* Large pages need a privilege most accounts lack: plain pages. */
  shm->data = VirtualAlloc (NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (!shm->data)
    {
      int rc = ls_error_set_os (err, "VirtualAlloc(%llu bytes)", (unsigned long long) size);
      free (shm);
      return rc;
    }
  shm->is_private = 1;
  shm->size = size;
  snprintf (shm->name, sizeof shm->name, "private");
  *out = shm;
  return LS_OK;
}

/* No fork on Windows: children map the arena by handle or name. */
int
ls_shm_create_inherited (size_t size, ls_shm **out, ls_error *err)
{
  return ls_shm_create (size, out, err);
}

int
ls_shm_open_name (const char *name, size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;
  wchar_t wname[64];
  int rc;

  *out = NULL;
  if (!name || size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_shm_open_name: no name or size 0");
  if (strlen (name) >= sizeof shm->name)
    return ls_error_set (err, LS_ERR_INVALID, "ls_shm_open_name: name '%s' is too long", name);
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "ls_shm_open_name: out of memory");
  shm->size = size;
  snprintf (shm->name, sizeof shm->name, "%s", name);
  shm->mapping = OpenFileMappingW (FILE_MAP_READ | FILE_MAP_WRITE, FALSE,
                                   ascii_to_wide (name, wname, sizeof wname / sizeof wname[0]));
  if (!shm->mapping)
    {
      DWORD code = GetLastError ();
      rc = ls_error_set_os_code (err, (int) code, "OpenFileMapping(%s)", name);
      if (code == ERROR_FILE_NOT_FOUND)
        rc = LS_ERR_NOT_FOUND;
      if (err)
        err->code = rc;
      free_shm (shm);
      return rc;
    }
  rc = map_view (shm, name, err);
  if (rc != LS_OK)
    {
      free_shm (shm);
      return rc;
    }
  *out = shm;
  return LS_OK;
}

int
ls_shm_open_handle (ls_handle handle, size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;
  char what[48];
  int rc;

  *out = NULL;
  if (handle == LS_HANDLE_INVALID || handle == 0 || size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_shm_open_handle: invalid handle or size 0");
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "ls_shm_open_handle: out of memory");
  shm->size = size;
  shm->mapping = (HANDLE) handle; /* ours now: closed by ls_shm_close */
  snprintf (what, sizeof what, "handle %" PRIdPTR, handle);
  rc = map_view (shm, what, err);
  if (rc != LS_OK)
    {
      if (shm->data)
        UnmapViewOfFile (shm->data);
      free (shm); /* the handle stays the caller's when we fail */
      return rc;
    }
  *out = shm;
  return LS_OK;
}

static size_t
base_page (void)
{
  SYSTEM_INFO si;
  GetSystemInfo (&si);
  return si.dwPageSize ? (size_t) si.dwPageSize : 4096;
}

/* Reading a page of a read-write view of a page-file backed section makes
 * it valid and writable in this process's working set: later writes take
 * no fault, and a read cannot undo another process's write. Large pages
 * need SeLockMemoryPrivilege, which most accounts lack: plain pages. */
int
ls_shm_populate_range (ls_shm *shm, size_t offset, size_t len, ls_error *err)
{
  const volatile unsigned char *p = shm->data;
  size_t step = base_page ();
  size_t to = offset + len < offset || offset + len > shm->size ? shm->size : offset + len;
  unsigned sum = 0;

  (void) err;
  for (size_t at = offset / step * step; at < to; at += step)
    sum += p[at];
  (void) sum;
  return LS_OK;
}

int
ls_shm_populate (ls_shm *shm, ls_error *err)
{
  return ls_shm_populate_range (shm, 0, shm->size, err);
}

size_t
ls_shm_page_bytes (const ls_shm *shm)
{
  (void) shm;
  return base_page ();
}

void *
ls_shm_data (const ls_shm *shm)
{
  return shm ? shm->data : NULL;
}

size_t
ls_shm_size (const ls_shm *shm)
{
  return shm ? shm->size : 0;
}

const char *
ls_shm_name (const ls_shm *shm)
{
  return shm ? shm->name : "";
}

ls_handle
ls_shm_handle (const ls_shm *shm)
{
  return shm ? (ls_handle) shm->mapping : LS_HANDLE_INVALID;
}

void
ls_shm_close (ls_shm *shm)
{
  free_shm (shm);
}
