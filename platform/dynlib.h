/* Loading shared libraries at run time (dlopen / LoadLibrary), so optional
 * pieces such as NVML are never a link-time dependency. */
#pragma once

#include "error.h"

typedef struct ls_dynlib ls_dynlib;

/* NULL with err set ("dlopen libfoo.so.1: <reason>") when it cannot load. */
ls_dynlib *ls_dynlib_open (const char *name, ls_error *err);

/* NULL with err set when the symbol is missing. */
void *ls_dynlib_symbol (ls_dynlib *lib, const char *symbol, ls_error *err);

void ls_dynlib_close (ls_dynlib *lib);
