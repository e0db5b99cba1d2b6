/* Memory and CPU time of one process, as the measurement defines them:
 * Linux RSS, PSS and USS from /proc/PID/smaps_rollup; Windows working set
 * and private bytes from GetProcessMemoryInfo. A figure the system cannot
 * give has its valid bit cleared: absent is not zero. */
#pragma once

#include <stdint.h>

#include "error.h"
#include "process.h"

enum {
  LS_PROCMEM_RSS = 1u << 0,
  LS_PROCMEM_PSS = 1u << 1,
  LS_PROCMEM_USS = 1u << 2,
  LS_PROCMEM_WORKING_SET = 1u << 3,
  LS_PROCMEM_PRIVATE = 1u << 4,
};

typedef struct ls_procmem {
  unsigned valid;             /* LS_PROCMEM_* bits of the fields below that hold a reading */
  uint64_t rss_bytes;
  uint64_t pss_bytes;
  uint64_t uss_bytes;         /* private clean + private dirty */
  uint64_t working_set_bytes;
  uint64_t private_bytes;
} ls_procmem;

/* LS_ERR_NOT_FOUND when the process is gone. */
int ls_procmem_read (ls_pid pid, ls_procmem *out, ls_error *err);

/* User and system CPU time consumed so far by the process. */
int ls_proccpu_read (ls_pid pid, uint64_t *user_ns, uint64_t *system_ns, ls_error *err);

/* Page faults this process has taken so far: Linux the minor faults
 * (getrusage; no disk involved), Win32 PageFaultCount (soft and hard). */
int ls_procfaults_self (uint64_t *faults, ls_error *err);
