/* One way for a command to hear "stop", on both systems: Ctrl-C and SIGTERM
 * on POSIX; the console's Ctrl-C, Ctrl-Break and close on Windows; and a
 * stop asked by another process (a sweep, the window) through
 * ls_process_interrupt, which is SIGINT on POSIX and a named event on
 * Windows (process.h). Each stop adds one to the caller's counter; the
 * caller looks at it (a loop's next turn, a main loop's timer).
 *
 * LS_INTERRUPT_SECOND_ENDS: the first stop only counts (the command ends
 * cleanly, recording what it measured); the second ends the process at once,
 * by the signal itself on POSIX, by the console's default on Windows. */
#pragma once

#include <signal.h>

#include "platform/error.h"

typedef enum {
  LS_INTERRUPT_COUNT = 0,
  LS_INTERRUPT_SECOND_ENDS = 1 << 0,
} ls_interrupt_flags;

/* Starts listening; *count must outlive the listening (a static). One
 * listener per process: a second call replaces the first. */
int ls_interrupt_listen (volatile sig_atomic_t *count, ls_interrupt_flags flags, ls_error *err);

/* Whether a listener would count the next stop (and the command end
 * cleanly) rather than let it end the process. */
int ls_interrupt_takes_next_stop (void);

/* Stops listening: Ctrl-C and SIGTERM do what they did before. */
void ls_interrupt_stop (void);

/* For a program another one drives (a sweep's runner): the terminal's
 * Ctrl-C reaches the driver alone, which passes it on once; reaching both,
 * it counted twice. POSIX: a process group of its own. Windows: nothing
 * (console events reach every process of the console; the driver ends the
 * sweep and the runner its run, as on POSIX). */
void ls_interrupt_from_driver_only (void);
