/* The GPU monitor (loader/gpumon.c) against no NVML, a library that is not
 * NVML, and tests/fake-nvml.c (its path in $LS_FAKE_NVML and
 * $LS_FAKE_NVML_LEGACY, set by meson), through $LOADSCOPE_NVML_LIBRARY. */
#include <math.h>
#include <string.h>

#ifdef __GLIBC__
#include <gnu/lib-names.h>
#endif

#include "loader/gpumon.h"
#include "platform/clock.h"
#include "platform/dynlib.h"
#include "test-util.h"

#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)

/* ----------------------------------------------------------- the fake */

/* The fake's own path, and a handle on it for its fake_nvml_* hooks: the
 * monitor's dlopen of the same path gets the same instance. */
typedef struct {
  const char *path;
  ls_dynlib *lib;
  int (*live_inits) (void);
  int (*legacy_calls) (void);
} Fake;

static void
hook (Fake *f, const char *name, int (**fn) (void))
{
  ls_error err = { 0 };
  void *sym = ls_dynlib_symbol (f->lib, name, &err);
  g_assert_nonnull (sym);
  memcpy (fn, &sym, sizeof sym);
}

static void
fake_open (Fake *f, const char *env_var)
{
  ls_error err = { 0 };

  f->path = g_getenv (env_var);
  if (!f->path)
    g_error ("%s is not set: run the tests with `meson test`", env_var);
  f->lib = ls_dynlib_open (f->path, &err);
  if (!f->lib)
    g_error ("%s", err.message);
  hook (f, "fake_nvml_live_inits", &f->live_inits);
  hook (f, "fake_nvml_legacy_calls", &f->legacy_calls);
  g_setenv ("LOADSCOPE_NVML_LIBRARY", f->path, TRUE);
}

static void
fake_close (Fake *f)
{
  g_assert_cmpint (f->live_inits (), ==, 0); /* every nvmlInit was shut down */
  ls_dynlib_close (f->lib);
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
  g_unsetenv ("FAKE_NVML_FAIL_INIT");
  g_unsetenv ("FAKE_NVML_NO_UTIL");
  g_unsetenv ("FAKE_NVML_DEVICES");
}

static void
assert_unsupported (unsigned device, const char *expect)
{
  ls_error err = { 0 };
  ls_gpumon *m = (ls_gpumon *) &err; /* must be reset to NULL */

  int rc = ls_gpumon_start (device, 20, &m, &err);
  g_test_message ("start: %s", err.message);
  g_assert_cmpint (rc, ==, LS_ERR_UNSUPPORTED);
  g_assert_cmpint (err.code, ==, LS_ERR_UNSUPPORTED);
  g_assert_null (m);
  g_assert_true (g_str_has_prefix (err.message, "NVML unavailable: "));
  g_assert_nonnull (strstr (err.message, expect));
}

/* -------------------------------------------------------------- no NVML */

static void
test_no_library (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "loadscope-no-such-dir", "libnvidia-ml.so.1", NULL);

  g_setenv ("LOADSCOPE_NVML_LIBRARY", path, TRUE);
  assert_unsupported (0, path);
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
}

/* The real search: on a machine without the driver it names the library;
 * with one, it may work (or find no GPU, or fail in nvmlInit). */
static void
test_default_search (void)
{
  ls_error err = { 0 };
  ls_gpumon *m = NULL;

  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
  int rc = ls_gpumon_start (0, 20, &m, &err);
  if (rc == LS_OK)
    {
      ls_gpumon_summary s;
      g_test_message ("real NVML present");
      ls_gpumon_stop (m, &s);
      g_test_message ("%s, driver %s: %" G_GUINT64_FORMAT " samples, util %.2f", s.device_name, s.driver_version,
                      s.samples, s.mean_gpu_util);
      g_assert_cmpuint (s.samples, >=, 1);
      ls_gpumon_summary_clear (&s);
      return;
    }
  g_test_message ("start: %s", err.message);
  g_assert_cmpint (rc, ==, LS_ERR_UNSUPPORTED);
  g_assert_null (m);
  g_assert_true (g_str_has_prefix (err.message, "NVML unavailable: "));
  if (strstr (err.message, "dlopen"))
    g_assert_nonnull (strstr (err.message, "libnvidia-ml.so.1"));
}

