/* The plain-C self-tests' reporting (platform-selftest, loader-selftest):
 * no GLib, so the same programs run natively and under Wine. One line per
 * check, "ok - NAME" or "FAIL - NAME: reason", and a last line
 * "N passed, N failed". */
#pragma once

#include <stdio.h> /* mingw: __MINGW_PRINTF_FORMAT */

/* mingw's stdio here is its own C99 one (__USE_MINGW_ANSI_STDIO), which
 * knows %zu; a plain format(printf) would be checked as Microsoft's. */
#if defined(__MINGW32__)
#define SELFTEST_PRINTF(f, a) __attribute__ ((format (__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__)
#define SELFTEST_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#else
#define SELFTEST_PRINTF(f, a)
#endif

/* A check: passes when ok, else fails with the reason fmt gives. */
void check (int ok, const char *name, const char *fmt, ...) SELFTEST_PRINTF (3, 4);

/* "ok - name (detail)": a passing check that also shows what it saw. */
void pass_with (const char *name, const char *fmt, ...) SELFTEST_PRINTF (2, 3);

/* Prints "N passed, N failed"; the program's exit status (1: a failure). */
int selftest_end (void);
