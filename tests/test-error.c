#include <errno.h>
#include <string.h>

#include "platform/error.h"
#include "platform/handle.h"
#include "test-util.h"

static void
test_set_and_prefix (void)
{
  ls_error err = { 0 };

  g_assert_cmpint (ls_error_set (&err, LS_ERR_INVALID, "bad %s %d", "size", 3), ==, LS_ERR_INVALID);
  g_assert_cmpint (err.code, ==, LS_ERR_INVALID);
  g_assert_cmpstr (err.message, ==, "bad size 3");
  ls_error_prefix (&err, "opening %s", "/x");
  g_assert_cmpstr (err.message, ==, "opening /x: bad size 3");
  ls_error_clear (&err);
  g_assert_cmpint (err.code, ==, LS_OK);
  g_assert_cmpstr (err.message, ==, "");
}

static void
test_os_error_names_call_and_reason (void)
{
  ls_error err = { 0 };

  errno = ENOENT;
  g_assert_cmpint (ls_error_set_os (&err, "open %s", "/nowhere"), ==, LS_ERR_OS);
  g_assert_cmpint (err.os_code, ==, ENOENT);
  g_assert_cmpstr (err.message, ==, "open /nowhere: No such file or directory");

  ls_error_set_os_code (&err, EACCES, "mmap");
  g_assert_cmpstr (err.message, ==, "mmap: Permission denied");
}

static void
test_null_error_is_allowed (void)
{
  g_assert_cmpint (ls_error_set (NULL, LS_ERR_TIMEOUT, "x"), ==, LS_ERR_TIMEOUT);
  g_assert_cmpint (ls_error_set_os (NULL, "y"), ==, LS_ERR_OS);
  ls_error_prefix (NULL, "z");
  ls_error_clear (NULL);
}

static void
test_long_message_is_truncated_safely (void)
{
  ls_error err = { 0 };
  g_autofree char *big = g_strnfill (4 * LS_ERROR_MESSAGE_MAX, 'a');

  ls_error_set (&err, LS_ERR_INVALID, "%s", big);
  g_assert_cmpuint (strlen (err.message), ==, LS_ERROR_MESSAGE_MAX - 1);
  ls_error_prefix (&err, "%s", big);
  g_assert_cmpuint (strlen (err.message), ==, LS_ERROR_MESSAGE_MAX - 1);
}

static void
test_handle_parse (void)
{
  ls_handle h = 0;

  g_assert_cmpint (ls_handle_parse ("17", &h), ==, 0);
  g_assert_cmpint (h, ==, 17);
  g_assert_cmpint (ls_handle_parse ("1234567890123", &h), ==, 0);
  g_assert_cmpint (h, ==, 1234567890123);
  g_assert_cmpint (ls_handle_parse ("", &h), ==, -1);
  g_assert_cmpint (ls_handle_parse ("12x", &h), ==, -1);
  g_assert_cmpint (ls_handle_parse ("-3", &h), ==, -1);
  g_assert_cmpint (ls_handle_parse ("/dev/shm/x", &h), ==, -1);
  g_assert_cmpint (ls_handle_parse (NULL, &h), ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/error/set-and-prefix", test_set_and_prefix);
  g_test_add_func ("/platform/error/os-error-names-call-and-reason", test_os_error_names_call_and_reason);
  g_test_add_func ("/platform/error/null-error-is-allowed", test_null_error_is_allowed);
  g_test_add_func ("/platform/error/long-message-is-truncated-safely", test_long_message_is_truncated_safely);
  g_test_add_func ("/platform/handle/parse", test_handle_parse);
  return ls_test_run_checked ();
}
