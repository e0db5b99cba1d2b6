/* Run-time loading with LoadLibraryW / GetProcAddress. */
#include "dynlib.h"
#include "text-win32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

struct ls_dynlib {
  HMODULE module;
  char name[260];
};

ls_dynlib *
ls_dynlib_open (const char *name, ls_error *err)
{
  ls_dynlib *lib;
  wchar_t *wname;
  HMODULE module;

  if (!name || !*name)
    {
      ls_error_set (err, LS_ERR_INVALID, "LoadLibrary: empty library name");
      return NULL;
    }
  wname = ls_win_utf8_to_wide (name);
  if (!wname)
    {
      ls_error_set_os (err, "LoadLibrary %s: converting the name to UTF-16", name);
      return NULL;
    }
  /* No "cannot find the DLL" message box: report the error to the caller instead. */
  DWORD old_mode = 0;
  SetThreadErrorMode (SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  module = LoadLibraryW (wname);
  DWORD code = GetLastError ();
  SetThreadErrorMode (old_mode, NULL);
  free (wname);
  if (!module)
    {
      ls_error_set_os_code (err, (int) code, "LoadLibrary %s", name);
      if (err && (code == ERROR_MOD_NOT_FOUND || code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND))
        err->code = LS_ERR_NOT_FOUND;
      return NULL;
    }
  lib = calloc (1, sizeof *lib);
  if (!lib)
    {
      FreeLibrary (module);
      ls_error_set (err, LS_ERR_NOMEM, "LoadLibrary %s: out of memory", name);
      return NULL;
    }
  lib->module = module;
  snprintf (lib->name, sizeof lib->name, "%s", name);
  return lib;
}

void *
ls_dynlib_symbol (ls_dynlib *lib, const char *symbol, ls_error *err)
{
  FARPROC p;
  void *sym;

  if (!lib || !symbol)
    {
      ls_error_set (err, LS_ERR_INVALID, "GetProcAddress: no library or symbol");
      return NULL;
    }
  p = GetProcAddress (lib->module, symbol);
  if (!p)
    {
      DWORD code = GetLastError ();
      ls_error_set_os_code (err, (int) code, "GetProcAddress %s in %s", symbol, lib->name);
      if (err)
        err->code = LS_ERR_NOT_FOUND;
      return NULL;
    }
  /* A function pointer as void *: what dlsym() gives on POSIX too. */
  memcpy (&sym, &p, sizeof sym);
  return sym;
}

void
ls_dynlib_close (ls_dynlib *lib)
{
  if (!lib)
    return;
  FreeLibrary (lib->module);
  free (lib);
}
