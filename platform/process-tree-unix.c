#define _GNU_SOURCE
#include "process-tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "process-identity.h"

int
ls_process_tree_adopt_orphans (ls_error *err)
{
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    return ls_error_set_os (err, "prctl(PR_SET_CHILD_SUBREAPER)");
  return LS_OK;
#else
  return ls_error_set (err, LS_ERR_UNSUPPORTED,
                       "this system has no child subreaper: descendants that call setsid() are not ended");
#endif
}

void
ls_process_tree_child_setup (ls_pid expected_parent)
{
  setsid ();
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
  /* The parent may have died before the request took effect. */
  if (expected_parent > 0 && getppid () != expected_parent)
    _exit (70);
}

/* The whole of a small /proc file (NUL-separated environment, stat line);
 * -1 when it cannot be read. Cut at cap - 1 bytes. */
static ssize_t
read_small (const char *path, char *buf, size_t cap)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t len = 0;
  while (len + 1 < cap)
    {
      ssize_t n = read (fd, buf + len, cap - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  close (fd);
  buf[len] = '\0';
  return (ssize_t) len;
}

#define ENV_MAX (256 * 1024)

static bool
environ_holds (pid_t pid, const char *marker, char *env)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/environ", (int) pid);
  ssize_t len = read_small (path, env, ENV_MAX);
  size_t mlen = strlen (marker);
  for (ssize_t i = 0; i < len; i += (ssize_t) strlen (env + i) + 1)
    if (strlen (env + i) == mlen && memcmp (env + i, marker, mlen) == 0)
      return true;
  return false;
}

/* Its parent's pid from /proc/PID/stat (field 4, after the last ')'). */
static pid_t
parent_of (pid_t pid)
{
  char path[64], text[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (read_small (path, text, sizeof text) <= 0)
    return 0;
  char *p = strrchr (text, ')');
  int ppid = 0;
  char state;
  if (!p || sscanf (p + 1, " %c %d", &state, &ppid) != 2)
    return 0;
  return (pid_t) ppid;
}

/* One pass over /proc; returns how many it killed. */
static int
end_pass (pid_t leader, const char *marker, uint64_t since, int *seen)
{
  pid_t self = getpid ();
  int killed = 0;
  *seen = 0;
  DIR *d = opendir ("/proc");
  char *env = malloc (ENV_MAX);
  if (!d || !env)
    {
      if (d)
        closedir (d);
      free (env);
      return 0;
    }
  struct dirent *e;
  while ((e = readdir (d)))
    {
      char *end;
      long v = strtol (e->d_name, &end, 10);
      if (*end || v <= 1 || v == self)
        continue;
      pid_t pid = (pid_t) v;
      bool ours = parent_of (pid) == self;
      bool orphan = ours && pid != leader && since && ls_process_start_time (pid) >= since;
      bool marked = marker && *marker && environ_holds (pid, marker, env);
      if (!orphan && !marked)
        continue;
      (*seen)++;
      bool gone = kill (pid, SIGKILL) == 0;
      if (gone)
        killed++;
      /* Reap it; blocking only once SIGKILL went through (a child that
       * became another user through setuid would never end). */
      if (ours && pid != leader)
        while (waitpid (pid, NULL, gone ? 0 : WNOHANG) < 0 && errno == EINTR)
          ;
    }
  closedir (d);
  free (env);
  return killed;
}

int
ls_process_tree_end (int64_t leader, const char *marker, uint64_t since, int *left)
{
  int ended = 0, seen = 0;
  if (leader > 1 && leader <= INT32_MAX && kill ((pid_t) -leader, SIGKILL) == 0)
    ended++;
#ifdef __linux__
  for (int pass = 0; pass < 32; pass++)
    {
      int killed = end_pass ((pid_t) leader, marker, since, &seen);
      ended += killed;
      if (seen == 0)
        break;
      /* A zombie of another parent stays until that parent (being killed)
       * is gone: give the kernel a moment before the next pass. */
      usleep (10000);
    }
#else
  (void) marker;
  (void) since;
#endif
  if (left)
    *left = seen;
  return ended;
}
