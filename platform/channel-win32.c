/* Message channels on Win32: a duplex message-mode named pipe, overlapped
 * on both ends. Each end keeps at most one ReadFile pending into its own
 * buffer; the read's manual-reset event is set when a message (or the
 * peer's end) arrives, so one WaitForMultipleObjects covers many channels. */
#include "channel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#define PIPE_BUFFER_BYTES 65536

typedef enum {
  READ_IDLE,    /* no ReadFile issued */
  READ_PENDING, /* issued; its result is collected with GetOverlappedResult once the event is set */
  READ_FAILED,  /* ReadFile failed at once with read_error; event set */
  READ_CLOSED,  /* the peer is gone, for good; event set */
} read_state;

struct ls_channel {
  HANDLE pipe;
  read_state state;
  DWORD read_error;
  HANDLE read_event;
  OVERLAPPED read_ov;
  HANDLE write_event;
  OVERLAPPED write_ov;
  SRWLOCK write_lock;
  char buf[LS_CHANNEL_MSG_MAX];
};

static volatile LONG pipe_counter;

static int
is_closed_error (DWORD code)
{
  return code == ERROR_BROKEN_PIPE || code == ERROR_PIPE_NOT_CONNECTED || code == ERROR_NO_DATA;
}

static int
channel_new (HANDLE pipe, ls_channel **out, ls_error *err)
{
  ls_channel *ch = calloc (1, sizeof *ch);
  if (!ch)
    return ls_error_set (err, LS_ERR_NOMEM, "channel: out of memory");
  ch->pipe = pipe;
  ch->state = READ_IDLE;
  InitializeSRWLock (&ch->write_lock);
  ch->read_event = CreateEventW (NULL, TRUE, FALSE, NULL);
  ch->write_event = CreateEventW (NULL, TRUE, FALSE, NULL);
  if (!ch->read_event || !ch->write_event)
    {
      int rc = ls_error_set_os (err, "channel: CreateEvent");
      if (ch->read_event)
        CloseHandle (ch->read_event);
      if (ch->write_event)
        CloseHandle (ch->write_event);
      free (ch);
      return rc;
    }
  *out = ch;
  return LS_OK;
}

/* Issues the one pending read. Reads start lazily (on the first recv or
 * wait), never in a process that only hands its end on: a read pending in
 * the parent on the child's end would steal the child's messages. */
static void
start_read (ls_channel *ch)
{
  if (ch->state != READ_IDLE)
    return;
  ResetEvent (ch->read_event);
  memset (&ch->read_ov, 0, sizeof ch->read_ov);
  ch->read_ov.hEvent = ch->read_event;
  /* TRUE (done at once) still completes through the OVERLAPPED and sets the event. */
  if (ReadFile (ch->pipe, ch->buf, sizeof ch->buf, NULL, &ch->read_ov))
    {
      ch->state = READ_PENDING;
      return;
    }
  DWORD code = GetLastError ();
  if (code == ERROR_IO_PENDING || code == ERROR_MORE_DATA)
    {
      /* ERROR_MORE_DATA: a message too long for the buffer, reported on collection. */
      ch->state = READ_PENDING;
      return;
    }
  ch->read_error = code;
  ch->state = is_closed_error (code) ? READ_CLOSED : READ_FAILED;
  SetEvent (ch->read_event);
}

/* The result of the read whose event is set: the message length, or an error. */
static int
collect_read (ls_channel *ch, void *buf, size_t cap, ls_error *err)
{
  DWORD n = 0, code;

  switch (ch->state)
    {
    case READ_CLOSED:
      return ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed");
    case READ_FAILED:
      ch->state = READ_IDLE;
      return ls_error_set_os_code (err, (int) ch->read_error, "channel: ReadFile");
    case READ_IDLE:
      return ls_error_set (err, LS_ERR_INVALID, "channel: no read to collect");
    case READ_PENDING:
    default:
      break;
    }
  if (GetOverlappedResult (ch->pipe, &ch->read_ov, &n, FALSE))
    {
      ch->state = READ_IDLE;
      if (n == 0)
        {
          /* Nobody sends empty messages (send refuses them); read again. */
          start_read (ch);
          return ls_error_set (err, LS_ERR_TIMEOUT, "channel: empty message");
        }
      if (n > cap)
        {
          start_read (ch);
          return ls_error_set (err, LS_ERR_INVALID, "channel: a %lu-byte message does not fit a %llu-byte buffer",
                               (unsigned long) n, (unsigned long long) cap);
        }
      memcpy (buf, ch->buf, n);
      start_read (ch); /* keep one read pending, for ls_channel_wait */
      return (int) n;
    }
  code = GetLastError ();
  if (code == ERROR_IO_INCOMPLETE)
    return ls_error_set (err, LS_ERR_TIMEOUT, "channel: read not complete");
  if (is_closed_error (code))
    {
      ch->state = READ_CLOSED;
      SetEvent (ch->read_event); /* stays ready, so waits report it at once */
      return ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed");
    }
  ch->state = READ_IDLE;
  if (code == ERROR_MORE_DATA)
    return ls_error_set (err, LS_ERR_INVALID, "channel: received a message longer than %d bytes",
                         LS_CHANNEL_MSG_MAX);
  return ls_error_set_os_code (err, (int) code, "channel: ReadFile");
}

