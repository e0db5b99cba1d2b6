#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int
set_v (ls_error *err, int code, int os_code, const char *fmt, va_list ap)
{
  if (!err)
    return code;
  err->code = code;
  err->os_code = os_code;
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  return code;
}

int
ls_error_set (ls_error *err, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  set_v (err, code, 0, fmt, ap);
  va_end (ap);
  return code;
}

static int
set_os_v (ls_error *err, int os_code, const char *call_fmt, va_list ap)
{
  char call[LS_ERROR_MESSAGE_MAX];
  char reason[160];

  if (!err)
    return LS_ERR_OS;
  vsnprintf (call, sizeof call, call_fmt, ap);
  ls_os_strerror (os_code, reason, sizeof reason);
  ls_error_set (err, LS_ERR_OS, "%s: %s", call, reason);
  err->os_code = os_code;
  return LS_ERR_OS;
}

int
ls_error_set_os (ls_error *err, const char *call_fmt, ...)
{
  int os_code = ls_os_last_error ();
  va_list ap;
  va_start (ap, call_fmt);
  set_os_v (err, os_code, call_fmt, ap);
  va_end (ap);
  return LS_ERR_OS;
}

int
ls_error_set_os_code (ls_error *err, int os_code, const char *call_fmt, ...)
{
  va_list ap;
  va_start (ap, call_fmt);
  set_os_v (err, os_code, call_fmt, ap);
  va_end (ap);
  return LS_ERR_OS;
}

void
ls_error_prefix (ls_error *err, const char *fmt, ...)
{
  char prefix[LS_ERROR_MESSAGE_MAX];
  char old[LS_ERROR_MESSAGE_MAX];
  va_list ap;

  if (!err)
    return;
  va_start (ap, fmt);
  vsnprintf (prefix, sizeof prefix, fmt, ap);
  va_end (ap);
  memcpy (old, err->message, sizeof old);
  snprintf (err->message, sizeof err->message, "%s: %s", prefix, old);
}

void
ls_error_clear (ls_error *err)
{
  if (!err)
    return;
  err->code = LS_OK;
  err->os_code = 0;
  err->message[0] = '\0';
}
