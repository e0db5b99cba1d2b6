#define _GNU_SOURCE
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
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
  size_t map_len; /* size, or the file's size rounded to its huge pages */
  char name[64];
};

#define HUGE_2M ((size_t) 2 << 20)

/* Free 2 MiB hugetlb pages the administrator reserved (0: none, or not
 * Linux). Only these make MFD_HUGETLB succeed without SIGBUS later. */
static size_t
free_huge_2m_pages (void)
{
#if defined(__linux__) && defined(MFD_HUGETLB)
  /* Free pages include those another mapping has reserved and not yet
   * touched: only the rest can be had. */
  unsigned long free_n = 0, resv_n = 0;
  FILE *f = fopen ("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "re");
  if (!f)
    return 0;
  if (fscanf (f, "%lu", &free_n) != 1)
    free_n = 0;
  fclose (f);
  f = fopen ("/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", "re");
  if (f)
    {
      if (fscanf (f, "%lu", &resv_n) != 1)
        resv_n = 0;
      fclose (f);
    }
  return free_n > resv_n ? (size_t) (free_n - resv_n) : 0;
#else
  return 0;
#endif
}

/* Advice only: transparent huge pages where the system gives them for
 * this kind of memory (refused is fine). */
static void
advise_huge (void *data, size_t len)
{
#ifdef MADV_HUGEPAGE
  madvise (data, len, MADV_HUGEPAGE);
#else
  (void) data;
  (void) len;
#endif
}

/* An unnamed memory file: a memfd on Linux; elsewhere shm_open followed at
 * once by shm_unlink, so no name outlives the call whatever happens next. */
static int
anonymous_memory_fd (size_t *size, ls_error *err)
{
#if defined(__linux__) && defined(MFD_CLOEXEC)
#ifdef MFD_HUGETLB
  /* Reserved huge pages that cover the whole arena: one fault per 2 MiB. */
  size_t huge = (*size + HUGE_2M - 1) / HUGE_2M;
  if (huge <= free_huge_2m_pages ())
    {
      int hfd = memfd_create ("loadscope-arena", MFD_CLOEXEC | MFD_HUGETLB);
      if (hfd >= 0)
        {
          *size = huge * HUGE_2M;
          return hfd;
        }
    }
#endif
  int fd = memfd_create ("loadscope-arena", MFD_CLOEXEC);
  if (fd < 0)
    return ls_error_set_os (err, "memfd_create"), -1;
  return fd;
#else
  (void) size;
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

/* Maps map_len bytes of fd (a hugetlb file only maps whole huge pages:
 * its own size), of which size are the arena's. */
static int
map_fd (int fd, size_t size, size_t map_len, const char *name, ls_shm **out, ls_error *err)
{
  ls_shm *shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "shared memory %s: out of memory", name);
  shm->data = mmap (NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (shm->data == MAP_FAILED)
    {
      ls_error_set_os (err, "mmap %zu bytes of %s", map_len, name);
      free (shm);
      return LS_ERR_OS;
    }
  advise_huge (shm->data, map_len);
  shm->fd = fd;
  shm->size = size;
  shm->map_len = map_len;
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
  size_t file_size = size;
  fd = anonymous_memory_fd (&file_size, err);
  if (fd < 0)
    return err ? err->code : LS_ERR_OS;
  if (ftruncate (fd, (off_t) file_size) != 0)
    {
      ls_error_set_os (err, "ftruncate shared memory to %zu bytes", file_size);
      close (fd);
      return LS_ERR_OS;
    }
  /* Another process of the same user opens it through our descriptor. */
  snprintf (name, sizeof name, "/proc/%d/fd/%d", (int) getpid (), fd);
  if (map_fd (fd, size, file_size, name, out, err) == LS_OK)
    return LS_OK;
  close (fd);
  if (file_size == size)
    return err ? err->code : LS_ERR_OS;
  /* A hugetlb file's pages are reserved when it is mapped: another
   * process took them since they were counted. Plain pages then. */
#if defined(__linux__) && defined(MFD_CLOEXEC)
  fd = memfd_create ("loadscope-arena", MFD_CLOEXEC);
  if (fd < 0)
    return ls_error_set_os (err, "memfd_create");
  if (ftruncate (fd, (off_t) size) != 0)
    {
      ls_error_set_os (err, "ftruncate shared memory to %zu bytes", size);
      close (fd);
      return LS_ERR_OS;
    }
  snprintf (name, sizeof name, "/proc/%d/fd/%d", (int) getpid (), fd);
  if (map_fd (fd, size, size, name, out, err) == LS_OK)
    return LS_OK;
  close (fd);
#endif
  return err ? err->code : LS_ERR_OS;
}

/* Checks the file holds size bytes; *map_len is its whole size (a hugetlb
 * file is rounded up to its huge pages and maps only whole ones). */
static int
check_size (int fd, size_t size, const char *name, size_t *map_len, ls_error *err)
{
  struct stat st;
  if (fstat (fd, &st) != 0)
    return ls_error_set_os (err, "fstat %s", name);
  if ((size_t) st.st_size < size)
    return ls_error_set (err, LS_ERR_INVALID, "shared memory %s holds %lld bytes, %zu expected", name,
                         (long long) st.st_size, size);
  *map_len = (size_t) st.st_size;
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
  advise_huge (shm->data, size);
  shm->fd = -1;
  shm->size = size;
  shm->map_len = size;
  snprintf (shm->name, sizeof shm->name, "private");
  *out = shm;
  return LS_OK;
}

int
ls_shm_create_inherited (size_t size, ls_shm **out, ls_error *err)
{
  ls_shm *shm;

  *out = NULL;
  if (size == 0)
    return ls_error_set (err, LS_ERR_INVALID, "shared memory: size 0 requested");
  shm = calloc (1, sizeof *shm);
  if (!shm)
    return ls_error_set (err, LS_ERR_NOMEM, "shared memory: out of memory");
  size_t map_len = size;
  shm->data = MAP_FAILED;
#if defined(__linux__) && defined(MAP_HUGETLB)
  /* Reserved huge pages that cover the whole arena: one fault per 2 MiB,
   * and (on a VM) one first touch per 2 MiB in each worker instead of 512.
   * The pages are reserved here; if another process took them since they
   * were counted, mmap fails and plain pages follow. */
  size_t huge = (size + HUGE_2M - 1) / HUGE_2M;
  if (huge <= free_huge_2m_pages ())
    {
      shm->data = mmap (NULL, huge * HUGE_2M, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
      if (shm->data != MAP_FAILED)
        map_len = huge * HUGE_2M;
    }
#endif
  if (shm->data == MAP_FAILED)
    shm->data = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm->data == MAP_FAILED)
    {
      ls_error_set_os (err, "mmap %zu bytes of shared anonymous memory", size);
      free (shm);
      return LS_ERR_OS;
    }
  if (map_len == size)
    advise_huge (shm->data, size);
  shm->fd = -1;
  shm->size = size;
  shm->map_len = map_len;
  snprintf (shm->name, sizeof shm->name, "inherited");
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
  size_t map_len = 0;
  if (check_size (fd, size, name, &map_len, err) != LS_OK || map_fd (fd, size, map_len, name, out, err) != LS_OK)
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
  size_t map_len = 0;
  if (check_size (fd, size, name, &map_len, err) != LS_OK)
    return err ? err->code : LS_ERR_INVALID;
  return map_fd (fd, size, map_len, name, out, err);
}

int
ls_shm_populate_range (ls_shm *shm, size_t offset, size_t len, ls_error *err)
{
  long page = sysconf (_SC_PAGESIZE);
  size_t step = page > 0 ? (size_t) page : 4096;
  /* Whole pages (madvise wants an aligned start), within the mapping. */
  size_t from = offset / step * step;
  size_t to = offset + len < offset || offset + len > shm->map_len ? shm->map_len : offset + len;
  if (from >= to)
    return LS_OK;
  uint8_t *start = (uint8_t *) shm->data + from;
#ifdef MADV_POPULATE_WRITE
  if (madvise (start, to - from, MADV_POPULATE_WRITE) == 0)
    return LS_OK;
  if (errno != EINVAL) /* EINVAL: a kernel older than 5.14; touch instead */
    return ls_error_set_os (err, "populating %zu bytes of %s", to - from, shm->name);
#endif
  /* A write that changes nothing, even where another process writes the
   * same page at the same time (the pool fills slot headers meanwhile). */
  for (size_t at = 0; at < to - from; at += step)
    __atomic_fetch_or (start + at, 0, __ATOMIC_RELAXED);
  return LS_OK;
}

int
ls_shm_populate (ls_shm *shm, ls_error *err)
{
  return ls_shm_populate_range (shm, 0, shm->map_len, err);
}

/* "Key:   1234 kB" in one smaps block, in kB (0 when absent). */
static unsigned long
smaps_kb (const char *block, const char *key)
{
  const char *p = strstr (block, key);
  unsigned long kb = 0;
  if (p && sscanf (p + strlen (key), " %lu", &kb) != 1)
    kb = 0;
  return kb;
}

size_t
ls_shm_page_bytes (const ls_shm *shm)
{
  long base = sysconf (_SC_PAGESIZE);
#ifdef __linux__
  /* The mapping's block of /proc/self/smaps: its page size (hugetlb) and
   * how much of it huge pages map (transparent huge pages). */
  FILE *f = fopen ("/proc/self/smaps", "re");
  char line[4352], block[4096] = "", head[32];
  bool in_block = false;
  if (!f)
    return base > 0 ? (size_t) base : 0;
  snprintf (head, sizeof head, "%lx-", (unsigned long) (uintptr_t) shm->data);
  while (fgets (line, sizeof line, f))
    {
      /* A mapping's first line starts with its address in lower-case hex;
       * its fields with a capital ("Rss:", "THPeligible:"). */
      bool is_head = (line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f');
      if (is_head && in_block)
        break;
      if (is_head)
        in_block = strncmp (line, head, strlen (head)) == 0;
      else if (in_block && strlen (block) + strlen (line) < sizeof block)
        strcat (block, line);
    }
  fclose (f);
  unsigned long page_kb = smaps_kb (block, "KernelPageSize:");
  unsigned long rss_kb = smaps_kb (block, "Rss:");
  unsigned long huge_kb = smaps_kb (block, "AnonHugePages:") + smaps_kb (block, "ShmemPmdMapped:")
                          + smaps_kb (block, "FilePmdMapped:");
  if (page_kb > 4 && (base <= 0 || page_kb * 1024 > (unsigned long) base))
    return (size_t) page_kb * 1024;
  if (rss_kb > 0 && huge_kb * 2 >= rss_kb)
    return HUGE_2M;
#endif
  return base > 0 ? (size_t) base : 0;
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
  munmap (shm->data, shm->map_len);
  if (shm->fd >= 0)
    close (shm->fd);
  free (shm);
}
