#include "fs.h"
#include "text-win32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

void ls_fs_sort_entries (ls_dir_entry *entries, size_t count);

ls_fs_kind
ls_fs_kind_of (const char *path, uint64_t *size)
{
  WIN32_FILE_ATTRIBUTE_DATA a;
  wchar_t *w = ls_win_utf8_to_wide (path);
  BOOL ok = w && GetFileAttributesExW (w, GetFileExInfoStandard, &a);
  free (w);
  if (!ok)
    return LS_FS_MISSING;
  if (size)
    *size = ((uint64_t) a.nFileSizeHigh << 32) | a.nFileSizeLow;
  return (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? LS_FS_DIR : LS_FS_FILE;
}

int
ls_fs_list_dir (const char *path, ls_dir_entry **entries, size_t *count, ls_error *err)
{
  char *pattern = ls_fs_join (path, "*");
  wchar_t *wpattern = pattern ? ls_win_utf8_to_wide (pattern) : NULL;
  WIN32_FIND_DATAW fd;
  HANDLE h;
  ls_dir_entry *list = NULL;
  size_t n = 0, cap = 0;

  *entries = NULL;
  *count = 0;
  free (pattern);
  if (!wpattern)
    return ls_error_set (err, LS_ERR_NOMEM, "%s: out of memory", path);
  h = FindFirstFileW (wpattern, &fd);
  free (wpattern);
  if (h == INVALID_HANDLE_VALUE)
    {
      if (GetLastError () == ERROR_FILE_NOT_FOUND)
        return LS_OK; /* an empty folder */
      return ls_error_set_os (err, "%s", path);
    }
  do
    {
      if (wcscmp (fd.cFileName, L".") == 0 || wcscmp (fd.cFileName, L"..") == 0)
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 64;
          ls_dir_entry *grown = realloc (list, cap * sizeof *list);
          if (!grown)
            break;
          list = grown;
        }
      list[n].name = ls_win_wide_to_utf8 (fd.cFileName);
      if (!list[n].name)
        break;
      list[n].kind = (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? LS_FS_DIR : LS_FS_FILE;
      n++;
    }
  while (FindNextFileW (h, &fd));
  FindClose (h);
  ls_fs_sort_entries (list, n);
  *entries = list;
  *count = n;
  return LS_OK;
}

int
ls_fs_drop_cache (const char *path, ls_error *err)
{
  /* Windows drops cached file pages only from the whole standby list
   * (NtSetSystemInformation, administrator rights); there is no per-file
   * call an ordinary program may make. */
  return ls_error_set (err, LS_ERR_UNSUPPORTED,
                       "%s: Windows cannot drop one file from its cache without administrator rights", path);
}

int
ls_fs_sync_dir (const char *dir, ls_error *err)
{
  (void) dir;
  (void) err;
  return LS_OK;
}

int
ls_fs_read_file (const char *path, uint8_t **buf, size_t *cap, size_t *len, ls_error *err)
{
  wchar_t *w = ls_win_utf8_to_wide (path);
  HANDLE h = w ? CreateFileW (w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL)
               : INVALID_HANDLE_VALUE;
  LARGE_INTEGER size;
  DWORD got = 0;

  free (w);
  *len = 0;
  if (h == INVALID_HANDLE_VALUE)
    return ls_error_set_os (err, "%s", path);
  if (!GetFileSizeEx (h, &size) || size.QuadPart > (LONGLONG) 0x7fffffff)
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_INVALID, "%s: cannot read its size, or it is over 2 GB", path);
    }
  if ((size_t) size.QuadPart + 1 > *cap)
    {
      uint8_t *grown = realloc (*buf, (size_t) size.QuadPart + 1);
      if (!grown)
        {
          CloseHandle (h);
          return ls_error_set (err, LS_ERR_NOMEM, "%s: out of memory", path);
        }
      *buf = grown;
      *cap = (size_t) size.QuadPart + 1;
    }
  if (!ReadFile (h, *buf, (DWORD) size.QuadPart, &got, NULL))
    {
      ls_error_set_os (err, "reading %s", path);
      CloseHandle (h);
      return LS_ERR_OS;
    }
  CloseHandle (h);
  *len = got;
  return LS_OK;
}

char *
ls_fs_self_exe (void)
{
  /* MAX_PATH is not a limit here: grow until the name fits. */
  for (DWORD cap = 260; cap <= 32768; cap *= 2) {
    wchar_t *w = malloc (cap * sizeof *w);
    if (!w)
      return NULL;
    DWORD n = GetModuleFileNameW (NULL, w, cap);
    if (n > 0 && n < cap) {
      char *s = ls_win_wide_to_utf8 (w);
      free (w);
      return s;
    }
    free (w);
    if (n == 0)
      return NULL;
  }
  return NULL;
}