static void
test_not_nvml (void)
{
#ifdef LIBC_SO
  g_setenv ("LOADSCOPE_NVML_LIBRARY", LIBC_SO, TRUE);
  assert_unsupported (0, LIBC_SO " has neither nvmlInit_v2 nor nvmlInit");
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
#else
  g_test_skip ("needs glibc's LIBC_SO");
#endif
}

static void
test_stop_null (void)
{
  ls_gpumon_summary s;

  memset (&s, 0xa5, sizeof s);
  ls_gpumon_stop (NULL, &s);
  g_assert_cmpuint (s.valid, ==, 0);
  g_assert_cmpuint (s.samples, ==, 0);
  g_assert_null (s.series);
  g_assert_cmpfloat (ls_gpumon_mean_util (&s, 0, 1e9), <, 0);
  ls_gpumon_summary_clear (&s);
  ls_gpumon_summary_clear (NULL);
}

/* ------------------------------------------------------------- the fake */

static ls_gpumon_summary
run_fake (uint32_t interval_ms, uint32_t for_ms)
{
  ls_error err = { 0 };
  ls_gpumon *m = NULL;
  ls_gpumon_summary s;

  int rc = ls_gpumon_start (0, interval_ms, &m, &err);
  if (rc != LS_OK)
    g_error ("ls_gpumon_start: %s", err.message);
  g_assert_nonnull (m);
  g_usleep (for_ms * 1000);
  ls_gpumon_stop (m, &s);
  return s;
}

