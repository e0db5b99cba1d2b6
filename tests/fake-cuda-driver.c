/* A stand-in for the CUDA driver (libcuda.so.1, nvcuda.dll), loaded by the
 * cuda sink through $LOADSCOPE_CUDA_LIBRARY in tests/test-sink-cuda.c, so
 * that the sink's host side (context, streams, events, ordering, slot
 * releases, calibration, errors, clean-up) runs on machines without a GPU.
 * Portable C: it builds as a Windows DLL too (the sink under Wine).
 *
 * The "device" keeps a timeline, like the sim sink: each stream is busy
 * until some moment; a copy takes bytes / bandwidth (pinned or pageable by
 * where the source lies), a kernel a launch cost plus the bytes it reads
 * plus its spin at a fixed SM clock. Events take the time their stream
 * reaches them; synchronizing waits for that moment. Work queued right
 * after an event starts at the event's moment (`held`), and an event
 * recorded right after work is at the work's end (`worked`), so a host
 * that is descheduled between the calls does not stretch event-timed work:
 * the timings are the model's. Which step the host waited for is counted
 * (fake_cuda_kernels_waited), never timed, so tests assert order. Memory
 * is checked the way a GPU would fault: copies and kernels must stay
 * inside device allocations; work needs a current context; the module
 * must be the model step's PTX.
 *
 * Knobs (environment, read at each call):
 *   FAKE_CUDA_DEVICES=N        N devices (default 1); negative: cuInit fails
 *                              with error -N (100: no device, 999: ...)
 *   FAKE_CUDA_DRIVER_VERSION=V cuDriverGetVersion (default 13000); PTX of
 *                              ISA a.b needs a driver of (a + 4).0 or newer
 *   FAKE_CUDA_FAIL=<symbol>    that entry point fails (cuMemAlloc_v2, ...)
 *   FAKE_CUDA_FAIL_AFTER=N     ... after N calls that succeed (default 0)
 *   FAKE_CUDA_FAIL_CODE=E      ... with E (default: out of memory for the
 *                              allocations, else CUDA_ERROR_ILLEGAL_ADDRESS);
 *                              700 and 719 are sticky, as on a GPU: every
 *                              later call fails so until the context goes
 *   FAKE_CUDA_PCI_BUS=B        device d on PCI bus B + d (hex, default 10),
 *                              domain 0, as fake-nvml.c's device i on 10 + i
 * Built twice: fake-cuda-driver (every entry point under its newest name)
 * and, with -DFAKE_CUDA_LEGACY, fake-cuda-driver-legacy (the older names
 * where the sink may fall back to them). fake_cuda_* let the test look in. */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define FAKE_API __declspec (dllexport)
#else
#include <time.h>
#define FAKE_API __attribute__ ((visibility ("default")))
#endif

#include "loader/cuda-driver.h"

#define FAKE_CYCLES_PER_MS 1.41e6        /* SM clock, 1.41 GHz */
#define FAKE_READ_BYTES_PER_MS 2.0e9     /* the kernel reads at 2 TB/s */
#define FAKE_LAUNCH_MS 0.004
#define FAKE_PINNED_BYTES_PER_MS 24.0e6  /* 24 GB/s */
#define FAKE_PAGEABLE_BYTES_PER_MS 8.0e6 /* 8 GB/s */
#define FAKE_SMS 4
#define MAX_RANGES 64
#define MAX_DEVICES 8

#ifdef FAKE_CUDA_LEGACY
#define V2(name) name
#define V2S(name) name
#else
#define V2(name) name##_v2
#define V2S(name) name "_v2"
#endif

struct CUstream_st {
  double free_at;
  int held;     /* an event was just recorded: the next work starts at it */
  int worked;   /* work was just queued: the next event is at its end */
  long kernels; /* kernels launched anywhere up to its last one */
};
struct CUevent_st {
  double t;
  int recorded;
  long kernels; /* kernels of its stream that came before it */
};
struct CUctx_st {
  int device;
  int retained;
};
struct CUmod_st {
  int loaded;
};
struct CUfunc_st {
  int step;
};