/* The identity of an existing file, opened without locking anyone out. */
static bool
file_identity (const char *path, BY_HANDLE_FILE_INFORMATION *info)
{
  wchar_t *w = ls_win_utf8_to_wide (path);
  HANDLE h = w ? CreateFileW (w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS, NULL)
               : INVALID_HANDLE_VALUE;
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    return false;
  BOOL ok = GetFileInformationByHandle (h, info);
  CloseHandle (h);
  return ok;
}

bool
ls_fs_same_file (const char *a, const char *b)
{
  BY_HANDLE_FILE_INFORMATION ia, ib;
  return file_identity (a, &ia) && file_identity (b, &ib) && ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber
         && ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}

ls_fs_kind
ls_fs_kind_of_link (const char *path, uint64_t *size)
{
  WIN32_FILE_ATTRIBUTE_DATA a;
  wchar_t *w = ls_win_utf8_to_wide (path);
  BOOL ok = w && GetFileAttributesExW (w, GetFileExInfoStandard, &a);
  free (w);
  if (!ok)
    return LS_FS_MISSING;
  if (size)
    *size = ((uint64_t) a.nFileSizeHigh << 32) | a.nFileSizeLow;
  /* GetFileAttributesEx describes a reparse point itself, not its target. */
  if (a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    return LS_FS_OTHER;
  return (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? LS_FS_DIR : LS_FS_FILE;
}

int
ls_fs_read_regular (const char *path, unsigned flags, size_t max, char **buf, size_t *len, uint64_t *size,
                    ls_error *err)
{
  wchar_t *w = ls_win_utf8_to_wide (path);
  DWORD attrs = FILE_FLAG_SEQUENTIAL_SCAN | ((flags & LS_FS_READ_NOFOLLOW) ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
  HANDLE h = w ? CreateFileW (w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, attrs, NULL)
               : INVALID_HANDLE_VALUE;
  BY_HANDLE_FILE_INFORMATION info;

  free (w);
  *buf = NULL;
  *len = 0;
  if (h == INVALID_HANDLE_VALUE)
    {
      DWORD e = GetLastError ();
      if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
        return ls_error_set (err, LS_ERR_NOT_FOUND, "%s: no such file", path);
      return ls_error_set_os_code (err, (int) e, "%s", path);
    }
  /* A pipe or a console device is not FILE_TYPE_DISK. */
  if (GetFileType (h) != FILE_TYPE_DISK || !GetFileInformationByHandle (h, &info)
      || (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_INVALID, "%s: not a regular file (a pipe, a device or a folder)", path);
    }
  if ((flags & LS_FS_READ_NOFOLLOW) && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_INVALID, "%s: a symbolic link, not followed", path);
    }
  uint64_t whole = ((uint64_t) info.nFileSizeHigh << 32) | info.nFileSizeLow;
  if (size)
    *size = whole;
  if (whole > max && !(flags & LS_FS_READ_TAIL))
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_INVALID, "%s: %llu bytes, more than the %zu read here", path,
                           (unsigned long long) whole, max);
    }
  if (whole > max)
    {
      LARGE_INTEGER at;
      at.QuadPart = (LONGLONG) (whole - max);
      if (!SetFilePointerEx (h, at, NULL, FILE_BEGIN))
        {
          ls_error_set_os (err, "%s: SetFilePointerEx", path);
          CloseHandle (h);
          return LS_ERR_OS;
        }
    }
  size_t want = whole < max ? (size_t) whole : max;
  char *out = malloc (want + 1);
  size_t used = 0;
  if (!out)
    {
      CloseHandle (h);
      return ls_error_set (err, LS_ERR_NOMEM, "%s: no memory for %zu bytes", path, want);
    }
  while (used < want)
    {
      DWORD chunk = want - used > 0x10000000 ? 0x10000000 : (DWORD) (want - used), got = 0;
      if (!ReadFile (h, out + used, chunk, &got, NULL))
        {
          ls_error_set_os (err, "reading %s", path);
          free (out);
          CloseHandle (h);
          return LS_ERR_OS;
        }
      if (got == 0)
        break;
      used += got;
    }
  CloseHandle (h);
  out[used] = '\0';
  *buf = out;
  *len = used;
  return LS_OK;
}
