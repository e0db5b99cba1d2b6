/* Win32 error text: FormatMessageA, and GetLastError() as the last error. */
#include "error.h"

#include <stdio.h>
#include <string.h>

#include <windows.h>

void
ls_os_strerror (int os_code, char *buf, size_t len)
{
  DWORD n;

  if (len == 0)
    return;
  n = FormatMessageA (FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, (DWORD) os_code,
                      MAKELANGID (LANG_NEUTRAL, SUBLANG_DEFAULT), buf, (DWORD) (len > 0xFFFF ? 0xFFFF : len),
                      NULL);
  if (n == 0)
    {
      snprintf (buf, len, "Win32 error %lu (0x%08lX)", (unsigned long) (DWORD) os_code,
                (unsigned long) (DWORD) os_code);
      return;
    }
  /* FormatMessage ends its text with "\r\n" (and sometimes a '.' + space). */
  while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == '\n' || buf[n - 1] == ' '))
    buf[--n] = '\0';
}

int
ls_os_last_error (void)
{
  return (int) GetLastError ();
}
