/* A started program's whole tree ends with the run that started it: the
 * program in a session of its own that dies with its parent, and (Linux)
 * the runner as a child subreaper, so that descendants which left the
 * session with setsid() come back to it as orphans and can be ended too.
 * Used by the script target (app/target/target-pytorch.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "process.h"

/* Makes this process the reaper of its orphaned descendants (Linux:
 * PR_SET_CHILD_SUBREAPER): a grandchild whose parent died is reparented
 * here instead of to init, so ls_process_tree_end finds it. LS_ERR_UNSUPPORTED
 * where the system has no such thing (other POSIX systems; Win32, where a
 * job object holds a tree instead). */
int ls_process_tree_adopt_orphans (ls_error *err);

#ifndef _WIN32
/* In the child between fork and exec, so only async-signal-safe calls: a
 * new session (so a new process group: the tree is killed as one), and
 * death with the parent (Linux PR_SET_PDEATHSIG with SIGKILL; the
 * interpreter keeps it across exec). Exits at once with status 70 when
 * the parent (expected_parent, as the parent saw its own pid) is already
 * gone. */
void ls_process_tree_child_setup (ls_pid expected_parent);
#endif

/* Ends what is left of a tree, at once (SIGKILL): the process group led by
 * `leader`, every process of this user whose environment holds `marker`
 * (a "NAME=value" the tree inherited; Linux, through /proc), and every
 * child of this process started no earlier than `since` (as
 * ls_process_start_time counts) other than `leader` — orphans adopted as
 * subreaper. Those that are our children are reaped (waitpid on their pid
 * only), `leader` excepted: its owner reaps it. Repeats until a pass finds
 * nothing (a killed parent's children are adopted next), at most a few
 * dozen passes. Returns how many processes it ended; *left (may be NULL)
 * how many it saw in the last pass that would not go. Win32: terminates
 * `leader` and its descendants started no earlier than `since` (found by
 * their parent links in one snapshot taken first; `marker` is not read);
 * what broke away from them still goes with the job object
 * ls_process_spawn puts every child in, when this process exits. */
int ls_process_tree_end (int64_t leader, const char *marker, uint64_t since, int *left);
