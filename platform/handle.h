/* An OS handle that can be passed to a child: a file descriptor on POSIX, a
 * HANDLE on Win32. Both fit an intptr_t, which also prints portably. */
#pragma once

#include <stdint.h>

typedef intptr_t ls_handle;

#define LS_HANDLE_INVALID ((ls_handle) -1)

/* Parses a handle written with "%" PRIdPTR (as passed on a child's command
 * line). Returns 0 and sets *out, or -1 when text is not a handle. */
int ls_handle_parse (const char *text, ls_handle *out);
