/* The runtime API's cuda sink, replaced by sink-cuda-driver.c (issue 26)
 * and built only with -Dcudart_sink=true, where LOADSCOPE_CUDA_API=
 * runtime picks it: the device check compares the two at the same knobs
 * once on a GPU, then this file goes. Host code in the C style of the rest
 * of loader/; it is C++ only because nvcc compiles it as such.
 *
 * Two streams (copy, compute) and two of everything per batch in flight:
 * device buffers, pinned staging buffers (pin staging), event sets. Batch k
 * uses set k % 2. At the end of submit(k) the host waits for the step of
 * batch k-1, so when batch k's set comes round again (k+2) everything batch
 * k did on the device has finished.
 *
 *   non_blocking: copy k on the copy stream (overlapping step k-1), an event
 *                 after it, the compute stream waits on that event and runs
 *                 step k.
 *   blocking:     the copy waits for step k-1 (cudaStreamSynchronize on the
 *                 compute stream) and the host waits for the copy; then
 *                 step k on the compute stream.
 *
 * The model step reads the whole batch (so the copy's data is used) and
 * then spins on clock64() for a time calibrated at open, so that one step
 * lasts config->model_ms. */
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "loader/sink-calibrate.h"
#include "loader/sink-private.h"
#include "platform/clock.h"
#include "platform/shm.h"
}

#define STEP_BLOCK 256
#define STEP_OUT_WORDS 64

/* ------------------------------------------------------------ the kernel */

/* Every thread sums a strided share of the batch (16 bytes at a time, the
 * tail byte by byte), spins until spin_cycles of its SM's clock have
 * passed, and the warp's sum goes into a small output, so nothing can be
 * optimised away. */
__global__ void
ls_model_step (const uint4 *words, size_t n_words, const unsigned char *tail, unsigned tail_n, long long spin_cycles,
               unsigned long long *out)
{
  size_t tid = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t) gridDim.x * blockDim.x;
  unsigned long long acc = 0;

  for (size_t i = tid; i < n_words; i += stride)
    {
      uint4 w = words[i];
      acc += ((unsigned long long) w.x | ((unsigned long long) w.y << 32)) ^ ((unsigned long long) w.z << 7)
             ^ ((unsigned long long) w.w << 21);
    }
  if (tid < tail_n)
    acc += tail[tid];

  if (spin_cycles > 0)
    {
      long long t0 = clock64 ();
      while (clock64 () - t0 < spin_cycles)
        ;
    }

  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_xor_sync (0xffffffffu, acc, off);
  if ((threadIdx.x & 31u) == 0)
    atomicAdd (&out[blockIdx.x % STEP_OUT_WORDS], acc);
}

/* -------------------------------------------------------------- the sink */

typedef struct {
  cudaEvent_t copy_start, copy_end, compute_start, compute_end;
  int n_events;    /* created so far (close destroys these) */
  bool pending;    /* queued; its timing is not recorded yet */
  bool holds_slot; /* its arena slot is not released yet */
  uint32_t slot;
  uint64_t seq;
  double stage_ms;
} cuda_batch;

typedef struct {
  ls_sink base;
  cudaStream_t copy, compute;
  bool have_copy, have_compute;
  void *dev[2];
  void *staging[2];
  size_t buf_bytes;
  unsigned long long *dev_out;
  void *registered; /* the arena, pinned in place (pin arena) */
  cuda_batch inflight[2];
  unsigned grid;
  ls_step_calibration cal; /* the model step's clock and read time (sink-calibrate.h) */
} cuda_sink;

static int
code_for (cudaError_t e)
{
  switch (e)
    {
    case cudaErrorMemoryAllocation:
      return LS_ERR_NOMEM;
    case cudaErrorInsufficientDriver:
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorInitializationError:
      return LS_ERR_UNSUPPORTED;
    default:
      return LS_ERR_OS;
    }
}

