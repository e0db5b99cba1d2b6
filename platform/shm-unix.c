#define _GNU_SOURCE
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ls_shm {
  int fd;
  void *data;
  size_t size;
  char name[64];
};

/* An unnamed memory file: a memfd on Linux; elsewhere shm_open followed at
 * once by shm_unlink, so no name outlives the call whatever happens next. */
static int
anonymous_memory_fd (ls_error *err)
{
#if defined(__linux__) && defined(MFD_CLOEXEC)
  int fd = memfd_create ("loadscope-arena", MFD_CLOEXEC);
  if (fd < 0)
    return ls_error_set_os (err, "memfd_create"), -1;
  return fd;
#else
  static unsigned counter;
  char name[64];
  for (int attempt = 0; attempt < 16; attempt++)
    {
      snprintf (name, sizeof name, "/loadscope-%d-%u", (int) getpid (), counter++);
      int fd = shm_open (name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0)
        {
          shm_unlink (name);
          return fd;
        }
      if (errno != EEXIST)
        break;
    }
  ls_error_set_os (err, "shm_open %s", name);
  return -1;
#endif
}

static int
map_fd (int fd, size_t size, const char *name, ls_shm **out, ls_error *err)
{
  ls_shm *shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "shared memory %s: out of memory", name);
  shm->data = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (shm->data == MAP_FAILED)
    {
      ls_error_set_os (err, "mmap %zu bytes of %s", size, name);
      free (shm);
      return LS_ERR_OS;
    }
  shm->fd = fd;
  shm->size = size;
  snprintf (shm->name, sizeof shm->name, "%s", name);
  *out = shm;
  return LS_OK;
}

int
ls_shm_create (size_t size, ls_shm **out, ls_error *err)
{
  char name[64];
  int fd;

  *out = NULL;
  if (size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "shared memory: size 0 requested");
  fd = anonymous_memory_fd (err);
  if (fd < 0)
    return err ? err->code : LS_ERR_OS;
  if (ftruncate (fd, (off_t) size) != 0)
    {
      ls_error_set_os (err, "ftruncate shared memory to %zu bytes", size);
      close (fd);
      return LS_ERR_OS;
    }
  /* Another process of the same user opens it through our descriptor. */
  snprintf (name, sizeof name, "/proc/%d/fd/%d", (int) getpid (), fd);
  if (map_fd (fd, size, name, out, err) != LS_OK)
    {
      close (fd);
      return err ? err->code : LS_ERR_OS;
    }
  return LS_OK;
}

static int
check_size (int fd, size_t size, const char *name, ls_error *err)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    return ls_error_set_os (err, "fstat %s", name);
  if ((size_t) st.st_size < size)
    return ls_error_set (err, LS_ERR_INVALID, "shared memory %s holds %lld bytes, %zu expected", name,
                         (long long) st.st_size, size);
  return LS_OK;
}

int
ls_shm_create_private (size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;

  *out = NULL;
  if (size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "private memory: size 0 requested");
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "private memory: out of memory");
  shm->data = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (shm->data == MAP_FAILED)
    {
      ls_error_set_os (err, "mmap %zu bytes of private memory", size);
      free (shm);
      return LS_ERR_OS;
    }
#ifdef MADV_HUGEPAGE
  madvise (shm->data, size, MADV_HUGEPAGE); /* advice only: refused is fine */
#endif
  shm->fd = -1;
  shm->size = size;
  snprintf (shm->name, sizeof shm->name, "private");
  *out = shm;
  return LS_OK;
}

int
ls_shm_open_name (const char *name, size_t size, ls_shm **out, ls_error *err)
{
  int fd;

  *out = NULL;
  fd = open (name, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return ls_error_set (err, LS_ERR_NOT_FOUND, "shared memory %s does not exist (its creator has exited?)", name);
      return ls_error_set_os (err, "open shared memory %s", name);
    }
  if (check_size (fd, size, name, err) != LS_OK || map_fd (fd, size, name, out, err) != LS_OK)
    {
      close (fd);
      return err ? err->code : LS_ERR_OS;
    }
  return LS_OK;
}

int
ls_shm_open_handle (ls_handle handle, size_t size, ls_shm **out, ls_error *err)
{
  char name[64];
  int fd = (int) handle;

  *out = NULL;
  snprintf (name, sizeof name, "inherited fd %d", fd);
  /* The inherited descriptor is ours now; keep it out of later children. */
  if (fcntl (fd, F_SETFD, FD_CLOEXEC) != 0)
    return ls_error_set_os (err, "shared memory: %s", name);
  if (check_size (fd, size, name, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  return map_fd (fd, size, name, out, err);
}

void *
ls_shm_data (const ls_shm *shm)
{
  return shm->data;
}

size_t
ls_shm_size (const ls_shm *shm)
{
  return shm->size;
}

const char *
ls_shm_name (const ls_shm *shm)
{
  return shm->name;
}

ls_handle
ls_shm_handle (const ls_shm *shm)
{
  return shm->fd;
}

void
ls_shm_close (ls_shm *shm)
{
  if (!shm)
    return;
  munmap (shm->data, shm->size);
  if (shm->fd >= 0)
    close (shm->fd);
  free (shm);
}
