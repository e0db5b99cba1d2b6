/* One error model for POSIX and Win32: a code plus a message that names the
 * call that failed and the operating system's reason. */
#pragma once

#include <stddef.h>

enum {
  LS_OK = 0,
  LS_ERR_OS = -1,          /* a system call failed; os_code holds errno / GetLastError() */
  LS_ERR_TIMEOUT = -2,     /* the deadline passed before the thing happened */
  LS_ERR_INVALID = -3,     /* a bad argument from the caller */
  LS_ERR_NOT_FOUND = -4,   /* a file, symbol or object does not exist */
  LS_ERR_EXEC = -5,        /* a child could not be started */
  LS_ERR_CLOSED = -6,      /* the other end of a channel went away */
  LS_ERR_NOMEM = -7,       /* an allocation failed */
  LS_ERR_UNSUPPORTED = -8, /* not available on this system */
};

#define LS_ERROR_MESSAGE_MAX 320

/* printf-style checking. mingw builds with __USE_MINGW_ANSI_STDIO, whose
 * printf is the C99 one (%zu, %llu), so check against that. */
#if defined(__MINGW32__)
#define LS_PRINTF(fmt, args) __attribute__ ((format (gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define LS_PRINTF(fmt, args) __attribute__ ((format (printf, fmt, args)))
#else
#define LS_PRINTF(fmt, args)
#endif

typedef struct ls_error {
  int code;    /* one of the LS_ERR_* values, LS_OK when nothing failed */
  int os_code; /* errno on POSIX, GetLastError() on Win32, 0 if none */
  char message[LS_ERROR_MESSAGE_MAX];
} ls_error;

/* All setters accept err == NULL and return the code they stored, so a
 * function can end with `return ls_error_set (err, ...)`. */
int ls_error_set (ls_error *err, int code, const char *fmt, ...)
  LS_PRINTF (3, 4);

/* Records the last OS error (errno, or GetLastError() on Win32) as
 * "<call>: <OS reason>". Read the OS error before anything can change it. */
int ls_error_set_os (ls_error *err, const char *call_fmt, ...)
  LS_PRINTF (2, 3);

/* Same, with an explicit OS error number (errno value or Win32 error code). */
int ls_error_set_os_code (ls_error *err, int os_code, const char *call_fmt, ...)
  LS_PRINTF (3, 4);

/* Adds context in front of an existing message: "opening x: <old message>". */
void ls_error_prefix (ls_error *err, const char *fmt, ...)
  LS_PRINTF (2, 3);

void ls_error_clear (ls_error *err);

/* The OS's text for an error number, written into buf. */
void ls_os_strerror (int os_code, char *buf, size_t len);

/* The calling thread's last OS error (errno / GetLastError()). */
int ls_os_last_error (void);
