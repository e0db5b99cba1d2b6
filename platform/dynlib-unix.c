#define _POSIX_C_SOURCE 200809L
#include "dynlib.h"

#include <dlfcn.h>

/* The dlopen handle itself serves as the opaque ls_dynlib pointer. */

ls_dynlib *
ls_dynlib_open (const char *name, ls_error *err)
{
  void *h = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    {
      const char *why = dlerror ();
      ls_error_set (err, LS_ERR_NOT_FOUND, "dlopen %s: %s", name, why ? why : "unknown reason");
      return NULL;
    }
  return (ls_dynlib *) h;
}

void *
ls_dynlib_symbol (ls_dynlib *lib, const char *symbol, ls_error *err)
{
  dlerror ();
  void *sym = dlsym ((void *) lib, symbol);
  if (!sym)
    {
      const char *why = dlerror ();
      ls_error_set (err, LS_ERR_NOT_FOUND, "dlsym %s: %s", symbol, why ? why : "symbol is NULL");
    }
  return sym;
}

void
ls_dynlib_close (ls_dynlib *lib)
{
  if (lib)
    dlclose ((void *) lib);
}
