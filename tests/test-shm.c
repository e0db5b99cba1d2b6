#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "platform/process.h"
#include "platform/shm.h"
#include "test-util.h"

#define ARENA_SIZE (4u << 20)

static int
run_helper (const char *const *args, const ls_handle *inherit, size_t n_inherit, ls_exit_status *st)
{
  const char *argv[16] = { ls_test_helper_path () };
  size_t n = 1;
  ls_error err = { 0 };
  ls_process *proc = NULL;

  for (; args[n - 1]; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  ls_spawn_options opts = { .path = argv[0], .argv = argv, .inherit = inherit, .n_inherit = n_inherit };
  g_assert_cmpint (ls_process_spawn (&opts, &proc, &err), ==, LS_OK);
  g_assert_cmpint (ls_process_wait (proc, 10000, st, &err), ==, LS_OK);
  ls_process_free (proc);
  return st->kind == LS_EXIT_CODE ? st->code : -1;
}

static gboolean
all_bytes_are (const ls_shm *shm, unsigned char value)
{
  const unsigned char *p = ls_shm_data (shm);
  for (size_t i = 0; i < ls_shm_size (shm); i++)
    if (p[i] != value)
      return FALSE;
  return TRUE;
}

static int
count_loadscope_entries_in_dev_shm (void)
{
  int n = 0;
  DIR *d = opendir ("/dev/shm");
  struct dirent *e;
  if (!d)
    return 0;
  while ((e = readdir (d)) != NULL)
    n += strstr (e->d_name, "loadscope") != NULL;
  closedir (d);
  return n;
}

static void
test_child_fills_arena_by_handle (void)
{
  ls_shm *shm = NULL;
  ls_error err = { 0 };
  ls_exit_status st;
  char handle[32], size[32];

  g_assert_cmpint (ls_shm_create (ARENA_SIZE, &shm, &err), ==, LS_OK);
  g_assert_cmpuint (ls_shm_size (shm), ==, ARENA_SIZE);
  g_assert_true (all_bytes_are (shm, 0));
  /* Nothing with a name exists while the arena lives. */
  g_assert_cmpint (count_loadscope_entries_in_dev_shm (), ==, 0);

  snprintf (handle, sizeof handle, "%lld", (long long) ls_shm_handle (shm));
  snprintf (size, sizeof size, "%u", ARENA_SIZE);
  ls_handle h = ls_shm_handle (shm);
  g_assert_cmpint (run_helper ((const char *[]){ "shm-fill", handle, size, "171", NULL }, &h, 1, &st), ==, 0);
  g_assert_true (all_bytes_are (shm, 171));
  ls_shm_close (shm);
}

static void
test_child_fills_arena_by_name (void)
{
  ls_shm *shm = NULL;
  ls_error err = { 0 };
  ls_exit_status st;
  char size[32];

  g_assert_cmpint (ls_shm_create (ARENA_SIZE, &shm, &err), ==, LS_OK);
  snprintf (size, sizeof size, "%u", ARENA_SIZE);
  g_assert_cmpint (run_helper ((const char *[]){ "shm-fill", ls_shm_name (shm), size, "7", NULL }, NULL, 0, &st), ==, 0);
  g_assert_true (all_bytes_are (shm, 7));
  ls_shm_close (shm);
}

static int
forked_writer (void *arg)
{
  memset (ls_shm_data (arg), 0x5a, ls_shm_size (arg));
  return 0;
}

static void
test_forked_child_shares_arena (void)
{
  ls_shm *shm = NULL;
  ls_process *proc = NULL;
  ls_error err = { 0 };
  ls_exit_status st;

  g_assert_cmpint (ls_shm_create (ARENA_SIZE, &shm, &err), ==, LS_OK);
  g_assert_cmpint (ls_process_fork (forked_writer, shm, &proc, &err), ==, LS_OK);
  g_assert_cmpint (ls_process_wait (proc, 10000, &st, &err), ==, LS_OK);
  g_assert_cmpint (st.code, ==, 0);
  ls_process_free (proc);
  g_assert_true (all_bytes_are (shm, 0x5a));
  ls_shm_close (shm);
}

static void
test_child_crash_while_mapped (void)
{
  ls_shm *shm = NULL;
  ls_error err = { 0 };
  ls_exit_status st;
  char size[32];

  g_assert_cmpint (ls_shm_create (ARENA_SIZE, &shm, &err), ==, LS_OK);
  snprintf (size, sizeof size, "%u", ARENA_SIZE);
  run_helper ((const char *[]){ "shm-crash", ls_shm_name (shm), size, NULL }, NULL, 0, &st);
  g_assert_cmpint (st.kind, ==, LS_EXIT_SIGNAL);
  g_assert_cmpint (st.signal, ==, SIGSEGV);
  /* The child's write before it crashed is visible; the arena is intact. */
  g_assert_cmpint (((unsigned char *) ls_shm_data (shm))[0], ==, 1);
  g_assert_cmpint (count_loadscope_entries_in_dev_shm (), ==, 0);
  ls_shm_close (shm);
}

static void
test_bad_opens_are_clear_errors (void)
{
  ls_shm *shm = NULL, *other = NULL;
  ls_error err = { 0 };

  g_assert_cmpint (ls_shm_create (0, &shm, &err), ==, LS_ERR_INVALID);
  g_assert_null (shm);

  g_assert_cmpint (ls_shm_open_name ("/proc/self/fd/987654", 4096, &shm, &err), ==, LS_ERR_NOT_FOUND);
  g_assert_nonnull (strstr (err.message, "/proc/self/fd/987654"));

  g_assert_cmpint (ls_shm_create (4096, &shm, &err), ==, LS_OK);
  g_assert_cmpint (ls_shm_open_name (ls_shm_name (shm), 8192, &other, &err), ==, LS_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "4096 bytes"));
  g_assert_nonnull (strstr (err.message, "8192"));
  g_assert_null (other);
  ls_shm_close (shm);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/shm/child-fills-arena-by-handle", test_child_fills_arena_by_handle);
  g_test_add_func ("/platform/shm/child-fills-arena-by-name", test_child_fills_arena_by_name);
  g_test_add_func ("/platform/shm/forked-child-shares-arena", test_forked_child_shares_arena);
  g_test_add_func ("/platform/shm/child-crash-while-mapped", test_child_crash_while_mapped);
  g_test_add_func ("/platform/shm/bad-opens-are-clear-errors", test_bad_opens_are_clear_errors);
  return ls_test_run_checked ();
}
