/* The cuda sink through the CUDA driver API, loaded at run time
 * (cuda-driver.c), with the model step's PTX embedded at build time
 * (model-step.cu, model-step-ptx.h). Nothing of CUDA is linked, so the
 * same code runs on Linux and Windows, and a machine without a driver or
 * a device gets the simulated GPU with the reason (sink.c).
 *
 * This file finds the device, retains its primary context and loads the
 * step; the pipeline (copies, steps, events, timings, calibration) is
 * sink-cuda-pipeline.c's, through the calls in driver_ops below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/cuda-driver.h"
#include "loader/model-step-ptx.h"
#include "loader/sink-cuda-pipeline.h"

#define STEP_KERNEL "ls_model_step"

typedef struct {
  ls_cuda_pipeline p; /* first: the sink is a pipeline */
  ls_cuda_driver cu;
  bool initialised; /* cuInit succeeded: the driver stays loaded */
  CUdevice device;
  CUcontext ctx; /* the device's primary context, retained */
  CUmodule module;
  CUfunction step;
} cuda_sink;

#define NAME(s, field) LS_CUDA_NAME (&(s)->cu, field)

static ls_cuda_driver *
cu (ls_cuda_pipeline *p)
{
  return &((cuda_sink *) p)->cu;
}

static int
error_code (int e)
{
  switch (e)
    {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return LS_ERR_NOMEM;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_NOT_LICENSED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return LS_ERR_UNSUPPORTED;
    default:
      return LS_ERR_OS;
    }
}

static const char *
status_name (ls_cuda_pipeline *p, int e)
{
  return ls_cuda_error_name (cu (p), e);
}

static const char *
status_text (ls_cuda_pipeline *p, int e)
{
  return ls_cuda_error_text (cu (p), e);
}

/* The name each call was found under ("cuMemAlloc_v2"). */
static const char *
call_name (ls_cuda_pipeline *p, ls_cuda_call call)
{
  cuda_sink *s = (cuda_sink *) p;

  switch (call)
    {
    case LS_CUDA_MEM_ALLOC:
      return NAME (s, mem_alloc);
    case LS_CUDA_MEMSET:
      return NAME (s, memset_d8);
    case LS_CUDA_MEM_HOST_ALLOC:
      return NAME (s, mem_host_alloc);
    case LS_CUDA_MEM_HOST_REGISTER:
      return NAME (s, mem_host_register);
    case LS_CUDA_STREAM_CREATE:
      return NAME (s, stream_create);
    case LS_CUDA_STREAM_SYNCHRONIZE:
      return NAME (s, stream_synchronize);
    case LS_CUDA_STREAM_WAIT_EVENT:
      return NAME (s, stream_wait_event);
    case LS_CUDA_EVENT_CREATE:
      return NAME (s, event_create);
    case LS_CUDA_EVENT_RECORD:
      return NAME (s, event_record);
    case LS_CUDA_EVENT_QUERY:
      return NAME (s, event_query);
    case LS_CUDA_EVENT_SYNCHRONIZE:
      return NAME (s, event_synchronize);
    case LS_CUDA_EVENT_ELAPSED_TIME:
      return NAME (s, event_elapsed_time);
    case LS_CUDA_MEMCPY_HTOD_ASYNC:
      return NAME (s, memcpy_htod_async);
    }
  return "a CUDA driver call";
}

/* The calls, one to one. */

static int
mem_alloc (ls_cuda_pipeline *p, ls_cuda_devptr *dev, size_t bytes)
{
  return cu (p)->mem_alloc (dev, bytes);
}

static int
mem_zero (ls_cuda_pipeline *p, ls_cuda_devptr dev, size_t bytes)
{
  return cu (p)->memset_d8 (dev, 0, bytes);
}

static int
mem_free (ls_cuda_pipeline *p, ls_cuda_devptr dev)
{
  return cu (p)->mem_free (dev);
}

static int
mem_host_alloc (ls_cuda_pipeline *p, void **host, size_t bytes)
{
  return cu (p)->mem_host_alloc (host, bytes, 0);
}

static int
mem_free_host (ls_cuda_pipeline *p, void *host)
{
  return cu (p)->mem_free_host (host);
}

static int
mem_host_register (ls_cuda_pipeline *p, void *host, size_t bytes)
{
  return cu (p)->mem_host_register (host, bytes, 0);
}

static int
mem_host_unregister (ls_cuda_pipeline *p, void *host)
{
  return cu (p)->mem_host_unregister (host);
}

static int
memcpy_htod_async (ls_cuda_pipeline *p, ls_cuda_devptr dst, const void *src, size_t bytes, void *stream)
{
  return cu (p)->memcpy_htod_async (dst, src, bytes, stream);
}

