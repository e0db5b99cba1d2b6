/* A stand-in for the CUDA runtime, linked instead of libcudart_static into
 * test-sink-cuda-fake, so that the cuda sink's host side (streams, events,
 * ordering, slot releases, calibration, errors, clean-up) is exercised on
 * machines without a GPU.
 *
 * The "device" keeps a timeline in real time, like the sim sink: each
 * stream is busy until some moment; a copy takes bytes / bandwidth (pinned
 * or pageable by where the source lies), a kernel a launch cost plus the
 * bytes it reads plus its spin at a fixed SM clock. Events take the time
 * their stream reaches them; synchronizing waits for that moment. Memory is
 * checked the way a GPU would fault: copies and kernels must stay inside
 * device allocations, timings of unfinished events are refused.
 *
 * Knobs (environment): FAKE_CUDA_DEVICES=N devices (default 1; negative:
 * cudaGetDeviceCount fails with error -N); FAKE_CUDA_FAIL=<function> makes
 * that function fail; FAKE_CUDA_PCI_BUS=B (hex, default 10): device d sits
 * on PCI bus B + d of domain 0 (fake-nvml.c's device i on bus 10 + i, so
 * B = 11 makes CUDA device 0 NVML's device 1, as CUDA_VISIBLE_DEVICES=1
 * would). fake_cuda_live_objects() counts what is not freed. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_CYCLES_PER_MS 1.41e6        /* SM clock, 1.41 GHz */
#define FAKE_READ_BYTES_PER_MS 2.0e9     /* the kernel reads at 2 TB/s */
#define FAKE_LAUNCH_MS 0.004
#define FAKE_PINNED_BYTES_PER_MS 24.0e6  /* 24 GB/s */
#define FAKE_PAGEABLE_BYTES_PER_MS 8.0e6 /* 8 GB/s */
#define MAX_RANGES 64

struct CUstream_st {
  double free_at;
  int held;      /* an event was just recorded: the next work starts at it */
  long kernels;  /* kernels launched anywhere up to its last one */
};
struct CUevent_st {
  double t;
  int recorded;
  long kernels; /* kernels of its stream that came before it */
};

typedef struct {
  const uint8_t *p;
  size_t n;
} range;

static range device_ranges[MAX_RANGES], pinned_ranges[MAX_RANGES];
static int n_live_objects; /* allocations, registrations, streams, events */
static cudaError_t last_error;
static int current_device;

int fake_cuda_live_objects (void);
int
fake_cuda_live_objects (void)
{
  return n_live_objects;
}

/* Which steps the host waited for, counted, not timed (a loaded machine
 * changes how long a wait takes, never which step it waits for). */
static long kernels_launched, kernels_waited;
long fake_cuda_kernels_launched (void);
long fake_cuda_kernels_waited (void);
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