static void
test_fake_series (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  int legacy_before = f.legacy_calls ();
  uint64_t before = ls_clock_ns ();

  ls_gpumon_summary s = run_fake (20, 300);
  double elapsed_ms = (double) (ls_clock_ns () - before) / 1e6;

  g_test_message ("%" G_GUINT64_FORMAT " samples in %.0f ms", s.samples, elapsed_ms);
  /* 300 ms at 20 ms: 16 on a quiet machine, fewer on a busy one (how many
   * is a matter of load: bench, not test); at least the first and the one
   * at stop; never more than the grid holds (a slot each 20 ms from t = 0,
   * and the one at stop). */
  g_assert_cmpuint (s.samples, >=, 2);
  g_assert_cmpuint (s.samples, <=, (guint64) (elapsed_ms / 20) + 2);
  g_assert_nonnull (s.series);
  g_assert_cmpuint (s.valid, ==, LS_GPUMON_UTIL | LS_GPUMON_MEM);
  g_assert_cmpstr (s.device_name, ==, "Fake GPU");
  g_assert_cmpstr (s.driver_version, ==, "999.99");
  g_assert_cmpuint (s.device_index, ==, 0);
  g_assert_cmpuint (s.start_ns, >=, before);
  g_assert_cmpuint (s.mem_total_bytes, ==, 16 * GIB);
  /* the newest entry points were used */
  g_assert_cmpint (f.legacy_calls (), ==, legacy_before);

  /* The series: in time order at about the interval, the fake's values
   * in its order (one NVML call per sample). */
  double gpu = 0, mem_util = 0, mem_used = 0;
  uint64_t peak = 0;
  g_assert_cmpfloat (s.series[0].t_ms, >=, 0);
  for (uint64_t i = 0; i < s.samples; i++)
    {
      const ls_gpumon_sample *x = &s.series[i];
      g_assert_cmpuint (x->valid, ==, LS_GPUMON_UTIL | LS_GPUMON_MEM);
      g_assert_cmpuint (x->gpu_util_percent % 10, ==, 0);
      g_assert_cmpuint (x->gpu_util_percent, >=, 10);
      g_assert_cmpuint (x->gpu_util_percent, <=, 100);
      g_assert_cmpuint (x->mem_util_percent, ==, x->gpu_util_percent / 2);
      g_assert_cmpuint ((x->mem_used_bytes - GIB) % (64 * MIB), ==, 0);
      g_assert_cmpuint (x->mem_used_bytes, <=, GIB + 9 * 64 * MIB);
      g_assert_cmpfloat (x->t_ms, <=, elapsed_ms);
      if (i > 0)
        {
          const ls_gpumon_sample *p = &s.series[i - 1];
          g_assert_cmpfloat (x->t_ms, >=, p->t_ms);
          g_assert_cmpuint (x->gpu_util_percent, ==, p->gpu_util_percent % 100 + 10);
        }
      gpu += x->gpu_util_percent;
      mem_util += x->mem_util_percent;
      mem_used += (double) x->mem_used_bytes;
      peak = MAX (peak, x->mem_used_bytes);
    }
  /* Spacing: samples keep to a 20 ms grid from t = 0, skipping slots only
   * when late, so the last regular one (before the one at stop) is at least
   * (samples - 2) intervals in. (Lateness only widens it: no upper bound.) */
  if (s.samples > 2)
    {
      double spacing = s.series[s.samples - 2].t_ms / (double) (s.samples - 2);
      g_assert_cmpfloat (spacing, >=, 20);
    }

  double n = (double) s.samples;
  g_assert_cmpfloat_with_epsilon (s.mean_gpu_util, gpu / n / 100, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.mean_mem_util, mem_util / n / 100, 1e-9);
  g_assert_cmpfloat (s.mean_gpu_util, >=, 0.1);
  g_assert_cmpfloat (s.mean_gpu_util, <=, 1.0);
  g_assert_cmpuint (s.peak_mem_used_bytes, ==, peak);
  g_assert_cmpfloat (fabs ((double) s.mean_mem_used_bytes - mem_used / n), <=, 1);

  /* Windows of the series. */
  g_assert_cmpfloat_with_epsilon (ls_gpumon_mean_util (&s, 0, 1e9), s.mean_gpu_util, 1e-9);
  g_assert_cmpfloat_with_epsilon (ls_gpumon_mean_util (&s, -1e9, 1e9), s.mean_gpu_util, 1e-9);
  g_assert_cmpfloat (ls_gpumon_mean_util (&s, 1e9, 2e9), <, 0);
  g_assert_cmpfloat (ls_gpumon_mean_util (&s, 100, 50), <, 0);
  double from = 100, to = 200, in = 0;
  int n_in = 0;
  for (uint64_t i = 0; i < s.samples; i++)
    if (s.series[i].t_ms >= from && s.series[i].t_ms <= to)
      {
        in += s.series[i].gpu_util_percent;
        n_in++;
      }
  g_assert_cmpint (n_in, >=, 3);
  g_assert_cmpfloat_with_epsilon (ls_gpumon_mean_util (&s, from, to), in / n_in / 100, 1e-9);
  /* One sample alone: its own value. */
  double t3 = s.series[3].t_ms;
  g_assert_cmpfloat_with_epsilon (ls_gpumon_mean_util (&s, t3, t3), s.series[3].gpu_util_percent / 100.0, 1e-9);

  ls_gpumon_summary_clear (&s);
  g_assert_null (s.series);
  g_assert_cmpuint (s.samples, ==, 0);
  fake_close (&f);
}

