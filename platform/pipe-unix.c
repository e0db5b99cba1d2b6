#define _GNU_SOURCE
#include "pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

int
ls_pipe_open (ls_handle *read_end, ls_handle *write_end, ls_error *err)
{
  int fds[2];
  *read_end = *write_end = LS_HANDLE_INVALID;
  if (pipe2 (fds, O_CLOEXEC) != 0)
    return ls_error_set_os (err, "pipe2");
  /* Non-blocking: a read after poll never waits for a full buffer. */
  fcntl (fds[0], F_SETFL, fcntl (fds[0], F_GETFL) | O_NONBLOCK);
  *read_end = fds[0];
  *write_end = fds[1];
  return LS_OK;
}

int64_t
ls_pipe_read (ls_handle read_end, void *buf, size_t cap, int64_t timeout_ms, ls_error *err)
{
  int fd = (int) read_end;
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  int timeout = timeout_ms < 0 ? -1 : timeout_ms > 1000000 ? 1000000 : (int) timeout_ms;
  int ready = poll (&pfd, 1, timeout);
  if (ready < 0 && errno != EINTR)
    return ls_error_set_os (err, "poll on a pipe");
  if (ready <= 0)
    return ls_error_set (err, LS_ERR_TIMEOUT, "nothing on the pipe within %lld ms", (long long) timeout_ms);
  ssize_t n;
  do
    n = read (fd, buf, cap);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return ls_error_set (err, LS_ERR_TIMEOUT, "nothing on the pipe");
  if (n < 0)
    return ls_error_set_os (err, "read from a pipe");
  return n;
}

void
ls_pipe_close (ls_handle end)
{
  if (end != LS_HANDLE_INVALID)
    close ((int) end);
}

ls_handle
ls_pipe_stderr_dup (ls_error *err)
{
  int fd = fcntl (2, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    {
      ls_error_set_os (err, "dup of standard error");
      return LS_HANDLE_INVALID;
    }
  return fd;
}

ls_handle
ls_pipe_stdin (void)
{
  return 0;
}
