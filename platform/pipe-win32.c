#include "pipe.h"

#include <windows.h>

#include "clock.h"

int
ls_pipe_open (ls_handle *read_end, ls_handle *write_end, ls_error *err)
{
  HANDLE r, w;
  *read_end = *write_end = LS_HANDLE_INVALID;
  /* Not inheritable: the spawn's inherit list names the write end. */
  if (!CreatePipe (&r, &w, NULL, 1 << 16))
    return ls_error_set_os (err, "CreatePipe");
  *read_end = (ls_handle) r;
  *write_end = (ls_handle) w;
  return LS_OK;
}

int64_t
ls_pipe_read (ls_handle read_end, void *buf, size_t cap, int64_t timeout_ms, ls_error *err)
{
  HANDLE h = (HANDLE) read_end;
  uint64_t deadline = ls_clock_ns () + (uint64_t) (timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
  /* Anonymous pipes have no overlapped reads: peek until bytes or EOF. */
  for (;;)
    {
      DWORD avail = 0;
      if (!PeekNamedPipe (h, NULL, 0, NULL, &avail, NULL))
        {
          if (GetLastError () == ERROR_BROKEN_PIPE)
            return 0;
          return ls_error_set_os (err, "PeekNamedPipe");
        }
      if (avail > 0)
        {
          DWORD got = 0, want = avail;
          if ((size_t) want > cap)
            want = (DWORD) cap;
          if (!ReadFile (h, buf, want, &got, NULL))
            return GetLastError () == ERROR_BROKEN_PIPE ? 0 : ls_error_set_os (err, "ReadFile on a pipe");
          return got;
        }
      if (timeout_ms >= 0 && ls_clock_ns () >= deadline)
        return ls_error_set (err, LS_ERR_TIMEOUT, "nothing on the pipe within %lld ms", (long long) timeout_ms);
      Sleep (5);
    }
}

void
ls_pipe_close (ls_handle end)
{
  if (end != LS_HANDLE_INVALID)
    CloseHandle ((HANDLE) end);
}

ls_handle
ls_pipe_stderr_dup (ls_error *err)
{
  HANDLE dup = NULL;
  if (!DuplicateHandle (GetCurrentProcess (), GetStdHandle (STD_ERROR_HANDLE), GetCurrentProcess (), &dup, 0, FALSE,
                        DUPLICATE_SAME_ACCESS))
    {
      ls_error_set_os (err, "DuplicateHandle of standard error");
      return LS_HANDLE_INVALID;
    }
  return (ls_handle) dup;
}

ls_handle
ls_pipe_stdin (void)
{
  HANDLE h = GetStdHandle (STD_INPUT_HANDLE);
  return h && h != INVALID_HANDLE_VALUE ? (ls_handle) h : LS_HANDLE_INVALID;
}
