/* Running the `loadscope` command from tests ($LOADSCOPE, set by meson). */
#pragma once

#include <glib.h>

typedef struct {
  int status; /* the exit status; -1: killed by a signal */
  char *out, *err;
} ls_test_cli;

/* Runs $LOADSCOPE with the arguments up to NULL and collects its output. */
ls_test_cli ls_test_loadscope (const char *first, ...) G_GNUC_NULL_TERMINATED;
/* The same with the arguments in a NULL-terminated array. */
ls_test_cli ls_test_loadscopev (const char *const *args);
void ls_test_cli_clear (ls_test_cli *r);