typedef struct {
  const uint8_t *p;
  size_t n;
} range;

static range device_ranges[MAX_RANGES], pinned_ranges[MAX_RANGES];
static int n_live_objects; /* allocations, registrations, streams, events, modules, context retains */
static int initialised;
static struct CUctx_st contexts[MAX_DEVICES];
static CUcontext current;
static CUresult sticky; /* a lost context's error */
static struct CUfunc_st step_function = { 1 };
static long kernels_launched, kernels_waited;

/* --------------------------------------------------- for the test only */

FAKE_API int fake_cuda_live_objects (void);
FAKE_API long fake_cuda_kernels_launched (void);
FAKE_API long fake_cuda_kernels_waited (void);
FAKE_API const char *fake_cuda_trace (void);
FAKE_API void fake_cuda_trace_clear (void);

/* Every entry point called, by name, space-separated (the sink's call
 * order); the latest 64 KiB. */
static char trace[65536];
static size_t trace_len;

static void
traced (const char *fn)
{
  size_t n = strlen (fn);
  if (trace_len + n + 2 > sizeof trace)
    trace_len = 0;
  memcpy (trace + trace_len, fn, n);
  trace_len += n;
  trace[trace_len++] = ' ';
  trace[trace_len] = '\0';
}

int
fake_cuda_live_objects (void)
{
  return n_live_objects;
}

long
fake_cuda_kernels_launched (void)
{
  return kernels_launched;
}

long
fake_cuda_kernels_waited (void)
{
  return kernels_waited;
}

const char *
fake_cuda_trace (void)
{
  return trace;
}

void
fake_cuda_trace_clear (void)
{
  trace_len = 0;
  trace[0] = '\0';
}

static void
waited_for (long kernels)
{
  if (kernels > kernels_waited)
    kernels_waited = kernels;
}

/* ------------------------------------------------------------ the clock */

static double
now_ms (void)
{
#ifdef _WIN32
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency (&f);
  QueryPerformanceCounter (&c);
  return (double) c.QuadPart * 1e3 / (double) f.QuadPart;
#else
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
#endif
}

static void
wait_until (double t)
{
  double left;
  while ((left = t - now_ms ()) > 0)
    if (left > 1.5)
      {
#ifdef _WIN32
        Sleep ((DWORD) (left - 1));
#else
        struct timespec ts = { 0, (long) ((left - 1) * 1e6) };
        nanosleep (&ts, NULL);
#endif
      }
}

static double
max2 (double a, double b)
{
  return a > b ? a : b;
}

/* When work queued on s starts. Right after an event it starts at the
 * event's moment, as if the host had queued both at once. */
static double
work_start (struct CUstream_st *s)
{
  double start = s->held ? s->free_at : max2 (now_ms (), s->free_at);
  s->held = 0;
  s->worked = 1;
  return start;
}

/* ------------------------------------------------------- the knobs */

static long
env_long (const char *name, long fallback)
{
  const char *v = getenv (name);
  return v && *v ? strtol (v, NULL, 0) : fallback;
}

/* Calls of the entry point FAKE_CUDA_FAIL names since the last cuInit
 * (each sink's open calls it). */
static long fail_calls;

/* Whether fn is to fail now (FAKE_CUDA_FAIL, after FAKE_CUDA_FAIL_AFTER
 * calls of it); *code says with what. */
static int
injected (const char *fn, CUresult fallback, CUresult *code)
{
  const char *f = getenv ("FAKE_CUDA_FAIL");

  if (!f || strcmp (f, fn) != 0)
    return 0;
  if (fail_calls++ < env_long ("FAKE_CUDA_FAIL_AFTER", 0))
    return 0;
  *code = (CUresult) env_long ("FAKE_CUDA_FAIL_CODE", fallback);
  if (*code == CUDA_ERROR_ILLEGAL_ADDRESS || *code == CUDA_ERROR_LAUNCH_FAILED)
    sticky = *code;
  return 1;
}

