#include <string.h>

#include "platform/channel.h"
#include "platform/clock.h"
#include "platform/process.h"
#include "test-util.h"

/* Starts an echo child holding the child end; the parent keeps its end. */
static ls_process *
spawn_echo (ls_channel **parent_end)
{
  ls_channel *child_end = NULL;
  ls_process *proc = NULL;
  ls_error err = { 0 };
  char text[32];

  g_assert_cmpint (ls_channel_pair (parent_end, &child_end, &err), ==, LS_OK);
  ls_handle h = ls_channel_handle (child_end);
  g_snprintf (text, sizeof text, "%lld", (long long) h);
  const char *argv[] = { ls_test_helper_path (), "echo", text, NULL };
  ls_spawn_options opts = { .path = argv[0], .argv = argv, .inherit = &h, .n_inherit = 1 };
  g_assert_cmpint (ls_process_spawn (&opts, &proc, &err), ==, LS_OK);
  ls_channel_close (child_end);
  return proc;
}

static void
check_round_trip (ls_channel *ch, size_t len, unsigned char fill)
{
  unsigned char msg[LS_CHANNEL_MSG_MAX], back[LS_CHANNEL_MSG_MAX];
  ls_error err = { 0 };

  for (size_t i = 0; i < len; i++)
    msg[i] = (unsigned char) (fill + i);
  g_assert_cmpint (ls_channel_send (ch, msg, len, &err), ==, LS_OK);
  g_assert_cmpint (ls_channel_recv (ch, back, sizeof back, 5000, &err), ==, (int) len);
  g_assert_cmpmem (back, len, msg, len);
}

static void
test_echo_child_keeps_order_and_size (void)
{
  ls_channel *ch = NULL;
  ls_process *proc = spawn_echo (&ch);
  ls_error err = { 0 };
  unsigned char buf[LS_CHANNEL_MSG_MAX];
  ls_exit_status st;

  check_round_trip (ch, 1, 1);
  check_round_trip (ch, 100, 2);
  check_round_trip (ch, LS_CHANNEL_MSG_MAX, 3);

  /* Several in flight come back whole and in order. */
  for (unsigned i = 0; i < 50; i++)
    {
      unsigned char m[8] = { (unsigned char) i };
      g_assert_cmpint (ls_channel_send (ch, m, 1 + i % 8, &err), ==, LS_OK);
    }
  for (unsigned i = 0; i < 50; i++)
    {
      g_assert_cmpint (ls_channel_recv (ch, buf, sizeof buf, 5000, &err), ==, (int) (1 + i % 8));
      g_assert_cmpint (buf[0], ==, i);
    }

  /* Closing our end ends the echo loop cleanly. */
  ls_channel_close (ch);
  g_assert_cmpint (ls_process_wait (proc, 5000, &st, &err), ==, LS_OK);
  g_assert_cmpint (st.kind, ==, LS_EXIT_CODE);
  g_assert_cmpint (st.code, ==, 0);
  ls_process_free (proc);
}

static void
test_wait_reports_only_ready_channels (void)
{
  ls_channel *chs[3];
  ls_process *procs[3];
  unsigned char ready[3], buf[LS_CHANNEL_MSG_MAX];
  ls_error err = { 0 };

  for (int i = 0; i < 3; i++)
    procs[i] = spawn_echo (&chs[i]);
  g_assert_cmpint (ls_channel_wait (chs, 3, 50, ready, &err), ==, 0);
  g_assert_cmpint (ls_channel_send (chs[1], "x", 1, &err), ==, LS_OK);
  g_assert_cmpint (ls_channel_wait (chs, 3, 5000, ready, &err), ==, 1);
  g_assert_cmpint (ready[0], ==, 0);
  g_assert_cmpint (ready[1], ==, 1);
  g_assert_cmpint (ready[2], ==, 0);
  g_assert_cmpint (ls_channel_recv (chs[1], buf, sizeof buf, 0, &err), ==, 1);

  /* A NULL entry is ignored. */
  ls_channel *with_hole[3] = { chs[0], NULL, chs[2] };
  g_assert_cmpint (ls_channel_send (chs[2], "y", 1, &err), ==, LS_OK);
  g_assert_cmpint (ls_channel_wait (with_hole, 3, 5000, ready, &err), ==, 1);
  g_assert_cmpint (ready[2], ==, 1);
  g_assert_cmpint (ls_channel_recv (chs[2], buf, sizeof buf, 0, &err), ==, 1);

  for (int i = 0; i < 3; i++)
    {
      ls_channel_close (chs[i]);
      ls_process_free (procs[i]);
    }
}