static int
stream_create (ls_cuda_pipeline *p, void **stream)
{
  CUstream made = NULL;
  CUresult e = cu (p)->stream_create (&made, CU_STREAM_NON_BLOCKING);
  *stream = made;
  return e;
}

static int
stream_destroy (ls_cuda_pipeline *p, void *stream)
{
  return cu (p)->stream_destroy (stream);
}

static int
stream_synchronize (ls_cuda_pipeline *p, void *stream)
{
  return cu (p)->stream_synchronize (stream);
}

static int
stream_wait_event (ls_cuda_pipeline *p, void *stream, void *event)
{
  return cu (p)->stream_wait_event (stream, event, 0);
}

static int
event_create (ls_cuda_pipeline *p, void **event)
{
  CUevent made = NULL;
  CUresult e = cu (p)->event_create (&made, CU_EVENT_DEFAULT);
  *event = made;
  return e;
}

static int
event_destroy (ls_cuda_pipeline *p, void *event)
{
  return cu (p)->event_destroy (event);
}

static int
event_record (ls_cuda_pipeline *p, void *event, void *stream)
{
  return cu (p)->event_record (event, stream);
}

static int
event_query (ls_cuda_pipeline *p, void *event)
{
  return cu (p)->event_query (event);
}

static int
event_synchronize (ls_cuda_pipeline *p, void *event)
{
  return cu (p)->event_synchronize (event);
}

static int
event_elapsed_ms (ls_cuda_pipeline *p, void *start, void *end, float *ms)
{
  return cu (p)->event_elapsed_time (ms, start, end);
}

static int
launch_step (ls_cuda_pipeline *p, ls_cuda_devptr batch, size_t bytes, long long spin_cycles, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) p;
  size_t n_words = bytes / 16;
  CUdeviceptr tail = batch + n_words * 16;
  unsigned tail_n = (unsigned) (bytes % 16);
  /* The kernel's parameters, as model-step.cu declares them. */
  void *params[] = { &batch, &n_words, &tail, &tail_n, &spin_cycles, &p->dev_out };
  CUresult e;

  e = s->cu.launch_kernel (s->step, p->grid, 1, 1, LS_CUDA_STEP_BLOCK, 1, 1, 0, p->compute, params, NULL);
  if (e != CUDA_SUCCESS)
    return ls_cuda_fail (p, err, e, "%s (the model step, %u blocks of %d threads)", NAME (s, launch_kernel), p->grid,
                         LS_CUDA_STEP_BLOCK);
  return LS_OK;
}

/* The calling thread works in the sink's context (the runtime API made its
 * device's primary context current by itself). */
static int
make_current (cuda_sink *s, ls_error *err)
{
  CUresult e = s->cu.ctx_set_current (s->ctx);
  return e == CUDA_SUCCESS ? LS_OK : ls_cuda_fail (&s->p, err, e, "%s", NAME (s, ctx_set_current));
}

static int
enter (ls_cuda_pipeline *p, ls_error *err)
{
  return make_current ((cuda_sink *) p, err);
}

/* The driver, the device and its primary context: failures here are "no
 * usable GPU" (auto falls back to sim with this text). */
static int
open_context (cuda_sink *s, ls_error *err)
{
  const ls_sink_config *config = &s->p.base.config;
  ls_error why = { 0 };
  CUresult e;
  int count = 0, version = 0;

  if (ls_cuda_driver_load (&s->cu, &why) != LS_OK)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s", why.message);
  if ((e = s->cu.init (0)) != CUDA_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s failed with %s (%s)", NAME (s, init),
                         ls_cuda_error_name (&s->cu, e), ls_cuda_error_text (&s->cu, e));
  s->initialised = true;
  if (s->cu.driver_get_version (&version) == CUDA_SUCCESS)
    s->p.base.driver_version = version;
  snprintf (s->p.base.driver_library, sizeof s->p.base.driver_library, "%s", s->cu.library);
  if ((e = s->cu.device_get_count (&count)) != CUDA_SUCCESS)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no usable GPU: %s failed with %s (%s)", NAME (s, device_get_count),
                         ls_cuda_error_name (&s->cu, e), ls_cuda_error_text (&s->cu, e));
  if (count == 0)
    return ls_error_set (err, LS_ERR_UNSUPPORTED, "no CUDA device");
  if (config->device < 0 || config->device >= count)
    return ls_error_set (err, LS_ERR_INVALID, "CUDA device %d does not exist (this machine has %d, from 0)",
                         config->device, count);
  if ((e = s->cu.device_get (&s->device, config->device)) != CUDA_SUCCESS)
    return ls_cuda_fail (&s->p, err, e, "%s (%d)", NAME (s, device_get), config->device);
  if ((e = s->cu.primary_ctx_retain (&s->ctx, s->device)) != CUDA_SUCCESS)
    {
      s->ctx = NULL;
      return ls_cuda_fail (&s->p, err, e, "%s (device %d)", NAME (s, primary_ctx_retain), config->device);
    }
  return make_current (s, err);
}

