/* The runtime API's cuda sink, replaced by sink-cuda-driver.c (issue 26)
 * and built only with -Dcudart_sink=true, where LOADSCOPE_CUDA_API=
 * runtime picks it: the device check compares the two at the same knobs
 * once on a GPU, then this file goes. Host code in the C style of the rest
 * of loader/; it is C++ only because nvcc compiles it as such.
 *
 * This file finds the device and launches the step; the pipeline (copies,
 * steps, events, timings, calibration) is sink-cuda-pipeline.c's, the
 * driver sink's own, through the calls in runtime_ops below. The kernel is
 * model-step.cu's, compiled in here. */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/model-step.cu"
#include "loader/sink-cuda-pipeline.h"

static_assert (STEP_OUT_WORDS == LS_CUDA_STEP_OUT_WORDS, "the kernel's output is the size the pipeline allocates");

static int
error_code (int status)
{
  switch ((cudaError_t) status)
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

static const char *
status_name (ls_cuda_pipeline *, int status)
{
  return cudaGetErrorName ((cudaError_t) status);
}

static const char *
status_text (ls_cuda_pipeline *, int status)
{
  return cudaGetErrorString ((cudaError_t) status);
}

/* In ls_cuda_call's order. */
static const char *const call_names[] = {
  "cudaMalloc",
  "cudaMemset",
  "cudaHostAlloc",
  "cudaHostRegister",
  "cudaStreamCreateWithFlags",
  "cudaStreamSynchronize",
  "cudaStreamWaitEvent",
  "cudaEventCreate",
  "cudaEventRecord",
  "cudaEventQuery",
  "cudaEventSynchronize",
  "cudaEventElapsedTime",
  "cudaMemcpyAsync",
};
static_assert (sizeof call_names / sizeof call_names[0] == LS_CUDA_MEMCPY_HTOD_ASYNC + 1, "a name per call");

static const char *
call_name (ls_cuda_pipeline *, ls_cuda_call call)
{
  return call_names[call];
}

/* Device addresses go through the pipeline as integers. */
static void *
device_pointer (ls_cuda_devptr dev)
{
  return (void *) (uintptr_t) dev;
}

/* The calls, one to one (the runtime's handles are the driver's). */

static int
mem_alloc (ls_cuda_pipeline *, ls_cuda_devptr *dev, size_t bytes)
{
  void *made = NULL;
  cudaError_t e = cudaMalloc (&made, bytes);
  *dev = (uintptr_t) made;
  return e;
}

static int
mem_zero (ls_cuda_pipeline *, ls_cuda_devptr dev, size_t bytes)
{
  return cudaMemset (device_pointer (dev), 0, bytes);
}

static int
mem_free (ls_cuda_pipeline *, ls_cuda_devptr dev)
{
  return cudaFree (device_pointer (dev));
}

static int
mem_host_alloc (ls_cuda_pipeline *, void **host, size_t bytes)
{
  return cudaHostAlloc (host, bytes, cudaHostAllocDefault);
}

static int
mem_free_host (ls_cuda_pipeline *, void *host)
{
  return cudaFreeHost (host);
}

static int
mem_host_register (ls_cuda_pipeline *, void *host, size_t bytes)
{
  return cudaHostRegister (host, bytes, cudaHostRegisterDefault);
}

static int
mem_host_unregister (ls_cuda_pipeline *, void *host)
{
  return cudaHostUnregister (host);
}

static int
memcpy_htod_async (ls_cuda_pipeline *, ls_cuda_devptr dst, const void *src, size_t bytes, void *stream)
{
  return cudaMemcpyAsync (device_pointer (dst), src, bytes, cudaMemcpyHostToDevice, (cudaStream_t) stream);
}

static int
stream_create (ls_cuda_pipeline *, void **stream)
{
  cudaStream_t made = NULL;
  cudaError_t e = cudaStreamCreateWithFlags (&made, cudaStreamNonBlocking);
  *stream = made;
  return e;
}

static int
stream_destroy (ls_cuda_pipeline *, void *stream)
{
  return cudaStreamDestroy ((cudaStream_t) stream);
}

static int
stream_synchronize (ls_cuda_pipeline *, void *stream)
{
  return cudaStreamSynchronize ((cudaStream_t) stream);
}

static int
stream_wait_event (ls_cuda_pipeline *, void *stream, void *event)
{
  return cudaStreamWaitEvent ((cudaStream_t) stream, (cudaEvent_t) event, 0);
}

static int
event_create (ls_cuda_pipeline *, void **event)
{
  cudaEvent_t made = NULL;
  cudaError_t e = cudaEventCreate (&made);
  *event = made;
  return e;
}

static int
event_destroy (ls_cuda_pipeline *, void *event)
{
  return cudaEventDestroy ((cudaEvent_t) event);
}

static int
event_record (ls_cuda_pipeline *, void *event, void *stream)
{
  return cudaEventRecord ((cudaEvent_t) event, (cudaStream_t) stream);
}

static int
event_query (ls_cuda_pipeline *, void *event)
{
  return cudaEventQuery ((cudaEvent_t) event);
}

static int
event_synchronize (ls_cuda_pipeline *, void *event)
{
  return cudaEventSynchronize ((cudaEvent_t) event);
}

static int
event_elapsed_ms (ls_cuda_pipeline *, void *start, void *end, float *ms)
{
  return cudaEventElapsedTime (ms, (cudaEvent_t) start, (cudaEvent_t) end);
}

static int
launch_step (ls_cuda_pipeline *p, ls_cuda_devptr batch, size_t bytes, long long spin_cycles, ls_error *err)
{
  const uint4 *words = (const uint4 *) device_pointer (batch);
  size_t n_words = bytes / 16;
  const unsigned char *tail = (const unsigned char *) device_pointer (batch) + n_words * 16;
  cudaError_t e;

  ls_model_step<<<p->grid, LS_CUDA_STEP_BLOCK, 0, (cudaStream_t) p->compute>>> (
      words, n_words, tail, (unsigned) (bytes % 16), spin_cycles, (unsigned long long *) device_pointer (p->dev_out));
  if ((e = cudaGetLastError ()) != cudaSuccess)
    return ls_cuda_fail (p, err, e, "launching the model step (%u blocks of %d threads)", p->grid, LS_CUDA_STEP_BLOCK);
  return LS_OK;
}

/* The device, its name, SMs (the grid) and PCI bus id; the runtime makes
 * the device's primary context current by itself. */
static int
open_device (ls_cuda_pipeline *p, ls_error *err)
{
  ls_sink *base = &p->base;
  const ls_sink_config *config = &base->config;
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
    return ls_cuda_fail (p, err, e, "cudaSetDevice (%d)", config->device);
  if ((e = cudaGetDeviceProperties (&props, config->device)) != cudaSuccess)
    return ls_cuda_fail (p, err, e, "cudaGetDeviceProperties (%d)", config->device);
  /* A name longer than the field is cut short, as intended. */
  size_t name_len = strnlen (props.name, sizeof props.name);
  if (name_len >= sizeof base->device_name)
    name_len = sizeof base->device_name - 1;
  memcpy (base->device_name, props.name, name_len);
  base->device_name[name_len] = '\0';
  cudaDriverGetVersion (&base->driver_version);
  snprintf (base->driver_library, sizeof base->driver_library, "%s", "the CUDA runtime (static)");
  p->grid = (unsigned) (props.multiProcessorCount > 0 ? props.multiProcessorCount * 2 : 2);
  /* The monitor finds this device in NVML by it: NVML's indices are not
   * CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). The properties give
   * it too, should the call fail. */
  if (cudaDeviceGetPCIBusId (base->pci_bus_id, (int) sizeof base->pci_bus_id, config->device) != cudaSuccess)
    {
      cudaGetLastError (); /* not sticky: clear it for the launch checks */
      snprintf (base->pci_bus_id, sizeof base->pci_bus_id, "%04x:%02x:%02x.0", (unsigned) props.pciDomainID,
                (unsigned) props.pciBusID, (unsigned) props.pciDeviceID);
    }
  return LS_OK;
}

static const ls_cuda_ops runtime_ops = LS_CUDA_OPS (NULL, cudaErrorNotReady);

static void
cuda_close (ls_sink *base)
{
  ls_cuda_pipeline_release ((ls_cuda_pipeline *) base);
  ls_cuda_pipeline_free ((ls_cuda_pipeline *) base);
}

static const ls_sink_ops cuda_ops = { ls_cuda_pipeline_submit, ls_cuda_pipeline_drain, cuda_close };

extern "C" int
ls_sink_cuda_runtime_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  return ls_cuda_pipeline_open (sizeof (ls_cuda_pipeline), &runtime_ops, &cuda_ops, config, arena, out, err);
}
