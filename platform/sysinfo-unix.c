#define _GNU_SOURCE
#include "sysinfo.h"

#include "container.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Copies the value of "key<sep>value" from the first matching line of a
 * text file, without quotes and the trailing newline. */
static int
read_keyed_line (const char *path, const char *key, char sep, char *out, size_t len)
{
  FILE *f = fopen (path, "re");
  char line[512];
  size_t klen = strlen (key);
  int found = -1;

  if (!f)
    return -1;
  while (fgets (line, sizeof line, f))
    {
      if (strncmp (line, key, klen) != 0)
        continue;
      char *p = line + klen;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p != sep)
        continue;
      p++;
      while (*p == ' ' || *p == '\t' || *p == '"')
        p++;
      p[strcspn (p, "\"\n")] = '\0';
      snprintf (out, len, "%s", p);
      found = 0;
      break;
    }
  fclose (f);
  return found;
}

int
ls_sysinfo_read (ls_sysinfo *out, ls_error *err)
{
  struct utsname u;
  cpu_set_t set;
  long pages, page_size;

  memset (out, 0, sizeof *out);

  out->logical_cores = (int) sysconf (_SC_NPROCESSORS_ONLN);
  if (out->logical_cores < 1)
    out->logical_cores = 1;
  out->affinity_cores = out->logical_cores;
  if (sched_getaffinity (0, sizeof set, &set) == 0)
    out->affinity_cores = CPU_COUNT (&set);

  pages = sysconf (_SC_PHYS_PAGES);
  page_size = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page_size > 0)
    out->total_ram_bytes = (uint64_t) pages * (uint64_t) page_size;

  if (uname (&u) != 0)
    return ls_error_set_os (err, "uname");
  snprintf (out->kernel, sizeof out->kernel, "%s %s", u.sysname, u.release);
  snprintf (out->arch, sizeof out->arch, "%s", u.machine);
  snprintf (out->hostname, sizeof out->hostname, "%s", u.nodename);
  ls_container_detect (out->container, sizeof out->container);

  if (read_keyed_line ("/etc/os-release", "PRETTY_NAME", '=', out->os_name, sizeof out->os_name) != 0)
    snprintf (out->os_name, sizeof out->os_name, "%s", u.sysname);

  if (read_keyed_line ("/proc/cpuinfo", "model name", ':', out->cpu_model, sizeof out->cpu_model) != 0
      && read_keyed_line ("/proc/cpuinfo", "Model", ':', out->cpu_model, sizeof out->cpu_model) != 0)
    snprintf (out->cpu_model, sizeof out->cpu_model, "unknown");
  return LS_OK;
}

int
ls_sysinfo_cpu_times (ls_cpu_times *out, ls_error *err)
{
  /* cpu  user nice system idle iowait irq softirq steal guest guest_nice;
   * guest time is already in user. */
  unsigned long long v[8] = { 0 };
  char line[512];
  long hz = sysconf (_SC_CLK_TCK);
  FILE *f;
  int n;

  if (!out)
    return ls_error_set (err, LS_ERR_INVALID, "ls_sysinfo_cpu_times: no output");
  memset (out, 0, sizeof *out);
  f = fopen ("/proc/stat", "re");
  if (!f)
    return ls_error_set_os (err, "/proc/stat");
  if (!fgets (line, sizeof line, f))
    line[0] = '\0';
  fclose (f);
  n = sscanf (line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
              &v[7]);
  if (n < 4)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "/proc/stat: no \"cpu\" line to read");
  if (hz <= 0)
    hz = 100;
  unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  unsigned long long idle = v[3] + v[4];
  out->busy_ns = (uint64_t) (busy * (1000000000ull / (unsigned long long) hz));
  out->total_ns = (uint64_t) ((busy + idle) * (1000000000ull / (unsigned long long) hz));
  out->cores = (int) sysconf (_SC_NPROCESSORS_ONLN);
  if (out->cores < 1)
    out->cores = 1;
  return LS_OK;
}
