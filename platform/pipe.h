/* A one-way byte pipe from a child to its parent (the script target's
 * event lines): the parent reads with a timeout, so that nothing the
 * child writes, or does not write, can keep it from its own deadline.
 * POSIX: pipe2 + poll; Win32: an anonymous pipe, PeekNamedPipe + ReadFile. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "handle.h"

/* Both ends are close-on-exec (not inherited); the child gets the write
 * end by name (the spawn's inherit list, or a launcher's fd mapping). */
int ls_pipe_open (ls_handle *read_end, ls_handle *write_end, ls_error *err);

/* Waits up to timeout_ms (0: poll) for data or end of file, then reads at
 * most cap bytes. Returns how many were read (> 0), 0 at end of file (every
 * write end closed), LS_ERR_TIMEOUT when nothing came in time, or another
 * error. A signal that interrupts the wait returns LS_ERR_TIMEOUT early, so
 * the caller can look at its flags. */
int64_t ls_pipe_read (ls_handle read_end, void *buf, size_t cap, int64_t timeout_ms, ls_error *err);

void ls_pipe_close (ls_handle end);

/* A new handle to this process's standard error, inheritable by name (for
 * a child's standard output, so that its prints stay off ours). */
ls_handle ls_pipe_stderr_dup (ls_error *err);

/* This process's standard input, to read with ls_pipe_read (not through
 * stdio: a thread blocked in fread holds stdin's lock, which fork's
 * fflush (NULL) then waits for). Not to be closed. */
ls_handle ls_pipe_stdin (void);