/* Waits on handles for up to timeout_ms (-1 forever), slicing waits too
 * long for one DWORD. Returns what WaitForMultipleObjects returned. */
static DWORD
wait_handles (DWORD count, const HANDLE *handles, int64_t timeout_ms)
{
  int64_t left = timeout_ms;
  for (;;)
    {
      DWORD slice = left < 0 ? INFINITE : left >= (int64_t) INFINITE ? INFINITE - 1 : (DWORD) left;
      DWORD r = WaitForMultipleObjects (count, handles, FALSE, slice);
      if (r != WAIT_TIMEOUT || left < 0 || (left -= slice) <= 0)
        return r;
    }
}

int
ls_channel_pair (ls_channel **parent_end, ls_channel **child_end, ls_error *err)
{
  wchar_t wname[96];
  char name[96];
  HANDLE server, client;
  OVERLAPPED ov;
  DWORD mode = PIPE_READMODE_MESSAGE;
  int rc;

  *parent_end = *child_end = NULL;
  snprintf (name, sizeof name, "\\\\.\\pipe\\loadscope-%lu-%ld-%llu", (unsigned long) GetCurrentProcessId (),
            (long) InterlockedIncrement (&pipe_counter), (unsigned long long) GetTickCount64 ());
  for (size_t i = 0; i < sizeof name; i++)
    if ((wname[i] = (wchar_t) (unsigned char) name[i]) == 0)
      break;

  /* One instance, created first by us: nobody else can own this name. */
  server = CreateNamedPipeW (wname, PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                             PIPE_TYPE_MESSAGE | PIPE_READMODE_MESSAGE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1,
                             PIPE_BUFFER_BYTES, PIPE_BUFFER_BYTES, 0, NULL);
  if (server == INVALID_HANDLE_VALUE)
    return ls_error_set_os (err, "CreateNamedPipe(%s)", name);
  client = CreateFileW (wname, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                        FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
  if (client == INVALID_HANDLE_VALUE)
    {
      rc = ls_error_set_os (err, "CreateFile(%s)", name);
      CloseHandle (server);
      return rc;
    }
  if (!SetNamedPipeHandleState (client, &mode, NULL, NULL))
    {
      rc = ls_error_set_os (err, "SetNamedPipeHandleState(%s, PIPE_READMODE_MESSAGE)", name);
      goto fail;
    }

  /* The client is already there, so this says ERROR_PIPE_CONNECTED. */
  memset (&ov, 0, sizeof ov);
  ov.hEvent = CreateEventW (NULL, TRUE, FALSE, NULL);
  if (!ov.hEvent)
    {
      rc = ls_error_set_os (err, "channel: CreateEvent");
      goto fail;
    }
  if (!ConnectNamedPipe (server, &ov))
    {
      DWORD code = GetLastError (), n;
      if (code == ERROR_IO_PENDING)
        {
          if (!GetOverlappedResult (server, &ov, &n, TRUE))
            code = GetLastError ();
          else
            code = ERROR_PIPE_CONNECTED;
        }
      if (code != ERROR_PIPE_CONNECTED)
        {
          CloseHandle (ov.hEvent);
          rc = ls_error_set_os_code (err, (int) code, "ConnectNamedPipe(%s)", name);
          goto fail;
        }
    }
  CloseHandle (ov.hEvent);

  rc = channel_new (server, parent_end, err);
  if (rc != LS_OK)
    goto fail;
  rc = channel_new (client, child_end, err);
  if (rc != LS_OK)
    {
      ls_channel_close (*parent_end); /* closes server */
      *parent_end = NULL;
      CloseHandle (client);
      return rc;
    }
  return LS_OK;

fail:
  CloseHandle (client);
  CloseHandle (server);
  return rc;
}

int
ls_channel_from_handle (ls_handle handle, ls_channel **out, ls_error *err)
{
  HANDLE h = (HANDLE) handle;
  DWORD mode = PIPE_READMODE_MESSAGE;

  *out = NULL;
  if (handle == LS_HANDLE_INVALID || handle == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_channel_from_handle: invalid handle");
  if (GetFileType (h) != FILE_TYPE_PIPE)
    {
      DWORD code = GetLastError ();
      if (code != NO_ERROR)
        return ls_error_set_os_code (err, (int) code, "ls_channel_from_handle: GetFileType(handle %" PRIdPTR ")",
                                     handle);
      return ls_error_set (err, LS_ERR_INVALID, "ls_channel_from_handle: handle %" PRIdPTR " is not a pipe", handle);
    }
  if (!SetNamedPipeHandleState (h, &mode, NULL, NULL))
    return ls_error_set_os (err, "ls_channel_from_handle: SetNamedPipeHandleState(handle %" PRIdPTR ")", handle);
  return channel_new (h, out, err);
}

ls_handle
ls_channel_handle (const ls_channel *ch)
{
  return ch ? (ls_handle) ch->pipe : LS_HANDLE_INVALID;
}

int
ls_channel_send (ls_channel *ch, const void *msg, size_t len, ls_error *err)
{
  DWORD n = 0;
  int rc = LS_OK;

  if (!ch || !msg || len == 0 || len > LS_CHANNEL_MSG_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "ls_channel_send: message of %llu bytes (1..%d allowed)", (unsigned long long) len,
                         LS_CHANNEL_MSG_MAX);
  AcquireSRWLockExclusive (&ch->write_lock);
  ResetEvent (ch->write_event);
  memset (&ch->write_ov, 0, sizeof ch->write_ov);
  ch->write_ov.hEvent = ch->write_event;
  /* Completes once the message is in the pipe's buffer; pending while it is full. */
  if (!WriteFile (ch->pipe, msg, (DWORD) len, NULL, &ch->write_ov) && GetLastError () != ERROR_IO_PENDING)
    {
      DWORD code = GetLastError ();
      rc = is_closed_error (code) ? ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed")
                                  : ls_error_set_os_code (err, (int) code, "channel: WriteFile");
    }
  else if (!GetOverlappedResult (ch->pipe, &ch->write_ov, &n, TRUE))
    {
      DWORD code = GetLastError ();
      rc = is_closed_error (code) ? ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed")
                                  : ls_error_set_os_code (err, (int) code, "channel: WriteFile");
    }
  else if (n != len)
    rc = ls_error_set (err, LS_ERR_OS, "channel: WriteFile wrote %lu of %llu bytes", (unsigned long) n,
                       (unsigned long long) len);
  ReleaseSRWLockExclusive (&ch->write_lock);
  return rc;
}

int
ls_channel_recv (ls_channel *ch, void *buf, size_t cap, int64_t timeout_ms, ls_error *err)
{
  if (!ch || !buf || cap == 0)
    return ls_error_set (err, LS_ERR_INVALID, "ls_channel_recv: no channel or buffer");
  start_read (ch);
  for (;;)
    {
      DWORD r = wait_handles (1, &ch->read_event, timeout_ms);
      if (r == WAIT_TIMEOUT)
        return ls_error_set (err, LS_ERR_TIMEOUT, "channel: no message within %lld ms", (long long) timeout_ms);
      if (r != WAIT_OBJECT_0)
        return ls_error_set_os (err, "channel: WaitForSingleObject");
      ls_error tmp = { 0 };
      int n = collect_read (ch, buf, cap, &tmp);
      /* An empty message is skipped: wait again (same deadline, good enough for something that never happens). */
      if (n == LS_ERR_TIMEOUT)
        continue;
      if (n < 0 && err)
        *err = tmp;
      return n;
    }
}

int
ls_channel_wait (ls_channel *const *chs, size_t n, int64_t timeout_ms, unsigned char *ready, ls_error *err)
{
  HANDLE events[LS_CHANNEL_WAIT_MAX];
  DWORD count = 0;
  int n_ready = 0;

  if (n > LS_CHANNEL_WAIT_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "ls_channel_wait: %llu channels (at most %d)", (unsigned long long) n,
                         LS_CHANNEL_WAIT_MAX);
  if (n > 0 && (!chs || !ready))
    return ls_error_set (err, LS_ERR_INVALID, "ls_channel_wait: no channels or ready array");
  for (size_t i = 0; i < n; i++)
    {
      ready[i] = 0;
      if (!chs[i])
        continue;
      start_read (chs[i]);
      /* WaitForMultipleObjects refuses the same handle twice. */
      int seen = 0;
      for (DWORD k = 0; k < count && !seen; k++)
        seen = events[k] == chs[i]->read_event;
      if (!seen)
        events[count++] = chs[i]->read_event;
    }
  if (count == 0)
    {
      if (timeout_ms < 0)
        return ls_error_set (err, LS_ERR_INVALID, "ls_channel_wait: no channels to wait for, forever");
      Sleep (timeout_ms > (int64_t) (INFINITE - 1) ? INFINITE - 1 : (DWORD) timeout_ms);
      return 0;
    }
  DWORD r = wait_handles (count, events, timeout_ms);
  if (r == WAIT_TIMEOUT)
    return 0;
  if (r >= WAIT_OBJECT_0 + count)
    return ls_error_set_os (err, "ls_channel_wait: WaitForMultipleObjects");
  for (size_t i = 0; i < n; i++)
    if (chs[i] && WaitForSingleObject (chs[i]->read_event, 0) == WAIT_OBJECT_0)
      {
        ready[i] = 1;
        n_ready++;
      }
  return n_ready;
}

void
ls_channel_close (ls_channel *ch)
{
  DWORD n;

  if (!ch)
    return;
  if (ch->state == READ_PENDING)
    {
      /* The kernel writes into ch->buf until the read is really over. */
      CancelIoEx (ch->pipe, &ch->read_ov);
      GetOverlappedResult (ch->pipe, &ch->read_ov, &n, TRUE);
    }
  CloseHandle (ch->pipe);
  CloseHandle (ch->read_event);
  CloseHandle (ch->write_event);
  free (ch);
}