/* "CUDA sink: <call> failed with <cudaErrorName> (<text>)" */
static int fail (ls_error *err, cudaError_t e, const char *call_fmt, ...) LS_PRINTF (3, 4);

static int
fail (ls_error *err, cudaError_t e, const char *call_fmt, ...)
{
  char call[160];
  va_list ap;

  va_start (ap, call_fmt);
  vsnprintf (call, sizeof call, call_fmt, ap);
  va_end (ap);
  return ls_error_set (err, code_for (e), "CUDA sink: %s failed with %s (%s)", call, cudaGetErrorName (e),
                       cudaGetErrorString (e));
}

static double
elapsed_ms (cudaEvent_t a, cudaEvent_t b, cudaError_t *e)
{
  float ms = 0;
  *e = cudaEventElapsedTime (&ms, a, b);
  return (double) ms;
}

static int
launch_step (cuda_sink *s, const void *dev, size_t bytes, long long spin_cycles, ls_error *err)
{
  size_t n_words = bytes / 16;
  const unsigned char *tail = (const unsigned char *) dev + n_words * 16;
  cudaError_t e;

  ls_model_step<<<s->grid, STEP_BLOCK, 0, s->compute>>> ((const uint4 *) dev, n_words, tail,
                                                         (unsigned) (bytes % 16), spin_cycles, s->dev_out);
  if ((e = cudaGetLastError ()) != cudaSuccess)
    return fail (err, e, "launching the model step (%u blocks of %d threads)", s->grid, STEP_BLOCK);
  return LS_OK;
}

