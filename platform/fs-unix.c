#define _GNU_SOURCE
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ls_fs_sort_entries (ls_dir_entry *entries, size_t count);

static ls_fs_kind
kind_of_mode (mode_t mode)
{
  return S_ISREG (mode) ? LS_FS_FILE : S_ISDIR (mode) ? LS_FS_DIR : LS_FS_OTHER;
}

ls_fs_kind
ls_fs_kind_of (const char *path, uint64_t *size)
{
  struct stat st;
  if (stat (path, &st) != 0)
    return LS_FS_MISSING;
  if (size)
    *size = (uint64_t) st.st_size;
  return kind_of_mode (st.st_mode);
}

int
ls_fs_list_dir (const char *path, ls_dir_entry **entries, size_t *count, ls_error *err)
{
  DIR *d = opendir (path);
  struct dirent *e;
  ls_dir_entry *list = NULL;
  size_t n = 0, cap = 0;

  *entries = NULL;
  *count = 0;
  if (!d)
    return ls_error_set_os (err, "%s", path);
  while ((errno = 0, e = readdir (d)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 64;
          ls_dir_entry *grown = realloc (list, cap * sizeof *list);
          if (!grown)
            goto nomem;
          list = grown;
        }
      list[n].name = strdup (e->d_name);
      if (!list[n].name)
        goto nomem;
      struct stat st;
      /* fstatat follows symbolic links, as Python's os.path.isdir does. */
      list[n].kind = fstatat (dirfd (d), e->d_name, &st, 0) == 0 ? kind_of_mode (st.st_mode) : LS_FS_MISSING;
      n++;
    }
  closedir (d);
  ls_fs_sort_entries (list, n);
  *entries = list;
  *count = n;
  return LS_OK;

nomem:
  closedir (d);
  ls_fs_entries_free (list, n);
  return ls_error_set (err, LS_ERR_NOMEM, "%s: out of memory listing the folder", path);
}

int
ls_fs_drop_cache (const char *path, ls_error *err)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ls_error_set_os (err, "%s", path);
  int rc = posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
  if (rc != 0)
    return ls_error_set_os_code (err, rc, "%s: posix_fadvise", path);
  return LS_OK;
}

int
ls_fs_sync_dir (const char *dir, ls_error *err)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return ls_error_set_os (err, "%s", dir);
  /* Some file systems cannot sync a folder (EINVAL): nothing more to do. */
  int rc = fsync (fd) == 0 || errno == EINVAL ? LS_OK : ls_error_set_os (err, "%s: fsync", dir);
  close (fd);
  return rc;
}

int
ls_fs_read_file (const char *path, uint8_t **buf, size_t *cap, size_t *len, ls_error *err)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  size_t used = 0;

  *len = 0;
  if (fd < 0)
    return ls_error_set_os (err, "%s", path);
  if (fstat (fd, &st) == 0 && (size_t) st.st_size + 1 > *cap)
    {
      uint8_t *grown = realloc (*buf, (size_t) st.st_size + 1);
      if (!grown)
        {
          close (fd);
          return ls_error_set (err, LS_ERR_NOMEM, "%s: no memory for %lld bytes", path, (long long) st.st_size);
        }
      *buf = grown;
      *cap = (size_t) st.st_size + 1;
    }
  for (;;)
    {
      if (used == *cap)
        {
          size_t ncap = *cap ? *cap * 2 : 65536;
          uint8_t *grown = realloc (*buf, ncap);
          if (!grown)
            {
              close (fd);
              return ls_error_set (err, LS_ERR_NOMEM, "%s: out of memory", path);
            }
          *buf = grown;
          *cap = ncap;
        }
      ssize_t r = read (fd, *buf + used, *cap - used);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          ls_error_set_os (err, "reading %s", path);
          close (fd);
          return LS_ERR_OS;
        }
      if (r == 0)
        break;
      used += (size_t) r;
    }
  close (fd);
  *len = used;
  return LS_OK;
}

char *
ls_fs_self_exe (void)
{
  /* readlink does not say how long the name is: grow until it fits. */
  for (size_t cap = 256; cap <= 65536; cap *= 2) {
    char *s = malloc (cap);
    if (!s)
      return NULL;
    ssize_t n = readlink ("/proc/self/exe", s, cap);
    if (n >= 0 && (size_t) n < cap) {
      s[n] = '\0';
      return s;
    }
    free (s);
    if (n < 0)
      return NULL;
  }
  return NULL;
}

bool
ls_fs_same_file (const char *a, const char *b)
{
  struct stat sa, sb;
  return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

ls_fs_kind
ls_fs_kind_of_link (const char *path, uint64_t *size)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return LS_FS_MISSING;
  if (size)
    *size = (uint64_t) st.st_size;
  return kind_of_mode (st.st_mode);
}

static const char *
kind_word (mode_t mode)
{
  return S_ISDIR (mode) ? "a folder" : S_ISFIFO (mode) ? "a FIFO" : S_ISCHR (mode) || S_ISBLK (mode) ? "a device"
         : S_ISSOCK (mode) ? "a socket" : "a special file";
}

int
ls_fs_read_regular (const char *path, unsigned flags, size_t max, char **buf, size_t *len, uint64_t *size,
                    ls_error *err)
{
  /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
  int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | ((flags & LS_FS_READ_NOFOLLOW) ? O_NOFOLLOW : 0);
  int fd = open (path, oflags);
  struct stat st;

  *buf = NULL;
  *len = 0;
  if (fd < 0)
    {
      int e = errno;
      if (e == ENOENT)
        return ls_error_set (err, LS_ERR_NOT_FOUND, "%s: no such file", path);
      if (e == ELOOP && (flags & LS_FS_READ_NOFOLLOW))
        return ls_error_set (err, LS_ERR_INVALID, "%s: a symbolic link, not followed", path);
      return ls_error_set_os_code (err, e, "%s", path);
    }
  if (fstat (fd, &st) != 0)
    {
      ls_error_set_os (err, "%s: fstat", path);
      close (fd);
      return LS_ERR_OS;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return ls_error_set (err, LS_ERR_INVALID, "%s: %s, not a regular file", path, kind_word (st.st_mode));
    }
  uint64_t whole = st.st_size > 0 ? (uint64_t) st.st_size : 0;
  if (size)
    *size = whole;
  if (whole > max && !(flags & LS_FS_READ_TAIL))
    {
      close (fd);
      return ls_error_set (err, LS_ERR_INVALID, "%s: %llu bytes, more than the %zu read here", path,
                           (unsigned long long) whole, max);
    }
  if (whole > max && lseek (fd, (off_t) (whole - max), SEEK_SET) < 0)
    {
      ls_error_set_os (err, "%s: lseek", path);
      close (fd);
      return LS_ERR_OS;
    }
  /* What fstat said, at most max: a file that grows meanwhile is read no further. */
  size_t want = whole < max ? (size_t) whole : max;
  char *out = malloc (want + 1);
  size_t used = 0;
  if (!out)
    {
      close (fd);
      return ls_error_set (err, LS_ERR_NOMEM, "%s: no memory for %zu bytes", path, want);
    }
  while (used < want)
    {
      ssize_t r = read (fd, out + used, want - used);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          ls_error_set_os (err, "reading %s", path);
          free (out);
          close (fd);
          return LS_ERR_OS;
        }
      if (r == 0)
        break;
      used += (size_t) r;
    }
  close (fd);
  out[used] = '\0';
  *buf = out;
  *len = used;
  return LS_OK;
}