/* The device's name, its SMs (the grid) and its PCI bus id. */
static int
describe_device (cuda_sink *s, ls_error *err)
{
  ls_sink *base = &s->p.base;
  const ls_sink_config *config = &base->config;
  int sms = 0, domain = 0, bus = 0, dev = 0;
  CUresult e;

  /* A name longer than the field is cut short, as intended. */
  if ((e = s->cu.device_get_name (base->device_name, (int) sizeof base->device_name, s->device)) != CUDA_SUCCESS)
    return ls_cuda_fail (&s->p, err, e, "%s (%d)", NAME (s, device_get_name), config->device);
  base->device_name[sizeof base->device_name - 1] = '\0';
  if ((e = s->cu.device_get_attribute (&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, s->device)) != CUDA_SUCCESS)
    return ls_cuda_fail (&s->p, err, e, "%s (multiprocessor count)", NAME (s, device_get_attribute));
  s->p.grid = (unsigned) (sms > 0 ? sms * 2 : 2);
  /* The monitor finds this device in NVML by it: NVML's indices are not
   * CUDA's (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). The attributes give
   * it too, should the call fail. */
  if (s->cu.device_get_pci_bus_id (base->pci_bus_id, (int) sizeof base->pci_bus_id, s->device) != CUDA_SUCCESS)
    {
      s->cu.device_get_attribute (&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, s->device);
      s->cu.device_get_attribute (&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, s->device);
      s->cu.device_get_attribute (&dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, s->device);
      snprintf (base->pci_bus_id, sizeof base->pci_bus_id, "%04x:%02x:%02x.0", (unsigned) domain, (unsigned) bus,
                (unsigned) dev);
    }
  return LS_OK;
}

/* The model step from the embedded PTX; the driver JIT-compiles it for the
 * device (once, then from its cache). */
static int
load_step (cuda_sink *s, ls_error *err)
{
  CUresult e = s->cu.module_load_data (&s->module, ls_model_step_ptx);
  if (e != CUDA_SUCCESS)
    {
      s->module = NULL;
      if (e == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || e == CUDA_ERROR_INVALID_PTX)
        return ls_error_set (err, LS_ERR_UNSUPPORTED,
                             "no usable GPU: %s (the model step's PTX) failed with %s (%s): the driver (%d.%d) is too "
                             "old for the PTX",
                             NAME (s, module_load_data), ls_cuda_error_name (&s->cu, e),
                             ls_cuda_error_text (&s->cu, e), s->p.base.driver_version / 1000,
                             s->p.base.driver_version % 1000 / 10);
      return ls_cuda_fail (&s->p, err, e, "%s (the model step's PTX)", NAME (s, module_load_data));
    }
  if ((e = s->cu.module_get_function (&s->step, s->module, STEP_KERNEL)) != CUDA_SUCCESS)
    return ls_cuda_fail (&s->p, err, e, "%s (%s)", NAME (s, module_get_function), STEP_KERNEL);
  return LS_OK;
}

static int
open_device (ls_cuda_pipeline *p, ls_error *err)
{
  cuda_sink *s = (cuda_sink *) p;
  int rc;

  if ((rc = open_context (s, err)) != LS_OK || (rc = describe_device (s, err)) != LS_OK)
    return rc;
  return load_step (s, err);
}

static const ls_cuda_ops driver_ops = LS_CUDA_OPS (enter, CUDA_ERROR_NOT_READY);

static void
cuda_close (ls_sink *base)
{
  cuda_sink *s = (cuda_sink *) base;

  /* Errors are ignored here: there is nothing left to report them to. */
  if (s->ctx)
    {
      s->cu.ctx_set_current (s->ctx);
      ls_cuda_pipeline_release (&s->p);
      if (s->module)
        s->cu.module_unload (s->module);
      s->cu.ctx_set_current (NULL);
      s->cu.primary_ctx_release (s->device);
    }
  if (s->cu.lib)
    ls_cuda_driver_unload (&s->cu, s->initialised);
  ls_cuda_pipeline_free (&s->p);
}

static const ls_sink_ops cuda_ops = { ls_cuda_pipeline_submit, ls_cuda_pipeline_drain, cuda_close };

int
ls_sink_cuda_driver_open (const ls_sink_config *config, const ls_arena *arena, ls_sink **out, ls_error *err)
{
  return ls_cuda_pipeline_open (sizeof (cuda_sink), &driver_ops, &cuda_ops, config, arena, out, err);
}