/* One step on the compute stream, timed with batch set 0's events. */
static int
time_step (cuda_sink *s, const void *dev, size_t bytes, long long spin_cycles, double *ms, ls_error *err)
{
  cuda_batch *c = &s->inflight[0];
  cudaError_t e;
  int rc;

  if ((e = cudaEventRecord (c->compute_start, s->compute)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord");
  if ((rc = launch_step (s, dev, bytes, spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = cudaEventRecord (c->compute_end, s->compute)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord");
  if ((e = cudaEventSynchronize (c->compute_end)) != cudaSuccess)
    return fail (err, e, "cudaEventSynchronize (calibration step)");
  *ms = elapsed_ms (c->compute_start, c->compute_end, &e);
  if (e != cudaSuccess)
    return fail (err, e, "cudaEventElapsedTime");
  return LS_OK;
}

/* ls_sink_calibrate's timer: a step over the first device buffer. */
static int
time_step_cb (void *sink, size_t bytes, long long spin_cycles, double *ms, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) sink;
  return time_step (s, s->dev[0], bytes, spin_cycles, ms, err);
}

static void
release_slot (cuda_batch *c, uint32_t *release, size_t *n_release)
{
  if (c->holds_slot)
    {
      release[(*n_release)++] = c->slot;
      c->holds_slot = false;
    }
}

/* Waits for a queued batch's step, records its timing and releases its
 * slot (its copy has finished long before). */
static int
finish (cuda_sink *s, cuda_batch *c, uint32_t *release, size_t *n_release, ls_error *err)
{
  ls_sink_timing t;
  cudaError_t e;

  if (!c->pending)
    return LS_OK;
  if ((e = cudaEventSynchronize (c->compute_end)) != cudaSuccess)
    return fail (err, e, "cudaEventSynchronize (model step of batch %llu)", (unsigned long long) c->seq);
  memset (&t, 0, sizeof t);
  t.seq = c->seq;
  t.stage_ms = c->stage_ms;
  t.copy_ms = elapsed_ms (c->copy_start, c->copy_end, &e);
  if (e != cudaSuccess)
    return fail (err, e, "cudaEventElapsedTime (copy of batch %llu)", (unsigned long long) c->seq);
  t.compute_ms = elapsed_ms (c->compute_start, c->compute_end, &e);
  if (e != cudaSuccess)
    return fail (err, e, "cudaEventElapsedTime (model step of batch %llu)", (unsigned long long) c->seq);
  c->pending = false;
  ls_sink_add_timing (&s->base, &t);
  release_slot (c, release, n_release);
  return LS_OK;
}

static int
cuda_submit (ls_sink *base, const ls_batch *b, uint32_t *release, size_t *n_release, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) base;
  uint64_t seq = base->next_seq;
  int k = (int) (seq % 2);
  cuda_batch *c = &s->inflight[k];
  cuda_batch *prev = &s->inflight[1 - k];
  const void *src = b->data;
  cudaError_t e;
  int rc;

  if (b->bytes > s->buf_bytes)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA sink: batch of %zu bytes is larger than the %zu-byte device buffer",
                         b->bytes, s->buf_bytes);
  /* Batch k-2 used this set; submit(k-1) waited for its step. A drain
   * between may have left it finished too. */
  if ((rc = finish (s, c, release, n_release, err)) != LS_OK)
    return rc;

  c->seq = seq;
  c->slot = b->slot;
  c->holds_slot = true;
  c->stage_ms = 0;
  base->next_seq++;

  if (base->config.pin == LS_PIN_STAGING)
    {
      /* PyTorch's pin_memory: the host copies the batch into pinned memory;
       * the slot is free as soon as it has. */
      uint64_t t0 = ls_clock_ns ();
      memcpy (s->staging[k], b->data, b->bytes);
      c->stage_ms = (double) (ls_clock_ns () - t0) / 1e6;
      base->host_bytes_copied += b->bytes;
      src = s->staging[k];
      release_slot (c, release, n_release);
    }

  if (!base->config.non_blocking)
    {
      /* A blocking copy is ordered after the previous step. */
      if ((e = cudaStreamSynchronize (s->compute)) != cudaSuccess)
        return fail (err, e, "cudaStreamSynchronize (model step before batch %llu)", (unsigned long long) seq);
    }

  if ((e = cudaEventRecord (c->copy_start, s->copy)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord (copy start)");
  if ((e = cudaMemcpyAsync (s->dev[k], src, b->bytes, cudaMemcpyHostToDevice, s->copy)) != cudaSuccess)
    return fail (err, e, "cudaMemcpyAsync (%zu bytes to the device)", b->bytes);
  if ((e = cudaEventRecord (c->copy_end, s->copy)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord (copy end)");

  if (!base->config.non_blocking)
    {
      /* The host waits for the copy, as cudaMemcpy (non_blocking=False)
       * makes it; its source is then free. */
      if ((e = cudaEventSynchronize (c->copy_end)) != cudaSuccess)
        return fail (err, e, "cudaEventSynchronize (copy of batch %llu)", (unsigned long long) seq);
      release_slot (c, release, n_release);
    }

  if ((e = cudaStreamWaitEvent (s->compute, c->copy_end, 0)) != cudaSuccess)
    return fail (err, e, "cudaStreamWaitEvent (step after copy)");
  if ((e = cudaEventRecord (c->compute_start, s->compute)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord (step start)");
  if ((rc = launch_step (s, s->dev[k], b->bytes, s->cal.spin_cycles, err)) != LS_OK)
    return rc;
  if ((e = cudaEventRecord (c->compute_end, s->compute)) != cudaSuccess)
    return fail (err, e, "cudaEventRecord (step end)");
  c->pending = true;

  /* The consumer is held back by the step before this one only. */
  if ((rc = finish (s, prev, release, n_release, err)) != LS_OK)
    return rc;

  /* This batch's slot goes back as soon as its copy is done. */
  if (c->holds_slot)
    {
      e = cudaEventQuery (c->copy_end);
      if (e == cudaSuccess)
        release_slot (c, release, n_release);
      else if (e != cudaErrorNotReady)
        return fail (err, e, "cudaEventQuery (copy of batch %llu)", (unsigned long long) seq);
    }
  return LS_OK;
}

static int
cuda_drain (ls_sink *base, uint32_t *release, size_t *n_release, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) base;
  uint64_t seq = base->next_seq;
  cudaError_t e;
  int rc;

  /* The older batch first: timings go in submission order. */
  for (int i = 0; i < 2; i++)
    if ((rc = finish (s, &s->inflight[(seq + (uint64_t) i) % 2], release, n_release, err)) != LS_OK)
      return rc;
  if ((e = cudaStreamSynchronize (s->copy)) != cudaSuccess)
    return fail (err, e, "cudaStreamSynchronize (copy stream)");
  if ((e = cudaStreamSynchronize (s->compute)) != cudaSuccess)
    return fail (err, e, "cudaStreamSynchronize (compute stream)");
  for (int i = 0; i < 2; i++)
    release_slot (&s->inflight[i], release, n_release);
  return LS_OK;
}

static void
cuda_close (ls_sink *base)
{
  cuda_sink *s = (cuda_sink *) base;

  /* Errors are ignored here: there is nothing left to report them to. */
  if (s->have_copy)
    cudaStreamSynchronize (s->copy);
  if (s->have_compute)
    cudaStreamSynchronize (s->compute);
  for (int i = 0; i < 2; i++)
    {
      cuda_batch *c = &s->inflight[i];
      cudaEvent_t *ev[4] = { &c->copy_start, &c->copy_end, &c->compute_start, &c->compute_end };
      for (int j = 0; j < c->n_events; j++)
        cudaEventDestroy (*ev[j]);
      if (s->dev[i])
        cudaFree (s->dev[i]);
      if (s->staging[i])
        cudaFreeHost (s->staging[i]);
    }
  if (s->dev_out)
    cudaFree (s->dev_out);
  if (s->have_copy)
    cudaStreamDestroy (s->copy);
  if (s->have_compute)
    cudaStreamDestroy (s->compute);
  if (s->registered)
    cudaHostUnregister (s->registered);
  free (s->base.timings); /* ls_sink_close has taken them; a failed open has not */
  free (s);
}

static const ls_sink_ops cuda_ops = { cuda_submit, cuda_drain, cuda_close };

static int
setup (cuda_sink *s, const ls_arena *arena, ls_error *err)
{
  const ls_sink_config *config = &s->base.config;
  cudaDeviceProp props;
  cudaError_t e;
  int count = 0;

  e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: cudaGetDeviceCount failed with %s (%s)",
                         cudaGetErrorName (e), cudaGetErrorString (e));
  if (count == 0)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no CUDA device");
  if (config->device < 0 || config->device >= count)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA device %d does not exist (this machine has %d, from 0)",
                         config->device, count);
  if ((e = cudaSetDevice (config->device)) != cudaSuccess)
    return fail (err, e, "cudaSetDevice (%d)", config->device);
  if ((e = cudaGetDeviceProperties (&props, config->device)) != cudaSuccess)
    return fail (err, e, "cudaGetDeviceProperties (%d)", config->device);
  /* A name longer than the field is cut short, as intended. */
  size_t name_len = strnlen (props.name, sizeof props.name);
  if (name_len >= sizeof s->base.device_name)
    name_len = sizeof s->base.device_name - 1;
  memcpy (s->base.device_name, props.name, name_len);
  s->base.device_name[name_len] = '\0';
  cudaDriverGetVersion (&s->base.driver_version);
  snprintf (s->base.driver_library, sizeof s->base.driver_library, "%s", "the CUDA runtime (static)");
  s->grid = (unsigned) (props.multiProcessorCount > 0 ? props.multiProcessorCount * 2 : 2);
  /* The monitor finds this device in NVML by it: NVML's indices are not
   * CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). The properties give
   * it too, should the call fail. */
  if (cudaDeviceGetPCIBusId (s->base.pci_bus_id, (int) sizeof s->base.pci_bus_id, config->device) != cudaSuccess)
    {
      cudaGetLastError (); /* not sticky: clear it for the launch checks */
      snprintf (s->base.pci_bus_id, sizeof s->base.pci_bus_id, "%04x:%02x:%02x.0", (unsigned) props.pciDomainID,
                (unsigned) props.pciBusID, (unsigned) props.pciDeviceID);
    }

  s->buf_bytes = (size_t) arena->batch_size * arena->sample_bytes;
  for (int i = 0; i < 2; i++)
    {
      if ((e = cudaMalloc (&s->dev[i], s->buf_bytes ? s->buf_bytes : 16)) != cudaSuccess)
        {
          s->dev[i] = NULL;
          return fail (err, e, "cudaMalloc (%zu bytes for a batch on %s)", s->buf_bytes, props.name);
        }
      if ((e = cudaMemset (s->dev[i], 0, s->buf_bytes ? s->buf_bytes : 16)) != cudaSuccess)
        return fail (err, e, "cudaMemset");
      if (config->pin == LS_PIN_STAGING)
        {
          if ((e = cudaHostAlloc (&s->staging[i], s->buf_bytes ? s->buf_bytes : 16, cudaHostAllocDefault))
              != cudaSuccess)
            {
              s->staging[i] = NULL;
              return fail (err, e, "cudaHostAlloc (%zu bytes of pinned staging memory)", s->buf_bytes);
            }
        }
    }
  if ((e = cudaMalloc ((void **) &s->dev_out, STEP_OUT_WORDS * sizeof *s->dev_out)) != cudaSuccess)
    {
      s->dev_out = NULL;
      return fail (err, e, "cudaMalloc (model step output)");
    }
  if ((e = cudaMemset (s->dev_out, 0, STEP_OUT_WORDS * sizeof *s->dev_out)) != cudaSuccess)
    return fail (err, e, "cudaMemset");

  if (config->pin == LS_PIN_ARENA)
    {
      void *data = ls_shm_data (arena->shm);
      size_t bytes = ls_arena_bytes (arena);
      if ((e = cudaHostRegister (data, bytes, cudaHostRegisterDefault)) != cudaSuccess)
        return fail (err, e, "cudaHostRegister (the %zu-byte arena)", bytes);
      s->registered = data;
    }

  if ((e = cudaStreamCreateWithFlags (&s->copy, cudaStreamNonBlocking)) != cudaSuccess)
    return fail (err, e, "cudaStreamCreateWithFlags (copy stream)");
  s->have_copy = true;
  if ((e = cudaStreamCreateWithFlags (&s->compute, cudaStreamNonBlocking)) != cudaSuccess)
    return fail (err, e, "cudaStreamCreateWithFlags (compute stream)");
  s->have_compute = true;
  for (int i = 0; i < 2; i++)
    {
      cuda_batch *c = &s->inflight[i];
      cudaEvent_t *ev[4] = { &c->copy_start, &c->copy_end, &c->compute_start, &c->compute_end };
      for (int j = 0; j < 4; j++)
        {
          if ((e = cudaEventCreate (ev[j])) != cudaSuccess)
            return fail (err, e, "cudaEventCreate");
          c->n_events++;
        }
    }
  return ls_sink_calibrate (time_step_cb, s, s->buf_bytes, s->base.config.model_ms, &s->cal, err);
}

extern "C" int
ls_sink_cuda_runtime_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  cuda_sink *s;
  int rc;

  *out = NULL;
  s = (cuda_sink *) calloc (1, sizeof *s);
  if (!s)
    return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
  s->base.ops = &cuda_ops;
  s->base.kind = LS_SINK_CUDA;
  s->base.config = *config;
  /* Room for the timings up front: the first ones arrive one submit late. */
  s->base.timings = (ls_sink_timing *) malloc (64 * sizeof *s->base.timings);
  if (!s->base.timings)
    {
      free (s);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  s->base.cap_timings = 64;
  if ((rc = setup (s, arena, err)) != LS_OK)
    {
      cuda_close (&s->base);
      return rc;
    }
  *out = &s->base;
  return LS_OK;
}
