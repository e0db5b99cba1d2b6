#include "loader/gpumon.h"

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/dynlib.h"
#include "platform/thread.h"

/* ------------------------------------------------------------------ NVML */

/* Only what this file uses, as nvml.h declares it (a stable C ABI): there
 * is no NVML header to build against. */
typedef int nvml_return; /* nvmlReturn_t, an int-sized enum */
#define NVML_SUCCESS 0
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t */
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvml_utilization; /* nvmlUtilization_t */
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvml_memory; /* nvmlMemory_t */

typedef struct nvml_api {
  ls_dynlib *lib;
  char lib_name[300];     /* for messages */
  const char *init_name; /* the version of nvmlInit found, likewise */
  nvml_return (*init) (void);
  nvml_return (*shutdown) (void);
  nvml_return (*device_get_count) (unsigned int *count);
  nvml_return (*device_get_handle_by_index) (unsigned int index, nvml_device *device);
  /* Optional (NULL when the library lacks them): */
  nvml_return (*device_get_handle_by_pci_bus_id) (const char *pci_bus_id, nvml_device *device);
  const char *bus_id_name; /* the version found, for messages */
  nvml_return (*device_get_index) (nvml_device device, unsigned int *index);
  nvml_return (*device_get_utilization_rates) (nvml_device device, nvml_utilization *utilization);
  nvml_return (*device_get_memory_info) (nvml_device device, nvml_memory *memory);
  nvml_return (*device_get_name) (nvml_device device, char *name, unsigned int length);
  nvml_return (*system_get_driver_version) (char *version, unsigned int length);
  const char *(*error_string) (nvml_return result);
} nvml_api;

_Static_assert (sizeof (void (*) (void)) == sizeof (void *),
                "function pointers are stored from dlsym()'s void *");

/* Each entry point, newest version first. */
typedef struct {
  const char *names[2];
  size_t offset;
} nvml_symbol;

