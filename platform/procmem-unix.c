#define _GNU_SOURCE
#include "procmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Reads a small /proc file whole. Returns bytes read, or -1 with errno. */
static ssize_t
read_proc_file (const char *path, char *buf, size_t cap)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  size_t used = 0;

  if (fd < 0)
    return -1;
  while (used + 1 < cap)
    {
      ssize_t n = read (fd, buf + used, cap - 1 - used);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          close (fd);
          errno = saved;
          return -1;
        }
      if (n == 0)
        break;
      used += (size_t) n;
    }
  close (fd);
  buf[used] = '\0';
  return (ssize_t) used;
}

static int
not_found_or_os (ls_error *err, ls_pid pid, const char *path)
{
  if (errno == ENOENT || errno == ESRCH)
    return ls_error_set (err, LS_ERR_NOT_FOUND, "process %d is gone (%s missing)", (int) pid, path);
  return ls_error_set_os (err, "reading %s", path);
}

/* Value in kB of "Key:   1234 kB" within text, as bytes; 0 and *found=0 if absent. */
static uint64_t
kb_field (const char *text, const char *key, int *found)
{
  const char *p = text;
  size_t klen = strlen (key);

  while ((p = strstr (p, key)) != NULL)
    {
      if ((p == text || p[-1] == '\n') && p[klen] == ':')
        {
          *found = 1;
          return strtoull (p + klen + 1, NULL, 10) * 1024u;
        }
      p += klen;
    }
  *found = 0;
  return 0;
}

int
ls_procmem_read (ls_pid pid, ls_procmem *out, ls_error *err)
{
  char path[64];
  char text[4096];
  int found_rss, found_pss, found_pc, found_pd;

  memset (out, 0, sizeof *out);
  snprintf (path, sizeof path, "/proc/%d/smaps_rollup", (int) pid);
  if (read_proc_file (path, text, sizeof text) >= 0)
    {
      out->rss_bytes = kb_field (text, "Rss", &found_rss);
      out->pss_bytes = kb_field (text, "Pss", &found_pss);
      out->uss_bytes = kb_field (text, "Private_Clean", &found_pc) + kb_field (text, "Private_Dirty", &found_pd);
      out->valid |= found_rss ? LS_PROCMEM_RSS : 0;
      out->valid |= found_pss ? LS_PROCMEM_PSS : 0;
      out->valid |= (found_pc && found_pd) ? LS_PROCMEM_USS : 0;
      if (out->valid)
        return LS_OK;
    }
  else if (errno != ENOENT)
    return not_found_or_os (err, pid, path);

  /* Kernels before 4.14 have no smaps_rollup: RSS from statm, PSS/USS absent. */
  snprintf (path, sizeof path, "/proc/%d/statm", (int) pid);
  if (read_proc_file (path, text, sizeof text) < 0)
    return not_found_or_os (err, pid, path);
  unsigned long long size_pages = 0, resident_pages = 0;
  if (sscanf (text, "%llu %llu", &size_pages, &resident_pages) != 2)
    return ls_error_set (err, LS_ERR_INVALID, "%s: unexpected contents", path);
  out->rss_bytes = resident_pages * (uint64_t) sysconf (_SC_PAGESIZE);
  out->valid = LS_PROCMEM_RSS;
  return LS_OK;
}

int
ls_proccpu_read (ls_pid pid, uint64_t *user_ns, uint64_t *system_ns, ls_error *err)
{
  char path[64];
  char text[1024];
  unsigned long long utime = 0, stime = 0;
  long ticks = sysconf (_SC_CLK_TCK);

  /* For ourselves getrusage has microseconds; /proc counts clock ticks. */
  if (pid == getpid ())
    {
      struct rusage ru;
      if (getrusage (RUSAGE_SELF, &ru) != 0)
        return ls_error_set_os (err, "getrusage");
      *user_ns = (uint64_t) ru.ru_utime.tv_sec * 1000000000u + (uint64_t) ru.ru_utime.tv_usec * 1000u;
      *system_ns = (uint64_t) ru.ru_stime.tv_sec * 1000000000u + (uint64_t) ru.ru_stime.tv_usec * 1000u;
      return LS_OK;
    }
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (read_proc_file (path, text, sizeof text) < 0)
    return not_found_or_os (err, pid, path);
  /* The command name may hold spaces and parentheses: fields start after the last ')'. */
  const char *p = strrchr (text, ')');
  if (!p || sscanf (p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
    return ls_error_set (err, LS_ERR_INVALID, "%s: unexpected contents", path);
  if (ticks <= 0)
    ticks = 100;
  *user_ns = utime * (1000000000ull / (uint64_t) ticks);
  *system_ns = stime * (1000000000ull / (uint64_t) ticks);
  return LS_OK;
}

int
ls_procfaults_self (uint64_t *faults, ls_error *err)
{
  struct rusage ru;

  *faults = 0;
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return ls_error_set_os (err, "getrusage");
  *faults = (uint64_t) ru.ru_minflt;
  return LS_OK;
}