/* An old driver without the _v2 entry points. */
static void
test_fake_legacy (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML_LEGACY");
  int legacy_before = f.legacy_calls ();

  ls_gpumon_summary s = run_fake (10, 50);
  g_assert_cmpuint (s.samples, >=, 2);
  g_assert_cmpuint (s.valid, ==, LS_GPUMON_UTIL | LS_GPUMON_MEM);
  g_assert_cmpstr (s.device_name, ==, "Fake GPU");
  /* nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex */
  g_assert_cmpint (f.legacy_calls () - legacy_before, ==, 3);
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

static void
test_fake_init_fails (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  g_setenv ("FAKE_NVML_FAIL_INIT", "1", TRUE);
  assert_unsupported (0, "nvmlInit_v2: Driver Not Loaded (9)");
  fake_close (&f);
}

static void
test_fake_no_device (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  assert_unsupported (1, "no GPU 1 (NVML sees 1)");
  fake_close (&f); /* and nvmlShutdown was called after the successful init */
}

/* Utilization not supported by the device: absent, not zero. */
static void
test_fake_no_util (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  g_setenv ("FAKE_NVML_NO_UTIL", "1", TRUE);

  ls_gpumon_summary s = run_fake (10, 50);
  g_assert_cmpuint (s.samples, >=, 2);
  g_assert_cmpuint (s.valid, ==, LS_GPUMON_MEM);
  for (uint64_t i = 0; i < s.samples; i++)
    g_assert_cmpuint (s.series[i].valid, ==, LS_GPUMON_MEM);
  g_assert_cmpfloat (ls_gpumon_mean_util (&s, 0, 1e9), <, 0);
  g_assert_cmpuint (s.peak_mem_used_bytes, >=, GIB);
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

/* A long interval does not hold up stop: stop comes well before the next
 * slot would (10 s), however busy the machine. */
static void
test_fake_quick_stop (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");

  uint64_t t0 = ls_clock_ns ();
  ls_gpumon_summary s = run_fake (10000, 30);
  double ms = (double) (ls_clock_ns () - t0) / 1e6;
  g_test_message ("start + 30 ms + stop took %.0f ms", ms);
  g_assert_cmpfloat (ms, <, 5000);
  g_assert_cmpuint (s.samples, ==, 2); /* the first, and the one at stop */
  g_assert_cmpfloat (s.series[1].t_ms, >=, 30);
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

/* ---------------------------------------------------- by PCI bus id */

/* Starts on the device with this bus id (CUDA's index 0 as the fallback),
 * samples a little, stops. */
static ls_gpumon_summary
run_fake_bus_id (const char *bus_id)
{
  ls_error err = { 0 };
  ls_gpumon *m = NULL;
  ls_gpumon_summary s;

  if (ls_gpumon_start_device (bus_id, 0, 10, &m, &err) != LS_OK)
    g_error ("ls_gpumon_start_device (%s): %s", bus_id, err.message);
  g_usleep (30 * 1000);
  ls_gpumon_stop (m, &s);
  g_assert_cmpuint (s.samples, >=, 2);
  return s;
}

/* CUDA device 0 is NVML's device 1 (CUDA_VISIBLE_DEVICES=1): the bus id
 * finds it, whichever way the domain is written. */
static void
test_fake_by_bus_id (void)
{
  static const char *const ids[] = { "0000:11:00.0", "00000000:11:00.0", "0:11:0.0" };
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  g_setenv ("FAKE_NVML_DEVICES", "2", TRUE);
  int legacy_before = f.legacy_calls ();

  for (size_t i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      ls_gpumon_summary s = run_fake_bus_id (ids[i]);
      g_assert_cmpuint (s.device_index, ==, 1);
      g_assert_cmpstr (s.device_name, ==, "Fake GPU 1");
      g_assert_cmpstr (s.pci_bus_id, ==, ids[i]);
      g_assert_cmpstr (s.note, ==, "");
      ls_gpumon_summary_clear (&s);
    }
  g_assert_cmpint (f.legacy_calls (), ==, legacy_before); /* nvmlDeviceGetHandleByPciBusId_v2 */

  /* And the one on bus 10 is device 0. */
  ls_gpumon_summary s = run_fake_bus_id ("0000:10:00.0");
  g_assert_cmpuint (s.device_index, ==, 0);
  g_assert_cmpstr (s.device_name, ==, "Fake GPU");
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

/* A bus id NVML does not know: the index, and a note saying so. */
static void
test_fake_bus_id_not_found (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML");
  g_setenv ("FAKE_NVML_DEVICES", "2", TRUE);

  ls_gpumon_summary s = run_fake_bus_id ("0000:3B:00.0");
  g_test_message ("note: %s", s.note);
  g_assert_cmpuint (s.device_index, ==, 0);
  g_assert_cmpstr (s.device_name, ==, "Fake GPU");
  g_assert_cmpstr (s.pci_bus_id, ==, "");
  g_assert_cmpstr (s.note, ==,
                   "NVML device chosen by index 0: nvmlDeviceGetHandleByPciBusId_v2 (0000:3B:00.0): Not Found (6)");
  ls_gpumon_summary_clear (&s);

  /* No bus id at all: the index, no note. */
  ls_error err = { 0 };
  ls_gpumon *m = NULL;
  g_assert_cmpint (ls_gpumon_start_device ("", 1, 10, &m, &err), ==, LS_OK);
  ls_gpumon_stop (m, &s);
  g_assert_cmpuint (s.device_index, ==, 1);
  g_assert_cmpstr (s.note, ==, "");
  g_assert_cmpstr (s.pci_bus_id, ==, "");
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

/* An old driver: nvmlDeviceGetHandleByPciBusId without _v2. */
static void
test_fake_bus_id_legacy (void)
{
  Fake f;
  fake_open (&f, "LS_FAKE_NVML_LEGACY");
  g_setenv ("FAKE_NVML_DEVICES", "3", TRUE);
  int legacy_before = f.legacy_calls ();

  ls_gpumon_summary s = run_fake_bus_id ("0000:12:00.0");
  g_assert_cmpuint (s.device_index, ==, 2);
  g_assert_cmpstr (s.device_name, ==, "Fake GPU 2");
  /* nvmlInit, nvmlDeviceGetHandleByPciBusId */
  g_assert_cmpint (f.legacy_calls () - legacy_before, ==, 2);
  ls_gpumon_summary_clear (&s);
  fake_close (&f);
}

int
main (int argc, char **argv)
{
  g_unsetenv ("LOADSCOPE_NVML_LIBRARY");
  g_unsetenv ("FAKE_NVML_FAIL_INIT");
  g_unsetenv ("FAKE_NVML_NO_UTIL");
  g_unsetenv ("FAKE_NVML_DEVICES");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/loader/gpumon/no-library", test_no_library);
  g_test_add_func ("/loader/gpumon/default-search", test_default_search);
  g_test_add_func ("/loader/gpumon/not-nvml", test_not_nvml);
  g_test_add_func ("/loader/gpumon/stop-null", test_stop_null);
  g_test_add_func ("/loader/gpumon/fake/series", test_fake_series);
  g_test_add_func ("/loader/gpumon/fake/legacy-symbols", test_fake_legacy);
  g_test_add_func ("/loader/gpumon/fake/init-fails", test_fake_init_fails);
  g_test_add_func ("/loader/gpumon/fake/no-device", test_fake_no_device);
  g_test_add_func ("/loader/gpumon/fake/no-utilization", test_fake_no_util);
  g_test_add_func ("/loader/gpumon/fake/quick-stop", test_fake_quick_stop);
  g_test_add_func ("/loader/gpumon/fake/by-bus-id", test_fake_by_bus_id);
  g_test_add_func ("/loader/gpumon/fake/bus-id-not-found", test_fake_bus_id_not_found);
  g_test_add_func ("/loader/gpumon/fake/bus-id-legacy", test_fake_bus_id_legacy);

  return ls_test_run_checked_shm_only ();
}