static void
test_dead_peer_is_reported_promptly (void)
{
  ls_channel *ch = NULL;
  ls_process *proc = spawn_echo (&ch);
  ls_error err = { 0 };
  unsigned char ready[1], buf[16];

  check_round_trip (ch, 4, 9);
  ls_process_kill (proc, &err);
  uint64_t t0 = ls_clock_ns ();
  g_assert_cmpint (ls_channel_wait (&ch, 1, 5000, ready, &err), ==, 1);
  g_assert_cmpuint ((ls_clock_ns () - t0) / 1000000u, <, 1000);
  g_assert_cmpint (ls_channel_recv (ch, buf, sizeof buf, 0, &err), ==, LS_ERR_CLOSED);
  g_assert_cmpint (ls_channel_send (ch, "z", 1, &err), ==, LS_ERR_CLOSED);
  ls_channel_close (ch);
  ls_process_free (proc);
}

static void
test_recv_times_out (void)
{
  ls_channel *a = NULL, *b = NULL;
  ls_error err = { 0 };
  unsigned char buf[16];

  g_assert_cmpint (ls_channel_pair (&a, &b, &err), ==, LS_OK);
  uint64_t t0 = ls_clock_ns ();
  g_assert_cmpint (ls_channel_recv (a, buf, sizeof buf, 80, &err), ==, LS_ERR_TIMEOUT);
  uint64_t waited = (ls_clock_ns () - t0) / 1000000u;
  g_assert_cmpuint (waited, >=, 80);
  g_assert_cmpuint (waited, <, 2000);
  g_assert_cmpint (ls_channel_recv (a, buf, sizeof buf, 0, &err), ==, LS_ERR_TIMEOUT);
  ls_channel_close (a);
  ls_channel_close (b);
}

static void
test_bad_sizes_are_refused (void)
{
  ls_channel *a = NULL, *b = NULL;
  ls_error err = { 0 };
  unsigned char big[LS_CHANNEL_MSG_MAX + 1] = { 0 }, small[4];

  g_assert_cmpint (ls_channel_pair (&a, &b, &err), ==, LS_OK);
  g_assert_cmpint (ls_channel_send (a, big, sizeof big, &err), ==, LS_ERR_INVALID);
  g_assert_cmpint (ls_channel_send (a, big, 0, &err), ==, LS_ERR_INVALID);
  /* A message larger than the receiver's buffer is an error, not a silent cut. */
  g_assert_cmpint (ls_channel_send (a, big, 64, &err), ==, LS_OK);
  g_assert_cmpint (ls_channel_recv (b, small, sizeof small, 1000, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "64-byte"));
  ls_channel_close (a);
  ls_channel_close (b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/channel/echo-child-keeps-order-and-size", test_echo_child_keeps_order_and_size);
  g_test_add_func ("/platform/channel/wait-reports-only-ready-channels", test_wait_reports_only_ready_channels);
  g_test_add_func ("/platform/channel/dead-peer-is-reported-promptly", test_dead_peer_is_reported_promptly);
  g_test_add_func ("/platform/channel/recv-times-out", test_recv_times_out);
  g_test_add_func ("/platform/channel/bad-sizes-are-refused", test_bad_sizes_are_refused);
  return ls_test_run_checked ();
}
