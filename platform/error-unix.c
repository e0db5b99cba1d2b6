#define _GNU_SOURCE
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void
ls_os_strerror (int os_code, char *buf, size_t len)
{
  /* GNU strerror_r may return a static string instead of filling buf. */
  const char *s = strerror_r (os_code, buf, len);
  if (s != buf)
    snprintf (buf, len, "%s", s);
}

int
ls_os_last_error (void)
{
  return errno;
}
