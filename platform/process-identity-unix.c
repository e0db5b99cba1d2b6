#define _POSIX_C_SOURCE 200809L
#include "platform/process-identity.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
/* Field `field` (1-based, as proc(5) counts: 4 is ppid, 22 starttime) of
 * /proc/PID/stat as a number; 0 when the process or the field is not
 * there. comm (field 2) may hold spaces and parentheses, so the fields
 * after it are counted from the last ')'. */
static uint64_t
stat_field (int64_t pid, int field)
{
  char path[64], text[1024];
  ssize_t len;

  if (pid <= 0 || field < 3)
    return 0;
  snprintf (path, sizeof path, "/proc/%" PRId64 "/stat", pid);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  do
    len = read (fd, text, sizeof text - 1);
  while (len < 0 && errno == EINTR);
  close (fd);
  if (len <= 0)
    return 0;
  text[len] = '\0';
  char *p = strrchr (text, ')');
  if (!p)
    return 0;
  p++; /* the space before field 3 */
  for (int f = 3; f < field && p; f++)
    p = strchr (p + 1, ' ');
  return p ? strtoull (p + 1, NULL, 10) : 0;
}
#endif

uint64_t
ls_process_start_time (int64_t pid)
{
#ifdef __linux__
  return stat_field (pid, 22);
#else
  (void) pid;
  return 0;
#endif
}

int64_t
ls_process_parent_pid (int64_t pid)
{
#ifdef __linux__
  return (int64_t) stat_field (pid, 4);
#else
  (void) pid;
  return 0;
#endif
}
