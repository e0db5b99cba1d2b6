/* Telling a process apart from a later one that got the same pid: its
 * start time as the OS keeps it. A store records (pid, start) for the
 * process that owns a sweep, so that a sweep whose process is gone can be
 * told from one still going even after the pid was reused. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* An opaque, stable number for when process `pid` started (Linux: clock
 * ticks since boot, /proc/PID/stat field 22; Win32: its creation time as a
 * FILETIME). 0: no such process, or this system cannot say. */
uint64_t ls_process_start_time (int64_t pid);

/* Whether the process that was `pid` and started at `start` still runs:
 * false when the pid is gone or now belongs to a process started at
 * another time. start 0 (not known): whether any process has that pid. */
bool ls_process_is_same (int64_t pid, uint64_t start);

/* The pid of process `pid`'s parent (Linux: /proc/PID/stat field 4; Win32:
 * the toolhelp snapshot's, which may name a parent that is gone). 0: no
 * such process, or this system cannot say. */
int64_t ls_process_parent_pid (int64_t pid);

/* Whether process `pid` runs below `ancestor` (its child, grandchild, ...
 * at most 16 levels down) and started no earlier than it (`ancestor_start`
 * as ls_process_start_time gave it, 0 to skip that check): a pid the
 * script named as its worker is sampled only when this holds, never pid 1
 * or another user's or an unrelated process. */
bool ls_process_is_descendant (int64_t pid, int64_t ancestor, uint64_t ancestor_start);
