#include "text-win32.h"

#include <stdlib.h>
#include <windows.h>

wchar_t *
ls_win_utf8_to_wide (const char *s)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  if (n <= 0)
    return NULL;
  wchar_t *w = malloc ((size_t) n * sizeof *w);
  if (!w)
    {
      SetLastError (ERROR_NOT_ENOUGH_MEMORY);
      return NULL;
    }
  if (MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n)
    {
      free (w);
      return NULL;
    }
  return w;
}

char *
ls_win_wide_to_utf8 (const wchar_t *w)
{
  int n = WideCharToMultiByte (CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  if (n <= 0)
    return NULL;
  char *s = malloc ((size_t) n);
  if (!s)
    {
      SetLastError (ERROR_NOT_ENOUGH_MEMORY);
      return NULL;
    }
  if (WideCharToMultiByte (CP_UTF8, 0, w, -1, s, n, NULL, NULL) != n)
    {
      free (s);
      return NULL;
    }
  return s;
}
