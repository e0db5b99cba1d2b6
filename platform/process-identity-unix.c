#define _POSIX_C_SOURCE 200809L
#include "platform/process-identity.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t
ls_process_start_time (int64_t pid)
{
#ifdef __linux__
  char path[64], text[1024];
  ssize_t len;

  if (pid <= 0)
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
  /* "pid (comm) state ppid ...": comm may hold spaces and parentheses,
   * so the fields are counted from the last ')'; starttime is field 22. */
  char *p = strrchr (text, ')');
  if (!p)
    return 0;
  p++;
  for (int field = 3; field < 22 && p; field++)
    p = strchr (p + 1, ' ');
  if (!p)
    return 0;
  return strtoull (p + 1, NULL, 10);
#else
  (void) pid;
  return 0;
#endif
}

int64_t
ls_process_parent_pid (int64_t pid)
{
#ifdef __linux__
  char path[64], text[1024];
  ssize_t len;

  if (pid <= 0)
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
  /* "pid (comm) state ppid": counted from the last ')', as above. */
  char *p = strrchr (text, ')');
  char state;
  long long ppid = 0;
  if (!p || sscanf (p + 1, " %c %lld", &state, &ppid) != 2)
    return 0;
  return ppid;
#else
  (void) pid;
  return 0;
#endif
}
