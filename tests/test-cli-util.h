/* Running the `loadscope` command from tests ($LOADSCOPE, set by meson). */
#pragma once

#include <gio/gio.h>
#include <glib.h>
#include <stdarg.h>

typedef struct {
  int status; /* the exit status; -1: killed by a signal */
  int signal; /* the signal that killed it; 0 when it exited */
  char *out, *err;
} ls_test_cli;

/* Runs $LOADSCOPE with the arguments up to NULL and collects its output. */
ls_test_cli ls_test_loadscope (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* The same with the arguments in a NULL-terminated array. */
ls_test_cli ls_test_loadscopev (const char *const *args);
/* The same from a va_list of arguments up to NULL. */
ls_test_cli ls_test_loadscope_va (const char *first, va_list ap);
/* The same with env (NULL-terminated "NAME=VALUE" pairs) added to the
 * environment; env may be NULL. */
ls_test_cli ls_test_loadscope_env (const char *const *env, const char *const *args);
void ls_test_cli_clear (ls_test_cli *r);

/* Starts $LOADSCOPE with the arguments up to NULL, its stdout and stderr
 * piped, without waiting for it (a command to interrupt or to race). */
GSubprocess *ls_test_cli_start (GError **error, const char *first, ...) G_GNUC_NULL_TERMINATED;
