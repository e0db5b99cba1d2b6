/* How busy the machine was with other work while a run went: the whole
 * machine's CPU time over the run (platform/sysinfo.h) minus the run's
 * own tree (the runner and every worker), as a per cent of one core, like
 * the run's own cpu_percent. Measured by `loadscope run` around ls_run ()
 * and written into the summary as "machine_busy" (docs/measurement.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "loader/run.h"

/* A run is counted as on a busy machine when other processes used more
 * than this per cent of one core during it (docs/measurement.md says why). */
#define LS_MACHINE_BUSY_OTHER_PERCENT 25.0

typedef struct ls_machine_busy_mark {
  gboolean valid;        /* the machine's CPU times could be read */
  guint64 busy_ns, total_ns;
  guint64 self_cpu_ns;   /* this process's user + system time */
  gint64 wall_us;        /* monotonic */
  int cores;             /* logical processors */
  int affinity_cores;    /* the ones this process may run on */
  guint64 ram_bytes;
} ls_machine_busy_mark;

/* Reads the machine and this process now: call just before ls_run (). */
void ls_machine_busy_begin (ls_machine_busy_mark *mark);

/* Reads them again and adds "machine_busy" to the summary: {"cores",
 * "logical_cores", "ram_bytes", "span_s", "machine_cpu_percent",
 * "own_cpu_percent", "other_cpu_percent"}; the CPU figures null when the
 * machine's times could not be read. Own CPU: this process's time over the
 * span plus every worker's (result->workers[i].cpu_ns). */
void ls_machine_busy_add (const ls_machine_busy_mark *mark, const ls_run_result *result, JsonObject *summary);

/* The pure part, for tests: other = max(0, machine − own) / span × 100. */
double ls_machine_busy_other_percent (guint64 machine_busy_ns, guint64 own_ns, double span_s);
