/* A stand-in for libnvidia-ml with canned answers, loaded by
 * loader/gpumon.c through $LOADSCOPE_NVML_LIBRARY in tests/test-gpumon.c.
 *
 * One device, "Fake GPU", driver "999.99", 16 GiB, on PCI bus 10 (hex)
 * of domain 0; FAKE_NVML_DEVICES=N makes N (at most 8): device i is on
 * bus 10 + i and named "Fake GPU i" (device 0 stays "Fake GPU"). Each call of
 * nvmlDeviceGetUtilizationRates answers the next of gpu = 10, 20, ..., 100,
 * 10, ... (memory = gpu / 2); each nvmlDeviceGetMemoryInfo the next of
 * used = 1 GiB + k * 64 MiB, k = 0..9 cyclic.
 *
 * Switches, read at each call:
 *   FAKE_NVML_FAIL_INIT=1  nvmlInit* returns NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_NO_UTIL=1    nvmlDeviceGetUtilizationRates is not supported
 * Built twice: as fake-nvml (every entry point) and, with
 * -DFAKE_NVML_LEGACY, as fake-nvml-legacy (no _v2 versions: an old driver).
 * The fake_nvml_* functions let the test look inside. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
};
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

#define FAKE_NAME "Fake GPU"
#define FAKE_MAX_DEVICES 8
#define FAKE_FIRST_BUS 0x10
#define FAKE_DRIVER "999.99"
#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)

/* The exported API (prototypes, for -Wmissing-prototypes). */
#ifndef FAKE_NVML_LEGACY
nvmlReturn_t nvmlInit_v2 (void);
nvmlReturn_t nvmlDeviceGetCount_v2 (unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2 (const char *pci_bus_id, nvmlDevice_t *device);
#endif
nvmlReturn_t nvmlDeviceGetHandleByPciBusId (const char *pci_bus_id, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetIndex (nvmlDevice_t device, unsigned int *index);
nvmlReturn_t nvmlInit (void);
nvmlReturn_t nvmlDeviceGetCount (unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex (unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlShutdown (void);
nvmlReturn_t nvmlDeviceGetUtilizationRates (nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetMemoryInfo (nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetName (nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlSystemGetDriverVersion (char *version, unsigned int length);
const char *nvmlErrorString (nvmlReturn_t result);
int fake_nvml_live_inits (void);
int fake_nvml_legacy_calls (void);

struct nvmlDevice_st {
  unsigned index;
};
static struct nvmlDevice_st the_devices[FAKE_MAX_DEVICES] = { { 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 } };

static atomic_int inits;        /* nvmlInit minus nvmlShutdown */
static atomic_int legacy_calls; /* calls of the unversioned entry points */
static atomic_uint util_calls;
static atomic_uint mem_calls;

static int
switched_on (const char *name)
{
  const char *v = getenv (name);
  return v && *v && strcmp (v, "0") != 0;
}

static unsigned
device_count (void)
{
  const char *v = getenv ("FAKE_NVML_DEVICES");
  int n = v && *v ? atoi (v) : 1;
  return n < 0 ? 0 : n > FAKE_MAX_DEVICES ? FAKE_MAX_DEVICES : (unsigned) n;
}

static nvmlReturn_t
check_device (nvmlDevice_t device)
{
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  for (unsigned i = 0; i < device_count (); i++)
    if (device == &the_devices[i])
      return NVML_SUCCESS;
  return NVML_ERROR_INVALID_ARGUMENT;
}

static nvmlReturn_t
do_init (void)
{
  if (switched_on ("FAKE_NVML_FAIL_INIT"))
    return NVML_ERROR_DRIVER_NOT_LOADED;
  atomic_fetch_add (&inits, 1);
  return NVML_SUCCESS;
}

static nvmlReturn_t
do_get_count (unsigned int *count)
{
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  if (!count)
    return NVML_ERROR_INVALID_ARGUMENT;
  *count = device_count ();
  return NVML_SUCCESS;
}

static nvmlReturn_t
do_get_handle (unsigned int index, nvmlDevice_t *device)
{
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  if (index >= device_count () || !device)
    return NVML_ERROR_INVALID_ARGUMENT;
  *device = &the_devices[index];
  return NVML_SUCCESS;
}

/* "domain:bus:device.function" in hex, as NVML reads it (any case, the
 * domain 4 or 8 digits long). */
static nvmlReturn_t
do_get_handle_by_bus_id (const char *pci_bus_id, nvmlDevice_t *device)
{
  unsigned domain, bus, dev, fn;
  char end;
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  if (!pci_bus_id || !device || sscanf (pci_bus_id, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &end) != 4)
    return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned i = 0; i < device_count (); i++)
    if (domain == 0 && bus == FAKE_FIRST_BUS + i && dev == 0 && fn == 0)
      {
        *device = &the_devices[i];
        return NVML_SUCCESS;
      }
  return NVML_ERROR_NOT_FOUND;
}

#ifndef FAKE_NVML_LEGACY
nvmlReturn_t
nvmlInit_v2 (void)
{
  return do_init ();
}

nvmlReturn_t
nvmlDeviceGetCount_v2 (unsigned int *count)
{
  return do_get_count (count);
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *device)
{
  return do_get_handle (index, device);
}

nvmlReturn_t
nvmlDeviceGetHandleByPciBusId_v2 (const char *pci_bus_id, nvmlDevice_t *device)
{
  return do_get_handle_by_bus_id (pci_bus_id, device);
}
#endif

nvmlReturn_t
nvmlDeviceGetHandleByPciBusId (const char *pci_bus_id, nvmlDevice_t *device)
{
  atomic_fetch_add (&legacy_calls, 1);
  return do_get_handle_by_bus_id (pci_bus_id, device);
}

nvmlReturn_t
nvmlDeviceGetIndex (nvmlDevice_t device, unsigned int *index)
{
  nvmlReturn_t rc = check_device (device);
  if (rc != NVML_SUCCESS)
    return rc;
  *index = device->index;
  return NVML_SUCCESS;
}

nvmlReturn_t
nvmlInit (void)
{
  atomic_fetch_add (&legacy_calls, 1);
  return do_init ();
}

nvmlReturn_t
nvmlDeviceGetCount (unsigned int *count)
{
  atomic_fetch_add (&legacy_calls, 1);
  return do_get_count (count);
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex (unsigned int index, nvmlDevice_t *device)
{
  atomic_fetch_add (&legacy_calls, 1);
  return do_get_handle (index, device);
}

nvmlReturn_t
nvmlShutdown (void)
{
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  atomic_fetch_sub (&inits, 1);
  return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetUtilizationRates (nvmlDevice_t device, nvmlUtilization_t *utilization)
{
  nvmlReturn_t rc = check_device (device);
  if (rc != NVML_SUCCESS)
    return rc;
  if (switched_on ("FAKE_NVML_NO_UTIL"))
    return NVML_ERROR_NOT_SUPPORTED;
  unsigned n = atomic_fetch_add (&util_calls, 1);
  utilization->gpu = 10 * (n % 10 + 1);
  utilization->memory = utilization->gpu / 2;
  return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo (nvmlDevice_t device, nvmlMemory_t *memory)
{
  nvmlReturn_t rc = check_device (device);
  if (rc != NVML_SUCCESS)
    return rc;
  unsigned n = atomic_fetch_add (&mem_calls, 1);
  memory->total = 16 * GIB;
  memory->used = GIB + (n % 10) * 64 * MIB;
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

static nvmlReturn_t
copy_text (const char *text, char *buf, unsigned int length)
{
  if (!buf || length < strlen (text) + 1)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy (buf, text, strlen (text) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetName (nvmlDevice_t device, char *name, unsigned int length)
{
  char text[32];
  nvmlReturn_t rc = check_device (device);
  if (rc != NVML_SUCCESS)
    return rc;
  if (device->index == 0)
    snprintf (text, sizeof text, "%s", FAKE_NAME);
  else
    snprintf (text, sizeof text, "%s %u", FAKE_NAME, device->index);
  return copy_text (text, name, length);
}

nvmlReturn_t
nvmlSystemGetDriverVersion (char *version, unsigned int length)
{
  if (atomic_load (&inits) <= 0)
    return NVML_ERROR_UNINITIALIZED;
  return copy_text (FAKE_DRIVER, version, length);
}

/* NVML's own wording. */
const char *
nvmlErrorString (nvmlReturn_t result)
{
  switch (result)
    {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

int
fake_nvml_live_inits (void)
{
  return atomic_load (&inits);
}

int
fake_nvml_legacy_calls (void)
{
  return atomic_load (&legacy_calls);
}