/* The common checks of an entry point: traced, initialised, injected. */
#define ENTER(fn, fallback)                    \
  do                                           \
    {                                          \
      CUresult injected_code_;                 \
      traced (fn);                             \
      if (!initialised)                        \
        return CUDA_ERROR_NOT_INITIALIZED;     \
      if (injected (fn, fallback, &injected_code_)) \
        return injected_code_;                 \
    }                                          \
  while (0)

/* ... and of one that works in the current context. */
#define ENTER_CTX(fn, fallback)            \
  do                                       \
    {                                      \
      ENTER (fn, fallback);                \
      if (sticky)                          \
        return sticky;                     \
      if (!current)                        \
        return CUDA_ERROR_INVALID_CONTEXT; \
    }                                      \
  while (0)

static int
device_count (void)
{
  long n = env_long ("FAKE_CUDA_DEVICES", 1);
  return n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : (int) n;
}

static int
pci_bus (int device)
{
  const char *b = getenv ("FAKE_CUDA_PCI_BUS");
  return (int) strtol (b && *b ? b : "10", NULL, 16) + device;
}

/* -------------------------------------------------------------- ranges */

static int
range_add (range *set, const void *p, size_t n)
{
  for (int i = 0; i < MAX_RANGES; i++)
    if (!set[i].p)
      {
        set[i].p = p;
        set[i].n = n;
        n_live_objects++;
        return 1;
      }
  return 0;
}

static int
range_remove (range *set, const void *p)
{
  for (int i = 0; i < MAX_RANGES; i++)
    if (set[i].p && set[i].p == p)
      {
        set[i].p = NULL;
        n_live_objects--;
        return 1;
      }
  return 0;
}

/* Whether [p, p + n) lies inside one range of the set. */
static int
range_holds (const range *set, const void *p, size_t n)
{
  const uint8_t *q = p;
  for (int i = 0; i < MAX_RANGES; i++)
    if (set[i].p && q >= set[i].p && q + n <= set[i].p + set[i].n)
      return 1;
  return 0;
}

static void *
dptr (CUdeviceptr p)
{
  return (void *) (uintptr_t) p;
}

/* ---------------------------------------------------------- the entry points */

FAKE_API CUresult cuInit (unsigned int flags);
FAKE_API CUresult cuDriverGetVersion (int *version);
FAKE_API CUresult cuGetErrorName (CUresult e, const char **name);
FAKE_API CUresult cuGetErrorString (CUresult e, const char **text);
FAKE_API CUresult cuDeviceGetCount (int *count);
FAKE_API CUresult cuDeviceGet (CUdevice *device, int ordinal);
FAKE_API CUresult cuDeviceGetName (char *name, int len, CUdevice device);
FAKE_API CUresult cuDeviceGetAttribute (int *value, int attribute, CUdevice device);
FAKE_API CUresult cuDeviceGetPCIBusId (char *bus_id, int len, CUdevice device);
FAKE_API CUresult cuDevicePrimaryCtxRetain (CUcontext *ctx, CUdevice device);
FAKE_API CUresult V2 (cuDevicePrimaryCtxRelease) (CUdevice device);
FAKE_API CUresult cuCtxSetCurrent (CUcontext ctx);
FAKE_API CUresult cuMemAlloc_v2 (CUdeviceptr *p, size_t n);
FAKE_API CUresult cuMemFree_v2 (CUdeviceptr p);
FAKE_API CUresult cuMemsetD8_v2 (CUdeviceptr p, unsigned char v, size_t n);
FAKE_API CUresult cuMemHostAlloc (void **p, size_t n, unsigned int flags);
FAKE_API CUresult cuMemFreeHost (void *p);
FAKE_API CUresult V2 (cuMemHostRegister) (void *p, size_t n, unsigned int flags);
FAKE_API CUresult cuMemHostUnregister (void *p);
FAKE_API CUresult cuStreamCreate (CUstream *s, unsigned int flags);
FAKE_API CUresult V2 (cuStreamDestroy) (CUstream s);
FAKE_API CUresult cuStreamSynchronize (CUstream s);
FAKE_API CUresult cuStreamWaitEvent (CUstream s, CUevent ev, unsigned int flags);
FAKE_API CUresult cuEventCreate (CUevent *ev, unsigned int flags);
FAKE_API CUresult V2 (cuEventDestroy) (CUevent ev);
FAKE_API CUresult cuEventRecord (CUevent ev, CUstream s);
FAKE_API CUresult cuEventQuery (CUevent ev);
FAKE_API CUresult cuEventSynchronize (CUevent ev);
FAKE_API CUresult V2 (cuEventElapsedTime) (float *ms, CUevent a, CUevent b);
FAKE_API CUresult cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src, size_t n, CUstream s);
FAKE_API CUresult cuModuleLoadData (CUmodule *module, const void *image);
FAKE_API CUresult cuModuleUnload (CUmodule module);
FAKE_API CUresult cuModuleGetFunction (CUfunction *fn, CUmodule module, const char *name);
FAKE_API CUresult cuLaunchKernel (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                  unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,
                                  void **extra);

