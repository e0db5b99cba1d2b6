/* What a stop that ends the process removes: temporary files and folders a
 * command is writing (an export's partial file beside its final name, an
 * import's private copy), so that Ctrl-C or SIGTERM leaves none of them.
 *
 * A path is armed while it exists and disarmed once the command removed or
 * renamed it. When a stop ends the process (SIGINT, SIGTERM, SIGHUP with no
 * listener of their own; the second stop under LS_INTERRUPT_SECOND_ENDS;
 * on Windows the console's Ctrl-C, Ctrl-Break and close with no listener),
 * every armed file is unlinked, then every armed folder removed (empty
 * folders only), and the process ends as the stop would have ended it.
 * A stop a listener counts (interrupt.h) removes nothing: the command ends
 * cleanly and removes its files itself.
 *
 * Async-signal-safe where it runs from a signal: a fixed table of slots,
 * unlink and rmdir. SIGKILL, a crash or power loss still leave files
 * (never at a final name); the next command of the same kind removes them
 * where it can tell they are orphans (app/core/tmp-dir.h). On Windows a file
 * still open cannot be deleted and stays for that next command. */
#pragma once

#include <stddef.h>

/* How many paths can be armed at once, and how long one may be (bytes,
 * with its NUL). A path past either is not armed (ls_cleanup_arm says so). */
#define LS_CLEANUP_SLOTS 32
#define LS_CLEANUP_PATH_MAX 4096

typedef enum {
  LS_CLEANUP_FILE,
  LS_CLEANUP_DIR, /* removed after every armed file, and only when empty */
} ls_cleanup_kind;

/* Arms path (UTF-8). The slot, or -1 when the table is full or the path is
 * too long: then the path is not removed by a stop. Thread-safe. Also
 * (re)installs the handlers where a stop would end the process by
 * default. */
int ls_cleanup_arm (const char *path, ls_cleanup_kind kind);

/* Disarms a slot from ls_cleanup_arm (-1: nothing). Thread-safe. */
void ls_cleanup_disarm (int slot);

/* Removes every armed path now: files, then folders. Async-signal-safe;
 * for the platform's own stop handlers (interrupt-unix.c's second stop). */
void ls_cleanup_run_now (void);

/* The OS part (cleanup-unix.c, cleanup-win32.c). */
void ls_cleanup_os_install (void);
int ls_cleanup_os_remove (const char *path, ls_cleanup_kind kind);
