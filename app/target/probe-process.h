/* The script's process under the probe: started as a tree leader (POSIX:
 * a session of its own that dies with the runner; Windows: a process group
 * in the runner's job object; platform/process.h), with a per-run folder
 * as its TMPDIR (probe-dir.h) and the probe's channel as an inherited pipe
 * whose descriptor or HANDLE is in $LOADSCOPE_PROBE_FD, read with a timeout
 * and a line cap (probe-line.h); at the end its whole tree is killed,
 * orphans that left with setsid() included, and the folder is removed,
 * whatever the script did. */
#pragma once

#include <glib.h>

#include "app/target/probe-line.h"
#include "platform/process.h"

typedef struct ls_probe_process ls_probe_process;

/* Starts argv (argv[0], the interpreter of --python, found on PATH) with
 * env ("NAME", "value", ..., NULL) added. NULL with an error naming what
 * failed (--python and the reason, the temporary folder, the pipe). */
ls_probe_process *ls_probe_process_start (const char *const *argv, const char *const *env, GError **error);

int ls_probe_process_pid (const ls_probe_process *p);

typedef enum {
  LS_PROBE_READ_MORE,  /* read or waited; the channel is open */
  LS_PROBE_READ_EOF,   /* every writer closed it */
  LS_PROBE_READ_ERROR, /* a line passed the cap (error set) or fn stopped */
} ls_probe_read;

/* Waits up to timeout_ms for the channel, reads at most 64 KiB and hands
 * each complete line to fn. At end of file it only waits (no busy loop). */
ls_probe_read ls_probe_process_read (ls_probe_process *p, int timeout_ms, ls_probe_line_fn fn, gpointer user,
                                     GError **error);

/* Whether the script itself has ended (its workers may not have). */
gboolean ls_probe_process_exited (ls_probe_process *p);

/* Ends the script's whole tree (SIGKILL to its session's group, to every
 * process that inherited the run's marker, to orphans adopted as child
 * subreaper), reaps the script, hands what the channel still holds to fn
 * (at most a few MiB, no line past the cap), removes the per-run folder.
 * Safe to call once; the status getters work after it. */
void ls_probe_process_end (ls_probe_process *p, ls_probe_line_fn fn, gpointer user);

/* After end: how the script ended (ls_exit_status_describe words it). */
const ls_exit_status *ls_probe_process_status (const ls_probe_process *p);

/* Ends it first when end was not called. */
void ls_probe_process_free (ls_probe_process *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ls_probe_process, ls_probe_process_free)
