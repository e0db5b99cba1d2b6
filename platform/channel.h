/* Two-way message passing between a parent and a child: small messages of at
 * most LS_CHANNEL_MSG_MAX bytes, delivered whole and in order. A parent waits
 * on many children's channels at once with a timeout. When the other end is
 * closed, or its process dies, the channel reports LS_ERR_CLOSED.
 *
 * POSIX: a SOCK_SEQPACKET socket pair + poll. Win32: a duplex message-mode
 * named pipe with overlapped I/O + WaitForMultipleObjects. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "handle.h"

#define LS_CHANNEL_MSG_MAX 512
#define LS_CHANNEL_WAIT_MAX 60 /* channels in one ls_channel_wait call (Win32 limit is 64) */

typedef struct ls_channel ls_channel;

/* Creates a connected pair. Keep *parent_end; hand *child_end to the child
 * (inherit it over fork, or pass ls_channel_handle() to spawn) and close it
 * in the parent once the child has it. */
int ls_channel_pair (ls_channel **parent_end, ls_channel **child_end, ls_error *err);

/* In a spawned child: the end whose handle the parent passed on. */
int ls_channel_from_handle (ls_handle handle, ls_channel **out, ls_error *err);

ls_handle ls_channel_handle (const ls_channel *ch);

/* Sends one message of len bytes (1..LS_CHANNEL_MSG_MAX). Blocks while the
 * other end's queue is full. LS_ERR_CLOSED when the other end is gone. */
int ls_channel_send (ls_channel *ch, const void *msg, size_t len, ls_error *err);

/* Receives one message into buf (cap >= LS_CHANNEL_MSG_MAX is always enough).
 * timeout_ms: -1 forever, 0 poll. Returns the message length (> 0),
 * LS_ERR_TIMEOUT, LS_ERR_CLOSED, or another error. */
int ls_channel_recv (ls_channel *ch, void *buf, size_t cap, int64_t timeout_ms, ls_error *err);

/* Waits until at least one of the n channels has a message or is closed, or
 * the timeout passes. Sets ready[i] to 1 for each such channel, 0 for the
 * others. Returns how many are ready (0 on timeout), or a negative error.
 * n <= LS_CHANNEL_WAIT_MAX; NULL entries are ignored. */
int ls_channel_wait (ls_channel *const *chs, size_t n, int64_t timeout_ms, unsigned char *ready, ls_error *err);

void ls_channel_close (ls_channel *ch);