static void
waited_for (long kernels)
{
  if (kernels > kernels_waited)
    kernels_waited = kernels;
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static void
wait_until (double t)
{
  double left;
  while ((left = t - now_ms ()) > 0)
    if (left > 1.5)
      {
        struct timespec ts = { 0, (long) ((left - 1) * 1e6) };
        nanosleep (&ts, NULL);
      }
}

static double
max2 (double a, double b)
{
  return a > b ? a : b;
}

/* When work queued on s starts. Right after an event it starts at the
 * event's moment, as if the host had queued both at once: a host that is
 * descheduled between the two calls (a loaded test machine) then does not
 * stretch the event-timed copy or step, so timings are the model's. */
static double
work_start (struct CUstream_st *s)
{
  double start = s->held ? s->free_at : max2 (now_ms (), s->free_at);
  s->held = 0;
  return start;
}

static cudaError_t
ret (cudaError_t e)
{
  if (e != cudaSuccess)
    last_error = e;
  return e;
}

static int
injected (const char *fn)
{
  const char *f = getenv ("FAKE_CUDA_FAIL");
  return f && strcmp (f, fn) == 0;
}

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
    if (set[i].p == p)
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

/* --------------------------------------------------------------- errors */

const char *CUDARTAPI
cudaGetErrorName (cudaError_t e)
{
  switch (e)
    {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorHostMemoryNotRegistered: return "cudaErrorHostMemoryNotRegistered";
    default: return "cudaErrorUnknown";
    }
}

const char *CUDARTAPI
cudaGetErrorString (cudaError_t e)
{
  switch (e)
    {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    default: return "fake CUDA error";
    }
}

cudaError_t CUDARTAPI
cudaGetLastError (void)
{
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

/* --------------------------------------------------------------- device */

static int
fake_pci_bus (int device)
{
  const char *b = getenv ("FAKE_CUDA_PCI_BUS");
  return (int) strtol (b && *b ? b : "10", NULL, 16) + device;
}

cudaError_t CUDARTAPI
cudaGetDeviceCount (int *count)
{
  const char *n = getenv ("FAKE_CUDA_DEVICES");
  int v = n ? atoi (n) : 1;
  if (v < 0)
    return ret ((cudaError_t) -v);
  *count = v;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaSetDevice (int device)
{
  int count = 0;
  if (cudaGetDeviceCount (&count) != cudaSuccess || device < 0 || device >= count)
    return ret (cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device)
{
  if (device != current_device)
    return ret (cudaErrorInvalidDevice);
  memset (prop, 0, sizeof *prop);
  snprintf (prop->name, sizeof prop->name, "Fake GPU %d", device);
  prop->multiProcessorCount = 4;
  prop->pciDomainID = 0;
  prop->pciBusID = fake_pci_bus (device);
  prop->pciDeviceID = 0;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaDeviceGetPCIBusId (char *bus_id, int len, int device)
{
  int count = 0;
  if (injected ("cudaDeviceGetPCIBusId"))
    return ret (cudaErrorInvalidValue);
  if (cudaGetDeviceCount (&count) != cudaSuccess || device < 0 || device >= count)
    return ret (cudaErrorInvalidDevice);
  /* The runtime's own format: "0000:1A:00.0" (13 bytes with the NUL). */
  if (!bus_id || len < 13)
    return ret (cudaErrorInvalidValue);
  snprintf (bus_id, (size_t) len, "%04X:%02X:%02X.0", 0u, (unsigned) fake_pci_bus (device) & 0xffu, 0u);
  return cudaSuccess;
}

/* --------------------------------------------------------------- memory */

cudaError_t CUDARTAPI
cudaMalloc (void **p, size_t n)
{
  if (injected ("cudaMalloc"))
    return ret (cudaErrorMemoryAllocation);
  *p = aligned_alloc (256, (n + 255) / 256 * 256);
  if (!*p || !range_add (device_ranges, *p, n))
    return ret (cudaErrorMemoryAllocation);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaFree (void *p)
{
  if (p && !range_remove (device_ranges, p))
    return ret (cudaErrorInvalidValue);
  free (p);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMemset (void *p, int v, size_t n)
{
  if (!range_holds (device_ranges, p, n))
    return ret (cudaErrorInvalidValue);
  memset (p, v, n);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostAlloc (void **p, size_t n, unsigned int flags)
{
  (void) flags;
  if (injected ("cudaHostAlloc"))
    return ret (cudaErrorMemoryAllocation);
  *p = malloc (n);
  if (!*p || !range_add (pinned_ranges, *p, n))
    return ret (cudaErrorMemoryAllocation);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaFreeHost (void *p)
{
  if (p && !range_remove (pinned_ranges, p))
    return ret (cudaErrorInvalidValue);
  free (p);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostRegister (void *p, size_t n, unsigned int flags)
{
  (void) flags;
  if (injected ("cudaHostRegister"))
    return ret (cudaErrorMemoryAllocation);
  /* The whole range must be readable and writable host memory. */
  volatile uint8_t *q = p;
  for (size_t i = 0; i < n; i += 4096)
    q[i] = q[i];
  if (n)
    q[n - 1] = q[n - 1];
  if (!range_add (pinned_ranges, p, n))
    return ret (cudaErrorMemoryAllocation);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaHostUnregister (void *p)
{
  if (!range_remove (pinned_ranges, p))
    return ret (cudaErrorHostMemoryNotRegistered);
  return cudaSuccess;
}

/* ------------------------------------------------------ streams, events */

cudaError_t CUDARTAPI
cudaStreamCreateWithFlags (cudaStream_t *s, unsigned int flags)
{
  (void) flags;
  *s = calloc (1, sizeof **s);
  if (!*s)
    return ret (cudaErrorMemoryAllocation);
  (*s)->kernels = kernels_launched; /* a new stream owes no step */
  n_live_objects++;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamDestroy (cudaStream_t s)
{
  if (!s)
    return ret (cudaErrorInvalidResourceHandle);
  free (s);
  n_live_objects--;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamSynchronize (cudaStream_t s)
{
  if (s)
    {
      wait_until (s->free_at);
      waited_for (s->kernels);
    }
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaStreamWaitEvent (cudaStream_t s, cudaEvent_t ev, unsigned int flags)
{
  (void) flags;
  if (!s || !ev)
    return ret (cudaErrorInvalidResourceHandle);
  if (ev->recorded)
    s->free_at = max2 (s->free_at, ev->t);
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventCreate (cudaEvent_t *ev)
{
  *ev = calloc (1, sizeof **ev);
  if (!*ev)
    return ret (cudaErrorMemoryAllocation);
  n_live_objects++;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventDestroy (cudaEvent_t ev)
{
  if (!ev)
    return ret (cudaErrorInvalidResourceHandle);
  free (ev);
  n_live_objects--;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventRecord (cudaEvent_t ev, cudaStream_t s)
{
  if (!ev)
    return ret (cudaErrorInvalidResourceHandle);
  ev->t = s ? max2 (now_ms (), s->free_at) : now_ms ();
  ev->kernels = s ? s->kernels : 0;
  ev->recorded = 1;
  if (s)
    {
      s->free_at = ev->t;
      s->held = 1;
    }
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventQuery (cudaEvent_t ev)
{
  if (!ev)
    return ret (cudaErrorInvalidResourceHandle);
  return ev->recorded && now_ms () < ev->t ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventSynchronize (cudaEvent_t ev)
{
  if (!ev)
    return ret (cudaErrorInvalidResourceHandle);
  if (ev->recorded)
    {
      wait_until (ev->t);
      waited_for (ev->kernels);
    }
  return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaEventElapsedTime (float *ms, cudaEvent_t a, cudaEvent_t b)
{
  if (!a || !b || !a->recorded || !b->recorded)
    return ret (cudaErrorInvalidResourceHandle);
  if (now_ms () < a->t || now_ms () < b->t)
    return ret (cudaErrorNotReady);
  *ms = (float) (b->t - a->t);
  return cudaSuccess;
}

/* ---------------------------------------------------------------- work */

cudaError_t CUDARTAPI
cudaMemcpyAsync (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s)
{
  int pinned;
  double start;

  if (!s)
    return ret (cudaErrorInvalidResourceHandle);
  if (kind != cudaMemcpyHostToDevice || !range_holds (device_ranges, dst, n))
    return ret (cudaErrorInvalidValue);
  pinned = range_holds (pinned_ranges, src, n);
  memcpy (dst, src, n);
  start = work_start (s);
  s->free_at = start + (double) n / (pinned ? FAKE_PINNED_BYTES_PER_MS : FAKE_PAGEABLE_BYTES_PER_MS);
  /* From pageable memory the call returns once the data has left it. */
  if (!pinned)
    wait_until (s->free_at);
  return cudaSuccess;
}

/* What nvcc's kernel launch stubs call. */
void **CUDARTAPI __cudaRegisterFatBinary (void *fat_cubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd (void **handle);
void CUDARTAPI __cudaUnregisterFatBinary (void **handle);
void CUDARTAPI __cudaRegisterFunction (void **handle, const char *host_fun, char *device_fun, const char *device_name,
                                       int thread_limit, uint3 *tid, uint3 *bid, dim3 *block, dim3 *grid, int *warp);
unsigned CUDARTAPI __cudaPushCallConfiguration (dim3 grid, dim3 block, size_t shared, struct CUstream_st *stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration (dim3 *grid, dim3 *block, size_t *shared, void *stream);
cudaError_t CUDARTAPI __cudaGetKernel (cudaKernel_t *kernel, const void *fun);
cudaError_t CUDARTAPI __cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                                          cudaStream_t stream);

static void *fat_handle[1];
static struct {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
} launch_config;

void **CUDARTAPI
__cudaRegisterFatBinary (void *fat_cubin)
{
  (void) fat_cubin;
  return fat_handle;
}

void CUDARTAPI
__cudaRegisterFatBinaryEnd (void **handle)
{
  (void) handle;
}

void CUDARTAPI
__cudaUnregisterFatBinary (void **handle)
{
  (void) handle;
}

void CUDARTAPI
__cudaRegisterFunction (void **handle, const char *host_fun, char *device_fun, const char *device_name,
                        int thread_limit, uint3 *tid, uint3 *bid, dim3 *block, dim3 *grid, int *warp)
{
  (void) handle, (void) host_fun, (void) device_fun, (void) device_name, (void) thread_limit;
  (void) tid, (void) bid, (void) block, (void) grid, (void) warp;
}

unsigned CUDARTAPI
__cudaPushCallConfiguration (dim3 grid, dim3 block, size_t shared, struct CUstream_st *stream)
{
  launch_config.grid = grid;
  launch_config.block = block;
  launch_config.shared = shared;
  launch_config.stream = stream;
  return 0;
}

cudaError_t CUDARTAPI
__cudaPopCallConfiguration (dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
  *grid = launch_config.grid;
  *block = launch_config.block;
  *shared = launch_config.shared;
  *(cudaStream_t *) stream = launch_config.stream;
  return cudaSuccess;
}

cudaError_t CUDARTAPI
__cudaGetKernel (cudaKernel_t *kernel, const void *fun)
{
  *kernel = (cudaKernel_t) (uintptr_t) fun;
  return cudaSuccess;
}

/* The model step: (words, n_words, tail, tail_n, spin_cycles, out). */
cudaError_t CUDARTAPI
__cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t s)
{
  const void *words = *(const void *const *) args[0];
  size_t n_words = *(const size_t *) args[1];
  const void *tail = *(const void *const *) args[2];
  unsigned tail_n = *(const unsigned *) args[3];
  long long spin = *(const long long *) args[4];
  const void *out = *(const void *const *) args[5];
  double start;

  (void) kernel, (void) shared;
  if (!s || grid.x == 0 || block.x == 0 || block.x > 1024)
    return ret (cudaErrorInvalidValue);
  /* A GPU would fault on memory outside its allocations. */
  if ((n_words && !range_holds (device_ranges, words, n_words * 16))
      || (tail_n && !range_holds (device_ranges, tail, tail_n)) || !range_holds (device_ranges, out, 8) || spin < 0
      || (size_t) grid.x * block.x < tail_n)
    return ret (cudaErrorIllegalAddress);
  start = work_start (s);
  s->kernels = ++kernels_launched;
  s->free_at = start + FAKE_LAUNCH_MS + (double) (n_words * 16 + tail_n) / FAKE_READ_BYTES_PER_MS
               + (double) spin / FAKE_CYCLES_PER_MS;
  return cudaSuccess;
}

/* Older toolkits' launch stubs call the C API instead. */
cudaError_t CUDARTAPI
cudaLaunchKernel (const void *func, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t s)
{
  return __cudaLaunchKernel ((cudaKernel_t) (uintptr_t) func, grid, block, args, shared, s);
}
