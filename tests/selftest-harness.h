/* The plain-C self-tests' reporting (platform-selftest, loader-selftest):
 * no GLib, so the same programs run natively and under Wine. One line per
 * check, "ok - NAME" or "FAIL - NAME: reason", and a last line
 * "N passed, N failed". */
#pragma once

/* Included first by each self-test: the C library it uses, POSIX where
 * there is one. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h> /* also mingw's __MINGW_PRINTF_FORMAT */
#include <stdlib.h>
#include <string.h>

#include "platform/process.h"

/* mingw's stdio here is its own C99 one (__USE_MINGW_ANSI_STDIO), which
 * knows %zu; a plain format(printf) would be checked as Microsoft's. */
#if defined(__MINGW32__)
#define SELFTEST_PRINTF(f, a) __attribute__ ((format (__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__)
#define SELFTEST_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#else
#define SELFTEST_PRINTF(f, a)
#endif

/* The first thing in a self-test's main: the arguments as UTF-8 and, on
 * Windows, no error dialog (nor, under Wine, a debugger) for the children
 * that crash on purpose (they inherit the mode). Returns the arguments. */
char **selftest_start (int argc, char **argv);

/* The program a self-test drives: argv[1], else the environment's
 * ENV_VAR. SUBJECT names the self-test ("loader": loader-selftest), ROLE
 * the program in its header ("worker"), FILE the program's file name
 * ("loadscope-worker"). Prints "# SUBJECT self-test, ROLE PATH" and
 * returns the path; without one, says how to call the self-test, prints a
 * failing setup line and returns NULL (exit with 2). */
const char *selftest_partner (int argc, char **argv, const char *subject, const char *role, const char *file,
                              const char *env_var);

/* A check: passes when ok, else fails with the reason fmt gives. */
void check (int ok, const char *name, const char *fmt, ...) SELFTEST_PRINTF (3, 4);

/* "ok - name (detail)": a passing check that also shows what it saw. */
void pass_with (const char *name, const char *fmt, ...) SELFTEST_PRINTF (2, 3);

/* How a child ended, in words ("exited with code 3", "killed by signal
 * 9"); the buffer is the next call's. */
const char *describe (const ls_exit_status *st);

/* Milliseconds since t0 (ls_clock_ns). */
double ms_since (uint64_t t0);

/* Prints how long the self-test took since t0 (ls_clock_ns) and "N passed,
 * N failed"; the program's exit status (1: a failure). */
int selftest_end (uint64_t t0);