static const nvml_symbol nvml_symbols[] = {
  { { "nvmlInit_v2", "nvmlInit" }, offsetof (nvml_api, init) },
  { { "nvmlShutdown", NULL }, offsetof (nvml_api, shutdown) },
  { { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, offsetof (nvml_api, device_get_count) },
  { { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" }, offsetof (nvml_api, device_get_handle_by_index) },
  { { "nvmlDeviceGetUtilizationRates", NULL }, offsetof (nvml_api, device_get_utilization_rates) },
  { { "nvmlDeviceGetMemoryInfo", NULL }, offsetof (nvml_api, device_get_memory_info) },
  { { "nvmlDeviceGetName", NULL }, offsetof (nvml_api, device_get_name) },
  { { "nvmlSystemGetDriverVersion", NULL }, offsetof (nvml_api, system_get_driver_version) },
  { { "nvmlErrorString", NULL }, offsetof (nvml_api, error_string) },
};

/* Entry points a monitor can do without (left NULL when missing). */
static const nvml_symbol nvml_optional_symbols[] = {
  { { "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId" },
    offsetof (nvml_api, device_get_handle_by_pci_bus_id) },
  { { "nvmlDeviceGetIndex", NULL }, offsetof (nvml_api, device_get_index) },
};

/* Looks up one entry point, newest name first; NULL when none is there. */
static void *
nvml_symbol_find (const nvml_api *api, const nvml_symbol *sym, const char **found)
{
  void *p = NULL;
  for (size_t n = 0; n < 2 && sym->names[n] && !p; n++)
    if ((p = ls_dynlib_symbol (api->lib, sym->names[n], NULL)))
      *found = sym->names[n];
  return p;
}

static const char *
nvml_error_text (const nvml_api *api, nvml_return rc)
{
  const char *s = api->error_string ? api->error_string (rc) : NULL;
  return s && *s ? s : "unknown error";
}

/* Opens the library; on failure err holds the first candidate's reason. */
static bool
nvml_open_library (nvml_api *api, ls_error *err)
{
  const char *override = getenv ("LOADSCOPE_NVML_LIBRARY");

  if (override && *override)
    {
      /* Tests point this at a fake NVML; then nothing else is tried. (On
       * Windows getenv() gives the ANSI code page: keep such paths ASCII.) */
      api->lib = ls_dynlib_open (override, err);
      snprintf (api->lib_name, sizeof api->lib_name, "%s", override);
      return api->lib != NULL;
    }

#ifdef _WIN32
  /* System32 since driver 436; older drivers kept it under NVSMI. */
  char nvsmi[300];
  const char *program_files = getenv ("ProgramW6432");
  if (!program_files)
    program_files = getenv ("ProgramFiles");
  snprintf (nvsmi, sizeof nvsmi, "%s\\NVIDIA Corporation\\NVSMI\\nvml.dll",
            program_files ? program_files : "C:\\Program Files");
  const char *candidates[] = { "nvml.dll", nvsmi };
#else
  const char *candidates[] = { "libnvidia-ml.so.1", "libnvidia-ml.so" };
#endif
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    {
      api->lib = ls_dynlib_open (candidates[i], i == 0 ? err : NULL);
      if (api->lib)
        {
          snprintf (api->lib_name, sizeof api->lib_name, "%s", candidates[i]);
          return true;
        }
    }
  return false;
}

static void
nvml_close (nvml_api *api)
{
  ls_dynlib_close (api->lib);
  memset (api, 0, sizeof *api);
}

/* Loads the library and every symbol and calls nvmlInit. On failure nothing
 * stays loaded and err says why (LS_ERR_UNSUPPORTED). */
static int
nvml_load (nvml_api *api, ls_error *err)
{
  memset (api, 0, sizeof *api);
  if (!nvml_open_library (api, err))
    {
      if (err)
        err->code = LS_ERR_UNSUPPORTED; /* the message is dlopen's / LoadLibrary's */
      return LS_ERR_UNSUPPORTED;
    }

  for (size_t i = 0; i < sizeof nvml_symbols / sizeof nvml_symbols[0]; i++)
    {
      const char *const *names = nvml_symbols[i].names;
      const char *found = NULL;
      void *sym = nvml_symbol_find (api, &nvml_symbols[i], &found);
      if (!sym)
        {
          if (names[1])
            ls_error_set (err, LS_ERR_UNSUPPORTED, "%s has neither %s nor %s", api->lib_name, names[0], names[1]);
          else
            ls_error_set (err, LS_ERR_UNSUPPORTED, "%s has no %s", api->lib_name, names[0]);
          nvml_close (api);
          return LS_ERR_UNSUPPORTED;
        }
      memcpy ((char *) api + nvml_symbols[i].offset, &sym, sizeof sym);
      if (nvml_symbols[i].offset == offsetof (nvml_api, init))
        api->init_name = found;
    }

  for (size_t i = 0; i < sizeof nvml_optional_symbols / sizeof nvml_optional_symbols[0]; i++)
    {
      const char *found = NULL;
      void *sym = nvml_symbol_find (api, &nvml_optional_symbols[i], &found);
      memcpy ((char *) api + nvml_optional_symbols[i].offset, &sym, sizeof sym);
      if (nvml_optional_symbols[i].offset == offsetof (nvml_api, device_get_handle_by_pci_bus_id))
        api->bus_id_name = found;
    }

  nvml_return rc = api->init ();
  if (rc != NVML_SUCCESS)
    {
      ls_error_set (err, LS_ERR_UNSUPPORTED, "%s: %s (%d)", api->init_name, nvml_error_text (api, rc), rc);
      nvml_close (api);
      return LS_ERR_UNSUPPORTED;
    }
  return LS_OK;
}

static void
nvml_unload (nvml_api *api)
{
  api->shutdown ();
  nvml_close (api);
}

/* --------------------------------------------------------------- monitor */

struct ls_gpumon {
  nvml_api nvml;
  nvml_device device;
  uint32_t interval_ms;
  ls_thread *thread;
  ls_mutex *lock; /* guards stop */
  bool stop;
  /* Written by the sampler thread only, read once it has been joined. */
  ls_gpumon_summary sum;
  size_t capacity;
};

static void
take_sample (ls_gpumon *m)
{
  ls_gpumon_sample s = { 0 };
  nvml_utilization u;
  nvml_memory mem;

  s.t_ms = (double) (ls_clock_ns () - m->sum.start_ns) / 1e6;
  if (m->nvml.device_get_utilization_rates (m->device, &u) == NVML_SUCCESS)
    {
      s.valid |= LS_GPUMON_UTIL;
      s.gpu_util_percent = u.gpu;
      s.mem_util_percent = u.memory;
    }
  if (m->nvml.device_get_memory_info (m->device, &mem) == NVML_SUCCESS)
    {
      s.valid |= LS_GPUMON_MEM;
      s.mem_used_bytes = mem.used;
      m->sum.mem_total_bytes = mem.total;
    }
  if (!s.valid)
    return; /* no reading: absent, not zero */

  if (m->sum.samples == m->capacity)
    {
      size_t capacity = m->capacity ? 2 * m->capacity : 256;
      ls_gpumon_sample *grown = realloc (m->sum.series, capacity * sizeof *grown);
      if (!grown)
        return; /* out of memory: this sample is lost, the series stays right */
      m->sum.series = grown;
      m->capacity = capacity;
    }
  m->sum.series[m->sum.samples++] = s;
}

static bool
stopping (ls_gpumon *m)
{
  ls_mutex_lock (m->lock);
  bool stop = m->stop;
  ls_mutex_unlock (m->lock);
  return stop;
}

/* Samples on a fixed grid from start_ns (slots missed while NVML was slow
 * are skipped), sleeping in short steps so stopping is quick. */
static void
sampler_main (void *data)
{
  ls_gpumon *m = data;
  uint64_t interval_ns = (uint64_t) m->interval_ms * 1000000u;
  uint64_t next = m->sum.start_ns;

  while (!stopping (m))
    {
      ls_fork_guard_enter (); /* the runner may fork workers meanwhile */
      take_sample (m);
      ls_fork_guard_leave ();
      uint64_t now = ls_clock_ns ();
      do
        next += interval_ns;
      while (next <= now);
      while (now < next)
        {
          uint64_t left_ms = (next - now + 999999u) / 1000000u;
          ls_sleep_ms (left_ms < 10 ? (uint32_t) left_ms : 10);
          if (stopping (m))
            return;
          now = ls_clock_ns ();
        }
    }
}

/* Opens the device by PCI bus id where one is given and NVML finds it;
 * otherwise by index, the summary's note saying why. */
static int
open_device (ls_gpumon *m, const char *pci_bus_id, unsigned device_index, ls_error *err)
{
  ls_gpumon_summary *sum = &m->sum;
  nvml_return nrc;

  if (pci_bus_id && *pci_bus_id)
    {
      if (!m->nvml.device_get_handle_by_pci_bus_id)
        snprintf (sum->note, sizeof sum->note,
                  "NVML device chosen by index %u, not by PCI bus id %s: %s has no nvmlDeviceGetHandleByPciBusId",
                  device_index, pci_bus_id, m->nvml.lib_name);
      else if ((nrc = m->nvml.device_get_handle_by_pci_bus_id (pci_bus_id, &m->device)) == NVML_SUCCESS)
        {
          unsigned index;
          snprintf (sum->pci_bus_id, sizeof sum->pci_bus_id, "%s", pci_bus_id);
          if (m->nvml.device_get_index && m->nvml.device_get_index (m->device, &index) == NVML_SUCCESS)
            sum->device_index = index;
          else
            sum->device_index = UINT_MAX; /* matched, but NVML will not say its index */
          return LS_OK;
        }
      else
        snprintf (sum->note, sizeof sum->note, "NVML device chosen by index %u: %s (%s): %s (%d)", device_index,
                  m->nvml.bus_id_name, pci_bus_id, nvml_error_text (&m->nvml, nrc), nrc);
    }

  unsigned int count = 0;
  nrc = m->nvml.device_get_count (&count);
  if (nrc != NVML_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "NVML unavailable: nvmlDeviceGetCount: %s (%d)",
                         nvml_error_text (&m->nvml, nrc), nrc);
  if (device_index >= count)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "NVML unavailable: no GPU %u (NVML sees %u)", device_index, count);
  if ((nrc = m->nvml.device_get_handle_by_index (device_index, &m->device)) != NVML_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "NVML unavailable: GPU %u: %s (%d)", device_index,
                         nvml_error_text (&m->nvml, nrc), nrc);
  sum->device_index = device_index;
  return LS_OK;
}

int
ls_gpumon_start (unsigned device_index, uint32_t interval_ms, ls_gpumon **out, ls_error *err)
{
  return ls_gpumon_start_device (NULL, device_index, interval_ms, out, err);
}

int
ls_gpumon_start_device (const char *pci_bus_id, unsigned device_index, uint32_t interval_ms, ls_gpumon **out,
                        ls_error *err)
{
  ls_gpumon *m;
  int rc;

  *out = NULL;
  m = calloc (1, sizeof *m);
  if (!m || !(m->lock = ls_mutex_new ()))
    {
      free (m);
      return ls_error_set (err, LS_ERR_NOMEM, "GPU monitor: out of memory");
    }

  if (nvml_load (&m->nvml, err) != LS_OK)
    {
      ls_error_prefix (err, "NVML unavailable");
      ls_mutex_free (m->lock);
      free (m);
      return LS_ERR_UNSUPPORTED;
    }

  rc = open_device (m, pci_bus_id, device_index, err);
  if (rc == LS_OK)
    {
      /* Names are nice to have: "" when NVML will not say. */
      ls_gpumon_summary *sum = &m->sum;
      if (m->nvml.device_get_name (m->device, sum->device_name, sizeof sum->device_name) != NVML_SUCCESS)
        sum->device_name[0] = '\0';
      if (m->nvml.system_get_driver_version (sum->driver_version, sizeof sum->driver_version) != NVML_SUCCESS)
        sum->driver_version[0] = '\0';
      sum->device_name[sizeof sum->device_name - 1] = '\0';
      sum->driver_version[sizeof sum->driver_version - 1] = '\0';

      m->interval_ms = interval_ms ? interval_ms : 100;
      sum->start_ns = ls_clock_ns ();
      if (ls_thread_start (&m->thread, sampler_main, m, err) != LS_OK)
        rc = err ? err->code : LS_ERR_OS;
    }

  if (rc != LS_OK)
    {
      nvml_unload (&m->nvml);
      free (m->sum.series);
      ls_mutex_free (m->lock);
      free (m);
      return rc;
    }
  *out = m;
  return LS_OK;
}

void
ls_gpumon_stop (ls_gpumon *m, ls_gpumon_summary *summary)
{
  memset (summary, 0, sizeof *summary);
  if (!m)
    return;

  ls_mutex_lock (m->lock);
  m->stop = true;
  ls_mutex_unlock (m->lock);
  ls_thread_join (m->thread);
  take_sample (m);
  nvml_unload (&m->nvml);

  *summary = m->sum;
  uint64_t n_util = 0, n_mem = 0;
  double gpu = 0, mem_util = 0, mem_used = 0;
  for (uint64_t i = 0; i < summary->samples; i++)
    {
      const ls_gpumon_sample *s = &summary->series[i];
      summary->valid |= s->valid;
      if (s->valid & LS_GPUMON_UTIL)
        {
          n_util++;
          gpu += s->gpu_util_percent;
          mem_util += s->mem_util_percent;
        }
      if (s->valid & LS_GPUMON_MEM)
        {
          n_mem++;
          mem_used += (double) s->mem_used_bytes;
          if (s->mem_used_bytes > summary->peak_mem_used_bytes)
            summary->peak_mem_used_bytes = s->mem_used_bytes;
        }
    }
  if (n_util)
    {
      summary->mean_gpu_util = gpu / (double) n_util / 100.0;
      summary->mean_mem_util = mem_util / (double) n_util / 100.0;
    }
  if (n_mem)
    summary->mean_mem_used_bytes = (uint64_t) (mem_used / (double) n_mem + 0.5);

  ls_mutex_free (m->lock);
  free (m);
}

double
ls_gpumon_mean_util (const ls_gpumon_summary *s, double from_ms, double to_ms)
{
  double total = 0;
  uint64_t n = 0;

  if (!s)
    return -1;
  for (uint64_t i = 0; i < s->samples; i++)
    {
      const ls_gpumon_sample *x = &s->series[i];
      if ((x->valid & LS_GPUMON_UTIL) && x->t_ms >= from_ms && x->t_ms <= to_ms)
        {
          total += x->gpu_util_percent;
          n++;
        }
    }
  return n ? total / (double) n / 100.0 : -1;
}

void
ls_gpumon_summary_clear (ls_gpumon_summary *s)
{
  if (!s)
    return;
  free (s->series);
  memset (s, 0, sizeof *s);
}
