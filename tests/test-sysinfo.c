/* sysinfo, procmem, proccpu, dynlib and clock. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/dynlib.h"
#include "platform/procmem.h"
#include "platform/sysinfo.h"
#include "test-util.h"

static void
test_sysinfo_describes_machine (void)
{
  ls_sysinfo info;
  ls_error err = { 0 };

  g_assert_cmpint (ls_sysinfo_read (&info, &err), ==, LS_OK);
  g_assert_cmpint (info.logical_cores, ==, (int) sysconf (_SC_NPROCESSORS_ONLN));
  g_assert_cmpint (info.affinity_cores, >=, 1);
  g_assert_cmpint (info.affinity_cores, <=, info.logical_cores);
  g_assert_cmpuint (info.total_ram_bytes, >, 64u << 20);
  g_assert_true (g_str_has_prefix (info.kernel, "Linux "));
  g_assert_cmpuint (strlen (info.os_name), >, 0);
  g_assert_cmpuint (strlen (info.cpu_model), >, 0);
  g_assert_cmpuint (strlen (info.arch), >, 0);
  g_assert_cmpuint (strlen (info.hostname), >, 0);
}

/* The machine's CPU times: busy within total, both growing, and this
 * process's own spinning counted in busy (ticks are 10 ms per processor,
 * so only a loose lower bound). */
static void
test_sysinfo_cpu_times (void)
{
  ls_cpu_times a, b;
  ls_error err = { 0 };
  volatile uint64_t x = 0;

  g_assert_cmpint (ls_sysinfo_cpu_times (&a, &err), ==, LS_OK);
  g_assert_cmpint (a.cores, ==, (int) sysconf (_SC_NPROCESSORS_ONLN));
  g_assert_cmpuint (a.busy_ns, <=, a.total_ns);
  uint64_t t0 = ls_clock_ns ();
  while (ls_clock_ns () - t0 < 300000000u)
    x += 1;
  g_assert_cmpint (ls_sysinfo_cpu_times (&b, &err), ==, LS_OK);
  g_assert_cmpuint (b.busy_ns, <=, b.total_ns);
  g_assert_cmpuint (b.total_ns, >, a.total_ns);
  g_assert_cmpuint (b.busy_ns, >=, a.busy_ns + 100000000u);
  g_assert_cmpint (ls_sysinfo_cpu_times (NULL, &err), ==, LS_ERR_INVALID);
}

static void
test_procmem_sees_touched_memory (void)
{
  ls_procmem before, after;
  ls_error err = { 0 };
  size_t size = 64u << 20;

  g_assert_cmpint (ls_procmem_read (getpid (), &before, &err), ==, LS_OK);
  g_assert_true (before.valid & LS_PROCMEM_RSS);
  g_assert_true (before.valid & LS_PROCMEM_PSS);
  g_assert_true (before.valid & LS_PROCMEM_USS);
  g_assert_cmpuint (before.rss_bytes, >, 0);
  g_assert_cmpuint (before.pss_bytes, <=, before.rss_bytes);
  g_assert_cmpuint (before.uss_bytes, <=, before.pss_bytes);

  /* volatile, so the compiler cannot drop the allocation and the writes. */
  volatile char *block = malloc (size);
  for (size_t i = 0; i < size; i += 4096)
    block[i] = 1;
  g_assert_cmpint (ls_procmem_read (getpid (), &after, &err), ==, LS_OK);
  g_assert_cmpuint (after.uss_bytes, >=, before.uss_bytes + size * 9 / 10);
  g_assert_cmpuint (after.rss_bytes, >=, before.rss_bytes + size * 9 / 10);
  free ((void *) block);
}

static void
test_procmem_of_missing_process (void)
{
  ls_procmem m;
  ls_error err = { 0 };
  uint64_t u, s;

  /* pid_max is at most 2^22 on Linux. */
  g_assert_cmpint (ls_procmem_read (1 << 23, &m, &err), ==, LS_ERR_NOT_FOUND);
  g_assert_nonnull (strstr (err.message, "8388608"));
  g_assert_cmpint (ls_proccpu_read (1 << 23, &u, &s, &err), ==, LS_ERR_NOT_FOUND);
}

static void
test_proccpu_counts_work (void)
{
  uint64_t u0, s0, u1, s1;
  ls_error err = { 0 };
  volatile uint64_t x = 0;

  /* Works until the kernel has counted 50 ms of CPU (a loaded machine gives
   * this process less than its wall time), for at most 20 s: the count
   * must grow, whatever the load. */
  g_assert_cmpint (ls_proccpu_read (getpid (), &u0, &s0, &err), ==, LS_OK);
  uint64_t t0 = ls_clock_ns ();
  do
    {
      for (int i = 0; i < 1000000; i++)
        x += 1;
      g_assert_cmpint (ls_proccpu_read (getpid (), &u1, &s1, &err), ==, LS_OK);
    }
  while ((u1 + s1) - (u0 + s0) < 50000000u && ls_clock_ns () - t0 < 20000000000u);
  g_assert_cmpuint ((u1 + s1) - (u0 + s0), >=, 50000000u);
}

static void
test_dynlib_loads_and_reports (void)
{
  ls_error err = { 0 };
  ls_dynlib *lib = ls_dynlib_open ("libc.so.6", &err);

  g_assert_nonnull (lib);
  int (*get_pid) (void) = (int (*) (void)) ls_dynlib_symbol (lib, "getpid", &err);
  g_assert_nonnull (get_pid);
  g_assert_cmpint (get_pid (), ==, getpid ());
  g_assert_null (ls_dynlib_symbol (lib, "no_such_symbol_here", &err));
  g_assert_cmpint (err.code, ==, LS_ERR_NOT_FOUND);
  g_assert_nonnull (strstr (err.message, "no_such_symbol_here"));
  ls_dynlib_close (lib);

  g_assert_null (ls_dynlib_open ("libnvidia-ml-not-here.so.1", &err));
  g_assert_cmpint (err.code, ==, LS_ERR_NOT_FOUND);
  g_assert_nonnull (strstr (err.message, "libnvidia-ml-not-here.so.1"));
}

static void
test_clock_is_monotonic (void)
{
  uint64_t a = ls_clock_ns ();
  ls_sleep_ms (20);
  uint64_t b = ls_clock_ns ();
  g_assert_cmpuint (b - a, >=, 20000000u);
  g_assert_cmpuint (b - a, <, 2000000000u);
  for (int i = 0; i < 1000; i++)
    {
      uint64_t c = ls_clock_ns ();
      g_assert_cmpuint (c, >=, b);
      b = c;
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/platform/sysinfo/describes-machine", test_sysinfo_describes_machine);
  g_test_add_func ("/platform/sysinfo/cpu-times", test_sysinfo_cpu_times);
  g_test_add_func ("/platform/procmem/sees-touched-memory", test_procmem_sees_touched_memory);
  g_test_add_func ("/platform/procmem/missing-process", test_procmem_of_missing_process);
  g_test_add_func ("/platform/proccpu/counts-work", test_proccpu_counts_work);
  g_test_add_func ("/platform/dynlib/loads-and-reports", test_dynlib_loads_and_reports);
  g_test_add_func ("/platform/clock/is-monotonic", test_clock_is_monotonic);
  return ls_test_run_checked ();
}
