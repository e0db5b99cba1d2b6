/* What machine this is: recorded with every run so histories from several
 * machines can be compared. */
#pragma once

#include <stdint.h>

#include "error.h"

typedef struct ls_sysinfo {
  int logical_cores;         /* online logical processors */
  int affinity_cores;        /* processors this process may run on */
  uint64_t total_ram_bytes;
  char os_name[128];         /* "Debian GNU/Linux 12 (bookworm)", "Windows 10.0 build 19045" */
  char kernel[128];          /* "Linux 6.1.0-18-amd64", "NT 10.0.19045" */
  char arch[32];             /* "x86_64" */
  char cpu_model[128];       /* "Intel(R) Xeon(R) ..." or "unknown" */
  char hostname[128];
  char container[32];        /* "docker", "podman", ... or "none" (ls_container_detect); "" when not known (Windows) */
} ls_sysinfo;

int ls_sysinfo_read (ls_sysinfo *out, ls_error *err);

/* The whole machine's CPU time so far, summed over every logical
 * processor: busy (user, nice, system, irq, softirq, steal) and total
 * (busy + idle + iowait). The difference of two readings over a span is
 * what every process together used. Linux: the "cpu" line of /proc/stat
 * (USER_HZ ticks, so 10 ms steps per processor); Windows: GetSystemTimes
 * (100 ns units; its kernel time includes idle time). */
typedef struct ls_cpu_times {
  uint64_t busy_ns;
  uint64_t total_ns;
  int cores; /* logical processors the figures cover */
} ls_cpu_times;

int ls_sysinfo_cpu_times (ls_cpu_times *out, ls_error *err);