CUresult
cuInit (unsigned int flags)
{
  long n = env_long ("FAKE_CUDA_DEVICES", 1);
  traced ("cuInit");
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (n < 0)
    return (CUresult) -n;
  initialised = 1;
  fail_calls = 0;
  return CUDA_SUCCESS;
}

CUresult
cuDriverGetVersion (int *version)
{
  traced ("cuDriverGetVersion");
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = (int) env_long ("FAKE_CUDA_DRIVER_VERSION", 13000);
  return CUDA_SUCCESS;
}

static const struct {
  CUresult e;
  const char *name, *text;
} errors[] = {
  { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
  { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
  { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
  { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
  { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
  { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
  { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
  { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
  { CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "the provided PTX was compiled with an unsupported toolchain." },
  { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
  { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
  { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready" },
  { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
  { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
  { CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
    "pointer does not correspond to a registered memory region" },
  { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

CUresult
cuGetErrorName (CUresult e, const char **name)
{
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].e == e)
      {
        *name = errors[i].name;
        return CUDA_SUCCESS;
      }
  *name = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult
cuGetErrorString (CUresult e, const char **text)
{
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].e == e)
      {
        *text = errors[i].text;
        return CUDA_SUCCESS;
      }
  *text = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* --------------------------------------------------------------- devices */

CUresult
cuDeviceGetCount (int *count)
{
  ENTER ("cuDeviceGetCount", CUDA_ERROR_UNKNOWN);
  *count = device_count ();
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGet (CUdevice *device, int ordinal)
{
  ENTER ("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE);
  if (ordinal < 0 || ordinal >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGetName (char *name, int len, CUdevice device)
{
  ENTER ("cuDeviceGetName", CUDA_ERROR_UNKNOWN);
  if (device < 0 || device >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf (name, (size_t) len, "Fake GPU %d", device);
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGetAttribute (int *value, int attribute, CUdevice device)
{
  ENTER ("cuDeviceGetAttribute", CUDA_ERROR_UNKNOWN);
  if (device < 0 || device >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute)
    {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = FAKE_SMS; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = pci_bus (device); break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
  return CUDA_SUCCESS;
}

CUresult
cuDeviceGetPCIBusId (char *bus_id, int len, CUdevice device)
{
  ENTER ("cuDeviceGetPCIBusId", CUDA_ERROR_INVALID_VALUE);
  if (device < 0 || device >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  /* The driver's own format: "0000:1A:00.0" (13 bytes with the NUL). */
  if (!bus_id || len < 13)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf (bus_id, (size_t) len, "%04X:%02X:%02X.0", 0u, (unsigned) pci_bus (device) & 0xffu, 0u);
  return CUDA_SUCCESS;
}

CUresult
cuDevicePrimaryCtxRetain (CUcontext *ctx, CUdevice device)
{
  ENTER ("cuDevicePrimaryCtxRetain", CUDA_ERROR_UNKNOWN);
  if (device < 0 || device >= device_count ())
    return CUDA_ERROR_INVALID_DEVICE;
  contexts[device].device = device;
  contexts[device].retained++;
  n_live_objects++;
  *ctx = &contexts[device];
  return CUDA_SUCCESS;
}

CUresult
V2 (cuDevicePrimaryCtxRelease) (CUdevice device)
{
  ENTER (V2S ("cuDevicePrimaryCtxRelease"), CUDA_ERROR_UNKNOWN);
  if (device < 0 || device >= MAX_DEVICES || contexts[device].retained == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  n_live_objects--;
  if (--contexts[device].retained == 0)
    {
      /* The context is destroyed: a lost one is usable again. */
      sticky = CUDA_SUCCESS;
      if (current == &contexts[device])
        current = NULL;
    }
  return CUDA_SUCCESS;
}

CUresult
cuCtxSetCurrent (CUcontext ctx)
{
  ENTER ("cuCtxSetCurrent", CUDA_ERROR_UNKNOWN);
  if (ctx && ctx->retained == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  current = ctx;
  return CUDA_SUCCESS;
}

/* --------------------------------------------------------------- memory */

CUresult
cuMemAlloc_v2 (CUdeviceptr *p, size_t n)
{
  ENTER_CTX ("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  void *q = n ? malloc (n) : NULL;
  if (!q || !range_add (device_ranges, q, n))
    {
      free (q);
      return n ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
    }
  *p = (CUdeviceptr) (uintptr_t) q;
  return CUDA_SUCCESS;
}

CUresult
cuMemFree_v2 (CUdeviceptr p)
{
  traced ("cuMemFree_v2");
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!range_remove (device_ranges, dptr (p)))
    return CUDA_ERROR_INVALID_VALUE;
  free (dptr (p));
  return CUDA_SUCCESS;
}

CUresult
cuMemsetD8_v2 (CUdeviceptr p, unsigned char v, size_t n)
{
  ENTER_CTX ("cuMemsetD8_v2", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!range_holds (device_ranges, dptr (p), n))
    return CUDA_ERROR_INVALID_VALUE;
  memset (dptr (p), v, n);
  return CUDA_SUCCESS;
}

CUresult
cuMemHostAlloc (void **p, size_t n, unsigned int flags)
{
  ENTER_CTX ("cuMemHostAlloc", CUDA_ERROR_OUT_OF_MEMORY);
  (void) flags;
  *p = malloc (n ? n : 1);
  if (!*p || !range_add (pinned_ranges, *p, n))
    {
      free (*p);
      *p = NULL;
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
  return CUDA_SUCCESS;
}

CUresult
cuMemFreeHost (void *p)
{
  traced ("cuMemFreeHost");
  if (!range_remove (pinned_ranges, p))
    return CUDA_ERROR_INVALID_VALUE;
  free (p);
  return CUDA_SUCCESS;
}

CUresult
V2 (cuMemHostRegister) (void *p, size_t n, unsigned int flags)
{
  ENTER_CTX (V2S ("cuMemHostRegister"), CUDA_ERROR_OUT_OF_MEMORY);
  (void) flags;
  /* The whole range must be readable and writable host memory. */
  volatile uint8_t *q = p;
  for (size_t i = 0; i < n; i += 4096)
    q[i] = q[i];
  if (n)
    q[n - 1] = q[n - 1];
  if (!range_add (pinned_ranges, p, n))
    return CUDA_ERROR_OUT_OF_MEMORY;
  return CUDA_SUCCESS;
}

CUresult
cuMemHostUnregister (void *p)
{
  traced ("cuMemHostUnregister");
  if (!range_remove (pinned_ranges, p))
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------ streams, events */

CUresult
cuStreamCreate (CUstream *s, unsigned int flags)
{
  ENTER_CTX ("cuStreamCreate", CUDA_ERROR_OUT_OF_MEMORY);
  if (flags != CU_STREAM_NON_BLOCKING && flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  *s = calloc (1, sizeof **s);
  if (!*s)
    return CUDA_ERROR_OUT_OF_MEMORY;
  (*s)->kernels = kernels_launched; /* a new stream owes no step */
  n_live_objects++;
  return CUDA_SUCCESS;
}

CUresult
V2 (cuStreamDestroy) (CUstream s)
{
  traced (V2S ("cuStreamDestroy"));
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  free (s);
  n_live_objects--;
  return CUDA_SUCCESS;
}

CUresult
cuStreamSynchronize (CUstream s)
{
  ENTER_CTX ("cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  wait_until (s->free_at);
  waited_for (s->kernels);
  return CUDA_SUCCESS;
}

CUresult
cuStreamWaitEvent (CUstream s, CUevent ev, unsigned int flags)
{
  ENTER_CTX ("cuStreamWaitEvent", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!s || !ev || flags != 0)
    return CUDA_ERROR_INVALID_HANDLE;
  if (ev->recorded)
    s->free_at = max2 (s->free_at, ev->t);
  return CUDA_SUCCESS;
}

CUresult
cuEventCreate (CUevent *ev, unsigned int flags)
{
  ENTER_CTX ("cuEventCreate", CUDA_ERROR_OUT_OF_MEMORY);
  (void) flags;
  *ev = calloc (1, sizeof **ev);
  if (!*ev)
    return CUDA_ERROR_OUT_OF_MEMORY;
  n_live_objects++;
  return CUDA_SUCCESS;
}

CUresult
V2 (cuEventDestroy) (CUevent ev)
{
  traced (V2S ("cuEventDestroy"));
  if (!ev)
    return CUDA_ERROR_INVALID_HANDLE;
  free (ev);
  n_live_objects--;
  return CUDA_SUCCESS;
}

CUresult
cuEventRecord (CUevent ev, CUstream s)
{
  ENTER_CTX ("cuEventRecord", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!ev || !s)
    return CUDA_ERROR_INVALID_HANDLE;
  /* Right after work, at its end (the host may have been descheduled
   * between the two calls: the model's time, not the host's). */
  ev->t = s->worked ? s->free_at : max2 (now_ms (), s->free_at);
  ev->kernels = s->kernels;
  ev->recorded = 1;
  s->free_at = ev->t;
  s->held = 1;
  s->worked = 0;
  return CUDA_SUCCESS;
}

CUresult
cuEventQuery (CUevent ev)
{
  ENTER_CTX ("cuEventQuery", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!ev)
    return CUDA_ERROR_INVALID_HANDLE;
  return ev->recorded && now_ms () < ev->t ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult
cuEventSynchronize (CUevent ev)
{
  ENTER_CTX ("cuEventSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!ev)
    return CUDA_ERROR_INVALID_HANDLE;
  if (ev->recorded)
    {
      wait_until (ev->t);
      waited_for (ev->kernels);
    }
  return CUDA_SUCCESS;
}

CUresult
V2 (cuEventElapsedTime) (float *ms, CUevent a, CUevent b)
{
  ENTER_CTX (V2S ("cuEventElapsedTime"), CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!a || !b || !a->recorded || !b->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  if (now_ms () < a->t || now_ms () < b->t)
    return CUDA_ERROR_NOT_READY;
  *ms = (float) (b->t - a->t);
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- work */

CUresult
cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
  int pinned;
  double start;

  ENTER_CTX ("cuMemcpyHtoDAsync_v2", CUDA_ERROR_ILLEGAL_ADDRESS);
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!range_holds (device_ranges, dptr (dst), n))
    return CUDA_ERROR_INVALID_VALUE;
  pinned = range_holds (pinned_ranges, src, n);
  memcpy (dptr (dst), src, n);
  start = work_start (s);
  s->free_at = start + (double) n / (pinned ? FAKE_PINNED_BYTES_PER_MS : FAKE_PAGEABLE_BYTES_PER_MS);
  /* From pageable memory the call returns once the data has left it. */
  if (!pinned)
    wait_until (s->free_at);
  return CUDA_SUCCESS;
}

/* The image must be the model step's PTX text; its ISA version must be one
 * this driver version knows (ISA a.b: driver (a + 4).0 or newer). */
CUresult
cuModuleLoadData (CUmodule *module, const void *image)
{
  const char *text = image, *v;
  int major = 0, minor = 0;

  ENTER_CTX ("cuModuleLoadData", CUDA_ERROR_INVALID_IMAGE);
  if (!text || !strstr (text, ".entry ls_model_step(") || !(v = strstr (text, "\n.version "))
      || sscanf (v, "\n.version %d.%d", &major, &minor) != 2)
    return CUDA_ERROR_INVALID_IMAGE;
  if (env_long ("FAKE_CUDA_DRIVER_VERSION", 13000) < (major + 4) * 1000L)
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  *module = calloc (1, sizeof **module);
  if (!*module)
    return CUDA_ERROR_OUT_OF_MEMORY;
  (*module)->loaded = 1;
  n_live_objects++;
  return CUDA_SUCCESS;
}

CUresult
cuModuleUnload (CUmodule module)
{
  traced ("cuModuleUnload");
  if (!module)
    return CUDA_ERROR_INVALID_HANDLE;
  free (module);
  n_live_objects--;
  return CUDA_SUCCESS;
}

CUresult
cuModuleGetFunction (CUfunction *fn, CUmodule module, const char *name)
{
  ENTER_CTX ("cuModuleGetFunction", CUDA_ERROR_NOT_FOUND);
  if (!module || !module->loaded)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!name || strcmp (name, "ls_model_step") != 0)
    return CUDA_ERROR_NOT_FOUND;
  *fn = &step_function;
  return CUDA_SUCCESS;
}

/* The model step: (words, n_words, tail, tail_n, spin_cycles, out). */
CUresult
cuLaunchKernel (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra)
{
  double start;

  ENTER_CTX ("cuLaunchKernel", CUDA_ERROR_LAUNCH_FAILED);
  if (fn != &step_function || !s || !params || extra || gx == 0 || bx == 0 || bx > 1024 || gy != 1 || gz != 1
      || by != 1 || bz != 1 || shared != 0)
    return CUDA_ERROR_INVALID_VALUE;
  {
    const void *words = dptr (*(const CUdeviceptr *) params[0]);
    size_t n_words = *(const size_t *) params[1];
    const void *tail = dptr (*(const CUdeviceptr *) params[2]);
    unsigned tail_n = *(const unsigned *) params[3];
    long long spin = *(const long long *) params[4];
    const void *out = dptr (*(const CUdeviceptr *) params[5]);

    /* A GPU would fault on memory outside its allocations. */
    if ((n_words && !range_holds (device_ranges, words, n_words * 16))
        || (tail_n && !range_holds (device_ranges, tail, tail_n)) || !range_holds (device_ranges, out, 8) || spin < 0
        || (size_t) gx * bx < tail_n)
      {
        sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
        return CUDA_ERROR_ILLEGAL_ADDRESS;
      }
    start = work_start (s);
    s->kernels = ++kernels_launched;
    s->free_at = start + FAKE_LAUNCH_MS + (double) (n_words * 16 + tail_n) / FAKE_READ_BYTES_PER_MS
                 + (double) spin / FAKE_CYCLES_PER_MS;
  }
  return CUDA_SUCCESS;
}
