/* Parts of the process layer that are not its interface: shared by
 * process.c and process-win32.c, and exposed to the tests. */
#pragma once

#include <stddef.h>

#include "process.h"

/* Quotes argv into one Win32 command line so that CommandLineToArgvW and
 * the C runtime split it back into the same strings. Portable, so it is
 * tested everywhere. Returns the length written, or -1 if buf is too small. */
int ls_win32_command_line (const char *const *argv, char *buf, size_t len);
