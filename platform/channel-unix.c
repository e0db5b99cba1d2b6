#define _GNU_SOURCE
#include "channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"

struct ls_channel {
  int fd;
};

static ls_channel *
channel_new (int fd)
{
  ls_channel *ch = calloc (1, sizeof *ch);
  if (ch)
    ch->fd = fd;
  return ch;
}

int
ls_channel_pair (ls_channel **parent_end, ls_channel **child_end, ls_error *err)
{
  int fds[2];

  *parent_end = *child_end = NULL;
  /* SEQPACKET keeps message boundaries and reports EOF when the peer dies. */
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    return ls_error_set_os (err, "socketpair(AF_UNIX, SOCK_SEQPACKET)");
  *parent_end = channel_new (fds[0]);
  *child_end = channel_new (fds[1]);
  if (!*parent_end || !*child_end)
    {
      ls_channel_close (*parent_end);
      ls_channel_close (*child_end);
      *parent_end = *child_end = NULL;
      return ls_error_set (err, LS_ERR_NOMEM, "channel: out of memory");
    }
  return LS_OK;
}

int
ls_channel_from_handle (ls_handle handle, ls_channel **out, ls_error *err)
{
  int fd = (int) handle;
  int type = 0;
  socklen_t len = sizeof type;

  *out = NULL;
  if (getsockopt (fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
    return ls_error_set_os (err, "channel: inherited fd %d", fd);
  if (type != SOCK_SEQPACKET)
    return ls_error_set (err, LS_ERR_INVALID, "channel: inherited fd %d is not a message socket", fd);
  fcntl (fd, F_SETFD, FD_CLOEXEC);
  *out = channel_new (fd);
  if (!*out)
    return ls_error_set (err, LS_ERR_NOMEM, "channel: out of memory");
  return LS_OK;
}

ls_handle
ls_channel_handle (const ls_channel *ch)
{
  return ch->fd;
}

int
ls_channel_send (ls_channel *ch, const void *msg, size_t len, ls_error *err)
{
  ssize_t n;

  if (len == 0 || len > LS_CHANNEL_MSG_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "channel: message of %zu bytes (1..%d allowed)", len,
                         LS_CHANNEL_MSG_MAX);
  do
    n = send (ch->fd, msg, len, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN)
        return ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed");
      return ls_error_set_os (err, "channel send");
    }
  return LS_OK;
}

/* poll() with an int64 timeout, restarted on EINTR with the time left. */
static int
poll_for (struct pollfd *pfds, nfds_t n, int64_t timeout_ms)
{
  uint64_t deadline = timeout_ms > 0 ? ls_clock_ns () + (uint64_t) timeout_ms * 1000000u : 0;

  for (;;)
    {
      int t = -1;
      if (timeout_ms == 0)
        t = 0;
      else if (timeout_ms > 0)
        {
          uint64_t now = ls_clock_ns ();
          uint64_t left = now >= deadline ? 0 : (deadline - now + 999999u) / 1000000u;
          t = left > 60000 ? 60000 : (int) left;
        }
      int r = poll (pfds, n, t);
      if (r >= 0 && (r > 0 || timeout_ms <= 0 || ls_clock_ns () >= deadline))
        return r;
      if (r < 0 && errno != EINTR)
        return -1;
    }
}

int
ls_channel_recv (ls_channel *ch, void *buf, size_t cap, int64_t timeout_ms, ls_error *err)
{
  struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
  ssize_t n;

  int r = poll_for (&pfd, 1, timeout_ms);
  if (r < 0)
    return ls_error_set_os (err, "channel poll");
  if (r == 0)
    return ls_error_set (err, LS_ERR_TIMEOUT, "channel: no message within %lld ms", (long long) timeout_ms);
  do
    n = recv (ch->fd, buf, cap, MSG_TRUNC);
  while (n < 0 && errno == EINTR);
  if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == ENOTCONN)))
    return ls_error_set (err, LS_ERR_CLOSED, "channel: the other end is closed");
  if (n < 0)
    return ls_error_set_os (err, "channel recv");
  if ((size_t) n > cap)
    return ls_error_set (err, LS_ERR_INVALID, "channel: a %zd-byte message does not fit %zu bytes", n, cap);
  return (int) n;
}

int
ls_channel_wait (ls_channel *const *chs, size_t n, int64_t timeout_ms, unsigned char *ready, ls_error *err)
{
  struct pollfd pfds[LS_CHANNEL_WAIT_MAX];
  int count = 0;

  if (n > LS_CHANNEL_WAIT_MAX)
    return ls_error_set (err, LS_ERR_INVALID, "channel wait: %zu channels (at most %d)", n, LS_CHANNEL_WAIT_MAX);
  for (size_t i = 0; i < n; i++)
    {
      pfds[i].fd = chs[i] ? chs[i]->fd : -1; /* poll ignores negative fds */
      pfds[i].events = POLLIN;
      pfds[i].revents = 0;
    }
  int r = poll_for (pfds, n, timeout_ms);
  if (r < 0)
    return ls_error_set_os (err, "channel wait: poll");
  for (size_t i = 0; i < n; i++)
    {
      ready[i] = (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : 0;
      count += ready[i];
    }
  return count;
}

void
ls_channel_close (ls_channel *ch)
{
  if (!ch)
    return;
  close (ch->fd);
  free (ch);
}
